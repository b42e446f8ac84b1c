import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodes } from "../../../src/cli/exit-codes.js";
import { pillarIds } from "../../../src/scale/pillars.js";
import { keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * The built `pms` (dist/src/cli/pms.js) as a CI job runs it: the gate
 * (--min-score, --min-pillar, exit 8 and its one line), `pms login` storing a
 * key for later commands, and the top-level keys of each command's `--json`,
 * pinned to the table in docs/client.md.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);

let service: ScoringTestApp;
let apiKey: string;
let config: string;

beforeAll(async () => {
  service = await startScoringApp();
  apiKey = (await keyedMember(service, "gate@client.test")).apiKey;
  config = mkdtempSync(join(tmpdir(), "pms-config-"));
});
afterAll(async () => {
  await service?.close();
  rmSync(config, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `pms args…` with only the variables given (HOME a scratch folder: no login unless a test makes one). */
async function pms(args: readonly string[], env: Record<string, string | undefined> = {}, input?: string) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: config,
      PMS_API_URL: service.url,
      PMS_API_KEY: apiKey,
      ...env,
    },
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr } satisfies Run;
}

/** The gate's line: the last line on stderr. */
const gateLine = (run: Run) => run.stderr.trim().split("\n").at(-1)!;

/** Each pillar's average as the share page prints it (`id="pillar-…"` … `class="pillar-avg">N`). */
async function sharePagePillars(id: string): Promise<Record<string, number>> {
  const html = await (await fetch(`${service.url}/r/${id}`)).text();
  return Object.fromEntries(
    pillarIds.map((pillar) => {
      const match = new RegExp(`id="pillar-${pillar}"[\\s\\S]*?class="pillar-avg">(\\d+)<`).exec(html);
      if (!match) throw new Error(`no average for ${pillar} on the share page`);
      return [pillar, Number(match[1])];
    }),
  );
}

/** The `--json` table of docs/client.md: each command's keys, and the keys added in some cases. */
function documentedKeys(): Map<string, { always: string[]; sometimes: string[] }> {
  const doc = readFileSync(join(root, "docs/client.md"), "utf8");
  const section = doc.slice(doc.indexOf("### `--json` output"), doc.indexOf("### Exit codes"));
  const keys = (cell: string) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]!);
  const table = new Map<string, { always: string[]; sometimes: string[] }>();
  for (const [, command, always, sometimes] of section.matchAll(/^\| `(pms [a-z ]+)` \|([^|]*)\|([^|]*)\|$/gm))
    table.set(command!, { always: keys(always!), sometimes: keys(sometimes!) });
  return table;
}

