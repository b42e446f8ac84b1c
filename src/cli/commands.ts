import {
  jobFailure,
  PmsClient,
  PmsNetworkError,
  type ProgressStep,
  type ScoreMode,
  type ScoreResult,
} from "../client/index.js";
import { exitCodes, UsageError, type ExitCode } from "./exit-codes.js";
import { evaluateGate, gateLine, parseThresholds, type Threshold } from "./gate.js";
import { configPath, removeLogin, saveLogin } from "./stored-login.js";
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
  /** The service's address (PMS_API_URL, else the stored login's, else the default). */
  readonly apiUrl: string;
  /** A client of the same service with another key (`pms login` checks the key it is given). */
  readonly clientWithKey: (apiKey: string) => PmsClient;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The key for pms login: piped in, or typed at a prompt that does not echo it. */
  readonly readKey: () => Promise<string>;
  readonly stdout: Output;
  readonly stderr: Output & { readonly isTTY?: boolean | undefined };
}

/** What a command answers: nothing for done (exit 0), or the exit code it decided (the gate's 8). */
export type Outcome = ExitCode | void;

export type Flags = Readonly<Record<string, string | boolean | string[] | undefined>>;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function requireKey(io: Io, command: string): void {
  if (!io.hasKey) throw new UsageError(`${command} needs an API key: set PMS_API_KEY, or run pms login`);
}

function one(positionals: readonly string[], what: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`expected ${what}`);
  return positionals[0];
}

/**
 * Prints a result (the report, or with --json the API's answer plus `extra`) and,
 * with thresholds, the gate: its line on stderr, `gate` in the JSON, exit 8 below it.
 */
function printResult(
  io: Io,
  result: ScoreResult,
  flags: Flags,
  thresholds: readonly Threshold[] | undefined,
  extra: { claimToken?: string | null | undefined } = {},
): Outcome {
  const gate = thresholds ? evaluateGate(result, thresholds) : undefined;
  if (flags.json) {
    io.stdout.write(
      json({ ...result, ...(extra.claimToken ? { claimToken: extra.claimToken } : {}), ...(gate ? { gate } : {}) }),
    );
  } else {
    io.stdout.write(
      scoreReport(result, { shareUrl: `${io.client.baseUrl}/r/${result.id}`, claimToken: extra.claimToken }),
    );
  }
  if (!gate) return;
  io.stderr.write(gateLine(result, gate));
  return gate.passed ? exitCodes.ok.code : exitCodes.belowThreshold.code;
}

export async function scoreCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<Outcome> {
  const url = one(positionals, "one address: pms score <url>");
  // Read before the job starts: a threshold mistyped is a usage error, not a charged score.
  const thresholds = parseThresholds(flags["min-score"], flags["min-pillar"]);
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
  return printResult(io, result, flags, thresholds, { claimToken: started.claimToken });
}

export async function resultCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<Outcome> {
  const id = one(positionals, "one result id: pms result <id>");
  const thresholds = parseThresholds(flags["min-score"], flags["min-pillar"]);
  return printResult(io, await io.client.result(id), flags, thresholds);
}

/**
 * Checks a key with one call (`GET /api/usage`) and stores it for this service
 * (stored-login.ts); the key comes from --key, else stdin when piped, else a
 * prompt that does not echo it.
 */
export async function loginCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  if (positionals.length > 0)
    throw new UsageError("pms login takes no arguments (the key: --key, stdin or the prompt)");
  const apiKey = typeof flags.key === "string" ? flags.key.trim() : await io.readKey();
  if (!apiKey) throw new UsageError("no API key given");
  const usage = await io.clientWithKey(apiKey).usage();
  const path = saveLogin(io.env, { apiUrl: io.apiUrl, apiKey, savedAt: new Date().toISOString() });
  if (flags.json) {
    io.stdout.write(json({ apiUrl: io.apiUrl, plan: usage.plan, configPath: path }));
    return;
  }
  io.stdout.write(`Logged in to ${io.apiUrl} (${usage.plan} plan). The key is stored in ${path}.\n`);
  if (io.env.PMS_API_KEY?.trim())
    io.stderr.write("Note: PMS_API_KEY is set, and it wins over the stored key while it is.\n");
}

export async function logoutCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  if (positionals.length > 0) throw new UsageError("pms logout takes no arguments");
  const path = configPath(io.env);
  const removed = removeLogin(io.env);
  if (flags.json) io.stdout.write(json({ removed, configPath: path }));
  else io.stdout.write(removed ? `Logged out: removed ${path}.\n` : `Not logged in (no ${path}).\n`);
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

const badgeFormats = ["markdown", "html", "url", "svg"] as const;

/**
 * A badge to paste into a README: a result's (`pms badge <id>`), or a product's
 * public one (`--product <id>`), as Markdown by default; --format picks HTML, the
 * image's address or the SVG itself, --json all four.
 */
export async function badgeCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<void> {
  const format = typeof flags.format === "string" ? flags.format : "markdown";
  if (!(badgeFormats as readonly string[]).includes(format))
    throw new UsageError(`--format: one of ${badgeFormats.join(", ")}`);
  const product = flags.product;
  if (product !== undefined && (typeof product !== "string" || product === ""))
    throw new UsageError("--product: a product id");
  if (typeof product === "string" && positionals.length > 0)
    throw new UsageError("pms badge takes a result id or --product <id>, not both");
  const badge =
    typeof product === "string"
      ? await io.client.productBadge(product)
      : await io.client.badge(one(positionals, "one result id: pms badge <result id> (or --product <id>)"));
  if (flags.json) {
    io.stdout.write(json(badge));
    return;
  }
  io.stdout.write(`${badge[format as (typeof badgeFormats)[number]]}\n`);
}
