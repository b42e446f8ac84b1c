#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { PmsApiError, PmsClient, PmsError, pillarIds, pillarNames, type RetryNotice } from "../client/index.js";
import {
  badgeCommand,
  compareCommand,
  healthCommand,
  historyCommand,
  loginCommand,
  logoutCommand,
  resultCommand,
  scoreCommand,
  usageCommand,
  webhooksCommand,
  monitorCommand,
  badgePublicCommand,
  type Flags,
  type Io,
  type Outcome,
} from "./commands.js";
import { batchCommand } from "./batch-command.js";
import { exitCodeFor, exitCodes, UsageError, type ExitCode } from "./exit-codes.js";
import type { Output } from "./progress-view.js";
import { readKey, type Input } from "./read-key.js";
import { readLogin, sameService } from "./stored-login.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
const json = { json: { type: "boolean" } } as const satisfies Options;
/** The CI gate's thresholds (gate.ts). */
const thresholds = {
  "min-score": { type: "string" },
  "min-pillar": { type: "string", multiple: true },
} as const satisfies Options;

/** Each command with the options it takes. */
const commands: Record<
  string,
  { options: Options; run: (io: Io, positionals: readonly string[], flags: Flags) => Promise<Outcome> }
> = {
  score: {
    options: {
      ...json,
      ...thresholds,
      quick: { type: "boolean" },
      product: { type: "boolean" },
      context: { type: "string" },
      quiet: { type: "boolean", short: "q" },
    },
    run: scoreCommand,
  },
  batch: { options: { ...json, out: { type: "string" }, context: { type: "string" } }, run: batchCommand },
  result: { options: { ...json, ...thresholds }, run: resultCommand },
  compare: { options: { ...json, "allow-version-mismatch": { type: "boolean" } }, run: compareCommand },
  login: { options: { ...json, key: { type: "string" } }, run: loginCommand },
  logout: { options: json, run: logoutCommand },
  history: { options: { ...json, limit: { type: "string" }, cursor: { type: "string" } }, run: historyCommand },
  usage: { options: json, run: usageCommand },
  webhooks: { options: { ...json, events: { type: "string" } }, run: webhooksCommand },
  monitor: { options: json, run: monitorCommand },
  "badge-public": { options: json, run: badgePublicCommand },
  health: { options: json, run: healthCommand },
  badge: { options: { ...json, format: { type: "string" }, product: { type: "string" } }, run: badgeCommand },
};

export function helpText(): string {
  const codes = Object.values(exitCodes).map(({ code, meaning }) => `  ${code}  ${meaning}`);
  return `pms: the Product Maturity Scoring API from a terminal

Usage:
  pms score <url> [--quick | --product] [--context TEXT] [--json] [--quiet]
            [--min-score N] [--min-pillar PILLAR=N ...]
      Scores a website with live progress (a bar on a terminal, a line per step otherwise),
      then prints the report: total, stage, its percentile among scored sites (once 30 sites
      of its framework version exist; --json adds "percentiles", with the reason when none),
      the 27 dimensions, strongest, weakest, share link.
      --quick: home page and at most 4 more; --product: product framework (needs a key).
      --min-score N, --min-pillar PILLAR=N (repeatable): a CI gate. One line on stderr,
      "pms: PASS …" or "pms: FAIL …", and exit 8 below any threshold. A pillar's score is
      the mean of its dimensions, as on the share page; PILLAR is its id or its name:
        ${pillarIds.map((id) => `${id} ("${pillarNames[id]}")`).join(",\n        ")}
  pms result <id> [--json] [--min-score N] [--min-pillar PILLAR=N ...]
                                    A stored result (public: anyone with the id), with its percentiles
  pms batch <urls.txt> [--out results.csv] [--context TEXT] [--json]
      Scores a list (one address per line, at most 100; Business and Enterprise keys) with a
      progress bar, then writes the CSV (url,status,result_id,total_score,stage,error_code,
      error_message) to --out, else stdout. Refused addresses are listed on stderr and cost
      nothing; a batch refused as a whole (plan, credits) exits non-zero.
  pms badge <result id> [--format markdown|html|url|svg] [--json]
  pms badge --product <product id> [--format …] [--json]
                                    A score badge to embed: Markdown (default), HTML, the image's
                                    address or the SVG. A product's badge is its latest result's,
                                    shown only while its owner has made it public
  pms compare <id> <otherId> [--allow-version-mismatch] [--json]
      The change from otherId (the baseline, usually the earlier result) to id: total and stage
      change, the most moved dimensions, evidence added and removed (public, like pms result).
      Results of two framework versions are refused unless --allow-version-mismatch.
  pms history [--limit N] [--cursor C] [--json]
  pms usage [--json]                Credits and quotas of this billing cycle
  pms webhooks list [--json]
  pms webhooks create <https url> [--events score.completed,subscription.changed,score.changed,monitor.skipped] [--json]
  pms webhooks delete <id>
  pms monitor <productId> weekly|monthly|off [--json]
                                    Re-scores a product on a schedule, each run charged as a score
                                    (Pro 5, Business 25 monitored products); off stops
  pms badge-public <productId> on|off [--json]
                                    Whether the product's badge of its latest result is public
  pms health [--json]
  pms login [--key KEY] [--json]    Checks a key and stores it for PMS_API_URL (piped: read from stdin;
                                    on a terminal: a prompt that does not echo it)
  pms logout [--json]               Removes the stored key
  pms --help

  --json prints the API's answer as JSON on stdout; progress and notes go to stderr.

Environment:
  PMS_API_URL  the service (default http://localhost:4000)
  PMS_API_KEY  an API key (pms_live_…, pms_test_…); it wins over the key pms login stored.
               Without either, score runs anonymously (1 per hour)
  XDG_CONFIG_HOME  where pms login stores the key: $XDG_CONFIG_HOME/pms/config.json
               (default ~/.config/pms/config.json, mode 0600)

Throttled requests (429) are sent up to 3 times, waiting Retry-After (a wait over 120 s, such as
the anonymous hour, is not waited: the refusal is shown at once); nothing else is retried.

Exit codes:
${codes.join("\n")}
`;
}

