import { jobFailure, PmsClient, PmsNetworkError, type ProgressStep, type ScoreMode } from "../client/index.js";
import { UsageError } from "./exit-codes.js";
import { PlainProgress, SilentProgress, TerminalProgress, type Output, type ProgressView } from "./progress-view.js";
import {
  createdWebhookReport,
  healthReport,
  historyReport,
  scoreReport,
  usageReport,
  webhooksReport,
} from "./report.js";

/** What a command may touch: the client, and the two streams (stdout for answers, stderr for progress and notes). */
export interface Io {
  readonly client: PmsClient;
  readonly hasKey: boolean;
  readonly stdout: Output;
  readonly stderr: Output & { readonly isTTY?: boolean | undefined };
}

export type Flags = Readonly<Record<string, string | boolean | string[] | undefined>>;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function requireKey(io: Io, command: string): void {
  if (!io.hasKey) throw new UsageError(`${command} needs an API key: set PMS_API_KEY`);
}

function one(positionals: readonly string[], what: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`expected ${what}`);
  return positionals[0];
}

export async function scoreCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  const url = one(positionals, "one address: pms score <url>");
  if (flags.quick && flags.product) throw new UsageError("--quick and --product exclude each other");
  const mode: ScoreMode = flags.product ? "product" : flags.quick ? "quick" : "full";
  if (mode === "product") requireKey(io, "pms score --product");
  const started = await io.client.startScore(url, {
    mode,
    ...(typeof flags.context === "string" ? { context: flags.context } : {}),
  });
  const jobId = started.job.id;
  const view: ProgressView = flags.quiet
    ? new SilentProgress()
    : io.stderr.isTTY
      ? new TerminalProgress(io.stderr)
      : new PlainProgress(io.stderr);
  const stopOnInterrupt = () => {
    view.end();
    io.stderr.write(
      `\nStopped following job ${jobId}; it goes on (and is charged). Follow it at GET /api/score/jobs/${jobId}.\n`,
    );
    process.exit(130);
  };
  process.once("SIGINT", stopOnInterrupt);
  let last: Pick<ProgressStep, "status" | "resultId" | "error"> | undefined;
  try {
    try {
      for await (const step of io.client.followProgress(jobId)) {
        view.update(step);
        last = step;
      }
    } catch (error) {
      if (!(error instanceof PmsNetworkError)) throw error;
      // No socket (a proxy that drops upgrades, say): the same job over REST.
      io.stderr.write(`\nLive progress unavailable (${error.message}); polling the job.\n`);
      const job = await io.client.waitForJob(jobId, {
        onProgress: (polled) => polled.progress && view.update(polled.progress),
      });
      last = { status: "completed", resultId: job.resultId, error: null };
    }
  } finally {
    view.end();
    process.removeListener("SIGINT", stopOnInterrupt);
  }
  if (!last || last.status === "failed" || !last.resultId)
    throw jobFailure(
      jobId,
      last?.error ?? { code: "INTERNAL", message: "The progress stream ended before the job did." },
    );
  const result = await io.client.result(last.resultId);
  if (flags.json) {
    io.stdout.write(json(started.claimToken ? { ...result, claimToken: started.claimToken } : result));
    return;
  }
  io.stdout.write(
    scoreReport(result, { shareUrl: `${io.client.baseUrl}/r/${result.id}`, claimToken: started.claimToken }),
  );
}

export async function resultCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  const result = await io.client.result(one(positionals, "one result id: pms result <id>"));
  io.stdout.write(flags.json ? json(result) : scoreReport(result, { shareUrl: `${io.client.baseUrl}/r/${result.id}` }));
}

export async function historyCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  if (positionals.length > 0) throw new UsageError("pms history takes no arguments");
  requireKey(io, "pms history");
  const limit = typeof flags.limit === "string" ? Number(flags.limit) : undefined;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100))
    throw new UsageError("--limit: a whole number from 1 to 100");
  const history = await io.client.history({
    ...(limit ? { limit } : {}),
    ...(typeof flags.cursor === "string" ? { cursor: flags.cursor } : {}),
  });
  io.stdout.write(flags.json ? json(history) : historyReport(history));
}

export async function usageCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  if (positionals.length > 0) throw new UsageError("pms usage takes no arguments");
  requireKey(io, "pms usage");
  const usage = await io.client.usage();
  io.stdout.write(flags.json ? json(usage) : usageReport(usage));
}

export async function healthCommand(io: Io, _positionals: readonly string[], flags: Flags): Promise<void> {
  const health = await io.client.health();
  io.stdout.write(flags.json ? json(health) : healthReport(health));
}

export async function webhooksCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  const [action, ...rest] = positionals;
  requireKey(io, "pms webhooks");
  switch (action) {
    case "list": {
      if (rest.length > 0) throw new UsageError("pms webhooks list takes no arguments");
      const webhooks = await io.client.webhooks.list();
      io.stdout.write(flags.json ? json({ webhooks }) : webhooksReport(webhooks));
      return;
    }
    case "create": {
      const url = one(rest, "one address: pms webhooks create <https url> [--events a,b]");
      const events =
        typeof flags.events === "string"
          ? flags.events
              .split(",")
              .map((event) => event.trim())
              .filter(Boolean)
          : undefined;
      const webhook = await io.client.webhooks.create(url, events ? { events } : {});
      io.stdout.write(flags.json ? json({ webhook }) : createdWebhookReport(webhook));
      return;
    }
    case "delete": {
      const id = one(rest, "one webhook id: pms webhooks delete <id>");
      await io.client.webhooks.delete(id);
      io.stdout.write(flags.json ? json({ deleted: id }) : `Deleted webhook ${id}\n`);
      return;
    }
    default:
      throw new UsageError("expected pms webhooks list | create <url> [--events a,b] | delete <id>");
  }
}
