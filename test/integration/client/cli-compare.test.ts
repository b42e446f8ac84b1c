import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsApiError, PmsClient } from "../../../src/client/index.js";
import { exitCodes } from "../../../src/cli/exit-codes.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import type { Site } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * `client.compare` and `pms compare` (the built bin, as cli.test.ts runs it) against
 * the running service: two scores of one address whose site grew in between.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);
const noHome = join(tmpdir(), "pms-cli-test-no-home");

const pagesOf = (host: string): Site => calibrationSites.find((site) => site.host === host)!.pages;
let current: Site = pagesOf("seed.test");
const growingSite = new Proxy({} as Site, { get: (_target, path: string) => current[path] });

let service: ScoringTestApp;
let apiKey: string;
let client: PmsClient;
let before: string;
let after: string;

beforeAll(async () => {
  service = await startScoringApp({ extraSites: { "grows.test": growingSite } });
  apiKey = (await keyedMember(service, "compare-cli@client.test")).apiKey;
  client = new PmsClient({ baseUrl: service.url, apiKey });
  const score = async () => {
    const answer = await client.score(service.siteUrl("grows.test"));
    if (answer.status !== "completed") throw new Error("the score outlived the wait");
    return answer.result.id;
  };
  before = await score();
  current = pagesOf("leader.test");
  after = await score();
}, 120_000);
afterAll(async () => {
  await client?.close();
  await service?.close();
});

async function pms(args: readonly string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    // No key: compare is public, like pms result.
    env: { PATH: process.env.PATH ?? "", HOME: noHome, PMS_API_URL: service.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

describe("client.compare", () => {
  it("answers the typed comparison, the same as the REST route", async () => {
    const comparison = await client.compare(after, before);
    const [earlier, later] = await Promise.all([client.result(before), client.result(after)]);
    expect(comparison.from.id).toBe(before);
    expect(comparison.to.id).toBe(after);
    expect(comparison.totalDelta).toBe(later.totalScore - earlier.totalScore);
    expect(comparison.dimensions).toHaveLength(27);
    const rest = await (await fetch(`${service.url}/api/score/${after}/compare/${before}`)).json();
    expect(JSON.parse(JSON.stringify(comparison))).toEqual(rest);
  });

  it("throws the catalogue's error for an unknown id", async () => {
    const error = await client.compare(after, randomUUID()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PmsApiError);
    expect(error).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});

describe("the share page of a plain score", { timeout: 60_000 }, () => {
  it("compares with the account's previous score of the same address, never another account's", async () => {
    const later = await (await fetch(`${service.url}/r/${after}`)).text();
    expect(later).toContain("Since the previous score");
    expect(later).toContain(`/r/${before}"`);
    // Another account scores the same address: its page has no previous score, though ours exist.
    const stranger = new PmsClient({
      baseUrl: service.url,
      apiKey: (await keyedMember(service, "stranger@client.test")).apiKey,
    });
    const answer = await stranger.score(service.siteUrl("grows.test"));
    await stranger.close();
    expect(answer.status).toBe("completed");
    const theirs = await (await fetch(`${service.url}/r/${(answer as { result: { id: string } }).result.id}`)).text();
    expect(theirs).not.toContain("Since the previous score");
    expect(theirs).not.toContain(before);
    expect(theirs).not.toContain(after);
  });
});

describe("pms compare", { timeout: 60_000 }, () => {
  it("prints the total and stage change and the most moved dimensions", async () => {
    const comparison = await client.compare(after, before);
    const run = await pms(["compare", after, before]);
    expect(run.code, run.stderr).toBe(exitCodes.ok.code);
    const sign = comparison.totalDelta > 0 ? "+" : "";
    expect(run.stdout).toContain(
      `Total ${comparison.from.totalScore} → ${comparison.to.totalScore} (${sign}${comparison.totalDelta})`,
    );
    if (comparison.stageChange)
      expect(run.stdout).toContain(`${comparison.stageChange.from} → ${comparison.stageChange.to}`);
    const top = comparison.dimensions[0]!;
    expect(run.stdout).toContain("Most moved:");
    expect(run.stdout).toMatch(new RegExp(`\\+?${top.delta}\\s+${top.dimensionName}`));
    expect(run.stdout).toContain(`Evidence: ${comparison.evidenceAdded.total} added`);
    expect(run.stdout).toContain(`${service.url}/r/${after}`);
  });

  it("--json prints the answer alone on stdout", async () => {
    const run = await pms(["compare", after, before, "--json"]);
    expect(run.code, run.stderr).toBe(exitCodes.ok.code);
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(await client.compare(after, before))));
  });

  it("exits 2 without two ids, and 3 for an unknown id naming NOT_FOUND", async () => {
    const usage = await pms(["compare", after]);
    expect(usage.code).toBe(exitCodes.usage.code);
    expect(usage.stderr).toContain("pms compare <id> <otherId>");
    const unknown = await pms(["compare", after, randomUUID(), "--allow-version-mismatch"]);
    expect(unknown.code).toBe(exitCodes.refused.code);
    expect(unknown.stderr).toContain("NOT_FOUND");
  });
});