export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  streams: { stdout: Output; stderr: Io["stderr"]; stdin?: Input },
): Promise<ExitCode> {
  const { stdout, stderr } = streams;
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? stderr : stdout).write(helpText());
    return name === undefined ? exitCodes.usage.code : exitCodes.ok.code;
  }
  const clients: PmsClient[] = [];
  try {
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command "${name}"`);
    const parsed = parseArguments(rest, command.options);
    if (parsed.values.help) {
      stdout.write(helpText());
      return exitCodes.ok.code;
    }
    // PMS_API_KEY wins; else the key pms login stored, and only for the service it was checked against.
    const stored = name === "login" || name === "logout" ? undefined : readLogin(env);
    const baseUrl = apiUrl(env.PMS_API_URL?.trim() || stored?.apiUrl);
    const storedHere = stored !== undefined && sameService(stored.apiUrl, baseUrl);
    const apiKey = env.PMS_API_KEY?.trim() || (storedHere ? stored.apiKey : undefined);
    if (stored && !storedHere && !apiKey)
      stderr.write(`pms: the stored key is for ${stored.apiUrl}, not ${baseUrl}: not sent.\n`);
    const clientWithKey = (key: string | undefined) => {
      const client = new PmsClient({
        baseUrl,
        ...(key ? { apiKey: key } : {}),
        userAgent: "pms-cli",
        onRetry: (notice) => stderr.write(retryLine(notice)),
      });
      clients.push(client);
      return client;
    };
    const io: Io = {
      client: clientWithKey(apiKey),
      hasKey: apiKey !== undefined,
      apiUrl: baseUrl,
      clientWithKey,
      env,
      // Only pms login reads stdin (process.stdin is opened when first touched).
      readKey: () => readKey(streams.stdin ?? (async function* () {})(), stderr),
      stdout,
      stderr,
    };
    return (await command.run(io, parsed.positionals, parsed.values)) ?? exitCodes.ok.code;
  } catch (error) {
    stderr.write(describe(error));
    if (error instanceof UsageError) stderr.write("Run pms --help for usage.\n");
    return exitCodeFor(error);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

function parseArguments(args: readonly string[], options: Options) {
  try {
    return parseArgs({
      args: [...args],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function apiUrl(value: string | undefined): string {
  const url = (value?.trim() || "http://localhost:4000").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url))
    throw new UsageError(`PMS_API_URL must be an http(s) address (got "${url}")`);
  return url;
}

function retryLine({ attempt, delayMs, error }: RetryNotice): string {
  return `Rate limited (${error.code}); retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1}).\n`;
}

function describe(error: unknown): string {
  if (error instanceof PmsApiError) {
    const lines = [`pms: ${error.code}${error.status ? ` (${error.status})` : ""}: ${error.message}`];
    if (error.action) lines.push(`  what to do: ${error.action}`);
    if (error.requestId) lines.push(`  request id: ${error.requestId}`);
    if (error.attempts > 1) lines.push(`  sent ${error.attempts} times`);
    return `${lines.join("\n")}\n`;
  }
  if (error instanceof UsageError || error instanceof PmsError) return `pms: ${error.message}\n`;
  return `pms: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2), process.env, {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdin() {
      return process.stdin;
    },
  });
}
