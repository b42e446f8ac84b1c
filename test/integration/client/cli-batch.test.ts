import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsClient, type BatchStep } from "../../../src/client/index.js";
import { exitCodes } from "../../../src/cli/exit-codes.js";
import { drainCredits, keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Score a list from the typed client (scoreBatch, followBatch, batchCsv) and from
 * `pms batch` (the built bin, dist/src/cli/pms.js), against the running service
 * scoring local fixture sites.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);
const noHome = join(tmpdir(), "pms-cli-test-no-home");

let service: ScoringTestApp;
let member: Awaited<ReturnType<typeof keyedMember>>;
const folder = mkdtempSync(join(tmpdir(), "pms-batch-"));

beforeAll(async () => {
  service = await startScoringApp({ env: { SCORE_WORKERS: "2" } });
  member = await keyedMember(service, "batch@client.test");
});
afterAll(() => service?.close());

async function pms(args: readonly string[], apiKey: string) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: noHome, PMS_API_URL: service.url, PMS_API_KEY: apiKey },
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

describe("the client's batch", { timeout: 120_000 }, () => {
  it("submits, follows to the end over graphql-ws and reads the CSV", async () => {
    const client = new PmsClient({ baseUrl: service.url, apiKey: member.apiKey });
    try {
      const batch = await client.scoreBatch([service.siteUrl("maker.test"), "ftp://files.test/"], {
        context: "A maker tool.",
      });
      // Queued, unless a worker already took it.
      expect(batch.items.map((item) => item.status === "refused")).toEqual([false, true]);
      const steps: BatchStep[] = [];
      for await (const step of client.followBatch(batch.id)) steps.push(step);
      expect(steps.at(-1)!.status).toBe("completed");
      expect(steps.at(-1)!.items[0]!.resultId).toBeTruthy();
      expect((await client.batch(batch.id)).counts).toMatchObject({ completed: 1, refused: 1 });
      const csv = await client.batchCsv(batch.id);
      expect(csv.split("\r\n")[0]).toBe("url,status,result_id,total_score,stage,error_code,error_message");
      expect(csv).toContain("ftp://files.test/,refused,,,,INVALID_URL,");
    } finally {
      await client.close();
    }
  });
});

describe("pms batch", { timeout: 120_000 }, () => {
  it("reads the file, lists refusals, shows plain progress lines when piped, and writes the CSV", async () => {
    const list = join(folder, "urls.txt");
    const out = join(folder, "results.csv");
    writeFileSync(list, `url\n${service.siteUrl("seed.test")}\n\n${service.siteUrl("early.test")}\nnot an address\n`);
    const run = await pms(["batch", list, "--out", out], member.apiKey);
    expect(run.code).toBe(exitCodes.ok.code);
    expect(run.stderr).toMatch(/^refused: not an address: INVALID_URL /m);
    expect(run.stderr).toMatch(/^batch: 2 of 2 done \(1 refused\)$/m);
    expect(run.stderr).toBe(run.stderr.replace(/[\r\x1b]/g, ""));
    const rows = readFileSync(out, "utf8").trimEnd().split("\r\n");
    expect(rows).toHaveLength(4);
    expect(rows[1]).toMatch(/^http:\/\/seed\.test:\d+\/,completed,[0-9a-f-]{36},\d+,\w+,,$/);
    expect(rows[3]).toMatch(/^not an address,refused,,,,INVALID_URL,/);
  });

  it("draws the batch's bar in place on a terminal (a pseudo-terminal through script)", async () => {
    const list = join(folder, "tty.txt");
    writeFileSync(list, `${service.siteUrl("growing.test")}\n${service.siteUrl("scaleup.test")}\n`);
    const out = join(folder, "tty.csv");
    const child = spawn("script", ["-qfec", `${process.execPath} ${bin} batch '${list}' --out '${out}'`, "/dev/null"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: noHome,
        TERM: "xterm",
        COLUMNS: "120",
        PMS_API_URL: service.url,
        PMS_API_KEY: member.apiKey,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const code = await exitOf(child);
    expect(code).toBe(exitCodes.ok.code);
    expect(output).toMatch(/\r\x1b\[2KBatch \[[█░]{24}\] 0 of 2 done/);
    expect(output).toMatch(/\r\x1b\[2KBatch \[█{24}\] 2 of 2 done/);
    expect(readFileSync(out, "utf8").split("\r\n")).toHaveLength(4);
  });

  it("exits non-zero when the batch is refused as a whole, and a usage error for an empty file", async () => {
    const poor = await keyedMember(service, "poor@client.test");
    await drainCredits(service, poor, 50);
    const list = join(folder, "two.txt");
    writeFileSync(list, `${service.siteUrl("seed.test")}\n${service.siteUrl("maker.test")}\n`);
    const refused = await pms(["batch", list, "--out", join(folder, "none.csv")], poor.apiKey);
    expect(refused.code).toBe(exitCodes.outOfCredits.code);
    expect(refused.stderr).toContain("CREDIT_EXHAUSTED");
    expect(existsSync(join(folder, "none.csv"))).toBe(false);

    const empty = join(folder, "empty.txt");
    writeFileSync(empty, "url\n\n");
    const run = await pms(["batch", empty], member.apiKey);
    expect(run.code).toBe(exitCodes.usage.code);
  });
});