describe("pms as a CI gate", { timeout: 120_000 }, () => {
  it("passes at or above each threshold (exit 0, a PASS line); pillars as the share page averages them", async () => {
    const run = await pms([
      "score",
      service.siteUrl("leader.test"),
      "--quick",
      "--json",
      "--min-score",
      "1",
      "--min-pillar",
      "trust_enterprise=0",
      "--min-pillar",
      "market & STRATEGY=0",
    ]);
    expect(run.stderr).toContain("completed");
    expect(run.code).toBe(exitCodes.ok.code);
    const result = JSON.parse(run.stdout);
    const pillars = await sharePagePillars(result.id);
    expect(result.gate).toEqual({
      passed: true,
      checks: [
        { name: "total", min: 1, score: result.totalScore, passed: true },
        { name: "trust_enterprise", min: 0, score: pillars.trust_enterprise, passed: true },
        { name: "market_strategy", min: 0, score: pillars.market_strategy, passed: true },
      ],
    });
    expect(gateLine(run)).toBe(
      `pms: PASS ${result.totalScore}/100 ${result.stageName} ≥ 1; trust_enterprise ${pillars.trust_enterprise} ≥ 0; market_strategy ${pillars.market_strategy} ≥ 0`,
    );

    // The same gate on the stored result, failing: exit 8, the report on stdout, one FAIL line last on stderr.
    const failed = await pms([
      "result",
      result.id,
      "--min-pillar",
      "Data, AI & Economics=100",
      "--min-score",
      String(result.totalScore),
    ]);
    expect(failed.code).toBe(exitCodes.belowThreshold.code);
    expect(failed.stdout).toMatch(/^Total \d+\/100/m);
    expect(failed.stderr).toBe(`${gateLine(failed)}\n`);
    expect(gateLine(failed)).toBe(
      `pms: FAIL ${result.totalScore}/100 ${result.stageName} ≥ ${result.totalScore}; data_ai_economics ${pillars.data_ai_economics} < 100`,
    );
  });

  it("exits 8 when a score is below --min-score, with the FAIL line and the gate in the JSON", async () => {
    const run = await pms(["score", service.siteUrl("leader.test"), "--quick", "--json", "--min-score", "100"]);
    expect(run.code).toBe(exitCodes.belowThreshold.code);
    const result = JSON.parse(run.stdout);
    expect(result.totalScore).toBeLessThan(100);
    expect(result.gate).toEqual({
      passed: false,
      checks: [{ name: "total", min: 100, score: result.totalScore, passed: false }],
    });
    expect(gateLine(run)).toBe(`pms: FAIL ${result.totalScore}/100 ${result.stageName} < 100`);
  });

  it("refuses a bad threshold or an unknown pillar before sending anything (exit 2, the valid pillars listed)", async () => {
    // A closed port: had anything been sent, the exit would be 7.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = { PMS_API_URL: `http://127.0.0.1:${port}` };
    const runs = await Promise.all([
      pms(["score", "https://acme.example", "--min-pillar", "security=50"], nowhere),
      pms(["score", "https://acme.example", "--min-score", "101"], nowhere),
      pms(["score", "https://acme.example", "--min-score", "sixty"], nowhere),
      pms(["score", "https://acme.example", "--min-pillar", "trust_enterprise"], nowhere),
      pms(
        ["score", "https://acme.example", "--min-pillar", "trust_enterprise=5", "--min-pillar", "Trust & Enterprise=6"],
        nowhere,
      ),
    ]);
    expect(runs.map((run) => run.code)).toEqual(Array(runs.length).fill(exitCodes.usage.code));
    expect(runs[0]!.stderr).toContain('unknown pillar "security"');
    for (const pillar of pillarIds) expect(runs[0]!.stderr).toContain(pillar);
    expect(runs[0]!.stderr).toContain('"Trust & Enterprise"');
    expect(runs[1]!.stderr).toMatch(/--min-score: a whole number from 0 to 100/);
  });

  it("--help names the gate's options and its exit code", async () => {
    const run = await pms(["--help"]);
    expect(run.stdout).toContain("[--min-score N] [--min-pillar PILLAR=N ...]");
    expect(run.stdout).toContain(`  8  ${exitCodes.belowThreshold.meaning}`);
  });
});

