#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { PmsApiError, PmsClient, PmsError, type RetryNotice } from "../client/index.js";
import {
  healthCommand,
  historyCommand,
  resultCommand,
  scoreCommand,
  usageCommand,
  webhooksCommand,
  type Flags,
  type Io,
} from "./commands.js";
import { exitCodeFor, exitCodes, UsageError, type ExitCode } from "./exit-codes.js";
import type { Output } from "./progress-view.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
const json = { json: { type: "boolean" } } as const satisfies Options;

/** Each command with the options it takes. */
const commands: Record<
  string,
  { options: Options; run: (io: Io, positionals: readonly string[], flags: Flags) => Promise<void> }
> = {
  score: {
    options: {
      ...json,
      quick: { type: "boolean" },
      product: { type: "boolean" },
      context: { type: "string" },
      quiet: { type: "boolean", short: "q" },
    },
    run: scoreCommand,
  },
  result: { options: json, run: resultCommand },
  history: { options: { ...json, limit: { type: "string" }, cursor: { type: "string" } }, run: historyCommand },
  usage: { options: json, run: usageCommand },
  webhooks: { options: { ...json, events: { type: "string" } }, run: webhooksCommand },
  health: { options: json, run: healthCommand },
};

export function helpText(): string {
  const codes = Object.values(exitCodes).map(({ code, meaning }) => `  ${code}  ${meaning}`);
  return `pms: the Product Maturity Scoring API from a terminal

Usage:
  pms score <url> [--quick | --product] [--context TEXT] [--json] [--quiet]
      Scores a website with live progress (a bar on a terminal, a line per step otherwise),
      then prints the report: total, stage, the 27 dimensions, strongest, weakest, share link.
      --quick: home page and at most 4 more; --product: product framework (needs a key).
  pms result <id> [--json]          A stored result (public: anyone with the id)
  pms history [--limit N] [--cursor C] [--json]
  pms usage [--json]                Credits and quotas of this billing cycle
  pms webhooks list [--json]
  pms webhooks create <https url> [--events score.completed,subscription.changed] [--json]
  pms webhooks delete <id>
  pms health [--json]
  pms --help

  --json prints the API's answer as JSON on stdout; progress and notes go to stderr.

Environment:
  PMS_API_URL  the service (default http://localhost:4000)
  PMS_API_KEY  an API key (pms_live_… or pms_test_…); without it, score runs anonymously (1 per hour)

Throttled requests (429) are retried up to 3 times after Retry-After; nothing else is.

Exit codes:
${codes.join("\n")}
`;
}

export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  streams: { stdout: Output; stderr: Io["stderr"] },
): Promise<ExitCode> {
  const { stdout, stderr } = streams;
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? stderr : stdout).write(helpText());
    return name === undefined ? exitCodes.usage.code : exitCodes.ok.code;
  }
  let client: PmsClient | undefined;
  try {
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command "${name}"`);
    const parsed = parseArguments(rest, command.options);
    if (parsed.values.help) {
      stdout.write(helpText());
      return exitCodes.ok.code;
    }
    const apiKey = env.PMS_API_KEY?.trim() || undefined;
    client = new PmsClient({
      baseUrl: apiUrl(env.PMS_API_URL),
      ...(apiKey ? { apiKey } : {}),
      userAgent: "pms-cli",
      onRetry: (notice) => stderr.write(retryLine(notice)),
    });
    await command.run({ client, hasKey: apiKey !== undefined, stdout, stderr }, parsed.positionals, parsed.values);
    return exitCodes.ok.code;
  } catch (error) {
    stderr.write(describe(error));
    if (error instanceof UsageError) stderr.write("Run pms --help for usage.\n");
    return exitCodeFor(error);
  } finally {
    await client?.close();
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
  const url = value?.trim() || "http://localhost:4000";
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
  process.exitCode = await main(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr });
}
