import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_POPULATION } from "../../../src/modules/score/percentiles.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { exitOf } from "../../support/child-process.js";
import { storeScore } from "../../support/population.js";

/**
 * `pms result <id>` (the built bin) with percentiles: the report's line once the
 * population has 30 sites, none below, and `--json` carries `percentiles` either
 * way (with the reason when there are none).
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);

let service: TestApp;
let home: string;
let ranked: string;
let lonely: string;

beforeAll(async () => {
  service = await startTestApp({ LOG_LEVEL: "silent" });
  home = mkdtempSync(join(tmpdir(), "pms-percentiles-"));
  const dataSource = service.app.database.dataSource;
  for (let i = 0; i < MIN_POPULATION - 1; i += 1)
    await storeScore(dataSource, { url: `https://peer${i}.example/`, total: i * 2 });
  ranked = await storeScore(dataSource, { url: "https://acme.example/", total: 70 });
  lonely = await storeScore(dataSource, { url: "https://alone.example/", total: 70, frameworkVersion: "9.9.9" });
});
afterAll(async () => {
  await service?.close();
  rmSync(home, { recursive: true, force: true });
});

async function pms(args: readonly string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: home, PMS_API_URL: service.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

describe("pms result with percentiles", { timeout: 60_000 }, () => {
  it("prints the percentile line once 30 sites exist, and --json carries the answer", async () => {
    const report = await pms(["result", ranked]);
    expect(report.code, report.stderr).toBe(0);
    // 29 peers below 70 (0…56), itself equal: (29 + 0.5) / 30; at or above: 1 of 30.
    expect(report.stdout).toContain(
      `Percentile: top 3.3% of ${MIN_POPULATION} scored sites (the total beats 98.3% of them, ties counting half)`,
    );
    const json = await pms(["result", ranked, "--json"]);
    expect(JSON.parse(json.stdout).percentiles).toMatchObject({
      available: true,
      reason: null,
      population: MIN_POPULATION,
      total: { percentile: 98.3, topPercent: 3.3 },
    });
  });

  it("prints no line below 30 sites; --json says why", async () => {
    const report = await pms(["result", lonely]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).not.toContain("Percentile:");
    const json = JSON.parse((await pms(["result", lonely, "--json"])).stdout);
    expect(json.percentiles).toMatchObject({ available: false, population: 1, total: null, dimensions: [] });
    expect(json.percentiles.reason).toContain(`${MIN_POPULATION} distinct sites`);
  });
});