describe("pms login", { timeout: 120_000 }, () => {
  it("checks a piped key, stores it 0600 in $XDG_CONFIG_HOME/pms, and later commands use it; PMS_API_KEY wins; logout removes it", async () => {
    const xdg = { XDG_CONFIG_HOME: join(config, "xdg"), PMS_API_KEY: undefined };
    const file = join(config, "xdg", "pms", "config.json");

    const login = await pms(["login"], xdg, `${apiKey}\n`);
    expect(login.stderr).toBe("");
    expect(login.code).toBe(exitCodes.ok.code);
    expect(login.stdout).toContain(`Logged in to ${service.url} (business plan)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, "xdg", "pms")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ apiUrl: service.url, apiKey });

    // Without PMS_API_KEY (and even without PMS_API_URL): the stored key, against its service.
    const usage = await pms(["usage", "--json"], { ...xdg, PMS_API_URL: undefined });
    expect(usage.code).toBe(exitCodes.ok.code);
    expect(JSON.parse(usage.stdout)).toMatchObject({ plan: "business" });
    // The environment's key wins over the stored one.
    const envKey = await pms(["usage"], { ...xdg, PMS_API_KEY: `pms_live_${"0".repeat(49)}` });
    expect(envKey.code).toBe(exitCodes.refused.code);
    expect(envKey.stderr).toMatch(/AUTH_REQUIRED \(401\)/);
    // Another service is not sent the stored key.
    const elsewhere = await pms(["usage"], { ...xdg, PMS_API_URL: "http://127.0.0.1:9" });
    expect(elsewhere.code).toBe(exitCodes.usage.code);
    expect(elsewhere.stderr).toContain(`the stored key is for ${service.url}, not http://127.0.0.1:9: not sent`);

    const logout = await pms(["logout", "--json"], xdg);
    expect(JSON.parse(logout.stdout)).toEqual({ removed: true, configPath: file });
    expect(existsSync(file)).toBe(false);
    const after = await pms(["usage"], xdg);
    expect(after.code).toBe(exitCodes.usage.code);
    expect(after.stderr).toMatch(/PMS_API_KEY, or run pms login/);
  });

  it("stores under ~/.config without XDG_CONFIG_HOME, and stores no key the service refuses", async () => {
    const home = mkdtempSync(join(config, "home-"));
    const file = join(home, ".config", "pms", "config.json");
    const refused = await pms(["login", "--key", `pms_live_${"0".repeat(49)}`], { HOME: home });
    expect(refused.code).toBe(exitCodes.refused.code);
    expect(existsSync(file)).toBe(false);

    const login = await pms(["login", "--key", apiKey, "--json"], { HOME: home, PMS_API_KEY: undefined });
    expect(login.code).toBe(exitCodes.ok.code);
    expect(JSON.parse(login.stdout)).toEqual({ apiUrl: service.url, plan: "business", configPath: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const history = await pms(["history", "--json"], { HOME: home, PMS_API_KEY: undefined });
    expect(history.code).toBe(exitCodes.ok.code);

    const empty = await pms(["login"], { HOME: home }, "\n");
    expect(empty.code).toBe(exitCodes.usage.code);
  });
});

describe("--json output", { timeout: 120_000 }, () => {
  it("has the top-level keys docs/client.md documents, for every command", async () => {
    const documented = documentedKeys();
    expect([...documented.keys()].sort()).toEqual([
      "pms health",
      "pms history",
      "pms login",
      "pms logout",
      "pms result",
      "pms score",
      "pms usage",
      "pms webhooks create",
      "pms webhooks delete",
      "pms webhooks list",
    ]);
    const home = { HOME: mkdtempSync(join(config, "json-")) };
    const keysOf = async (args: string[], env: Record<string, string | undefined> = {}) => {
      const run = await pms([...args, "--json"], { ...home, ...env });
      expect(run.code, `pms ${args.join(" ")}: ${run.stderr}`).toBe(0);
      return Object.keys(JSON.parse(run.stdout)).sort();
    };
    const expected = (command: string, ...added: string[]) => {
      const entry = documented.get(command)!;
      for (const key of added) expect(entry.sometimes).toContain(key);
      return [...entry.always, ...added].sort();
    };

    const keyed = await keysOf(["score", service.siteUrl("leader.test"), "--quick"]);
    expect(keyed).toEqual(expected("pms score"));
    const gated = await keysOf(["score", service.siteUrl("leader.test"), "--quick", "--min-score", "0"]);
    expect(gated).toEqual(expected("pms score", "gate"));
    const anonymous = await pms(["score", service.siteUrl("leader.test"), "--quick", "--json", "--quiet"], {
      ...home,
      PMS_API_KEY: undefined,
    });
    expect(Object.keys(JSON.parse(anonymous.stdout)).sort()).toEqual(expected("pms score", "claimToken"));

    const [first] = JSON.parse((await pms(["history", "--json"], home)).stdout).results;
    expect(await keysOf(["result", first.id])).toEqual(expected("pms result"));
    expect(await keysOf(["result", first.id, "--min-pillar", "trust_enterprise=0"])).toEqual(
      expected("pms result", "gate"),
    );
    expect(await keysOf(["history"])).toEqual(expected("pms history"));
    expect(await keysOf(["usage"])).toEqual(expected("pms usage"));
    expect(await keysOf(["health"])).toEqual(expected("pms health"));
    expect(await keysOf(["webhooks", "list"])).toEqual(expected("pms webhooks list"));
    const created = await pms(["webhooks", "create", "https://127.0.0.1:9/json-keys", "--json"], home);
    const { webhook } = JSON.parse(created.stdout);
    expect(Object.keys(JSON.parse(created.stdout)).sort()).toEqual(expected("pms webhooks create"));
    expect(await keysOf(["webhooks", "delete", webhook.id])).toEqual(expected("pms webhooks delete"));
    expect(await keysOf(["login", "--key", apiKey])).toEqual(expected("pms login"));
    expect(await keysOf(["logout"])).toEqual(expected("pms logout"));
  });
});
