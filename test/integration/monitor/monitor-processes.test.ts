import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectLines, exitOf } from "../../support/child-process.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { jobsPerProduct, seedDueProducts } from "../../support/monitor-seed.js";

/**
 * Several scheduler processes over one database (test/support/monitor-process.ts:
 * the monitor scheduler, a queue that only records): every due product gets exactly
 * one job and one charge, whichever process claims it; a process killed while it
 * holds a claim loses nothing and doubles nothing, since its transaction rolls back
 * and another process claims the rows.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const script = fileURLToPath(new URL("../../support/monitor-process.ts", import.meta.url));

interface Child {
  readonly child: ChildProcess;
  readonly lines: string[];
}
const children: Child[] = [];
process.once("exit", () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startScheduler(url: string, env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: url, MONITOR_BATCH: "50", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const started = { child, lines: collectLines(child) };
  children.push(started);
  return started;
}

async function lineOf(started: Child, match: (line: Record<string, unknown>) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of started.lines) {
      if (!line.startsWith("{")) continue;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (match(parsed)) return parsed;
    }
    if (started.child.exitCode !== null && !started.lines.some((line) => line.startsWith("{")))
      throw new Error(`scheduler exited ${started.child.exitCode}:\n${started.lines.join("\n")}`);
    if (Date.now() > deadline) throw new Error(`no such line in time:\n${started.lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let database: TestDatabase;
let client: pg.Client;

beforeEach(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterEach(async () => {
  for (const { child } of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exitOf(child);
    }
  }
  await client?.end();
  await database?.drop();
});
afterAll(() => undefined);

describe("scheduler processes", () => {
  it("two processes, 600 due products of 12 accounts: each product exactly one job and one charge", async () => {
    await seedDueProducts(client, { accounts: 12, products: 600 });
    const a = startScheduler(database.url, { ONCE: "1" });
    const b = startScheduler(database.url, { ONCE: "1" });
    const [ticks] = await Promise.all([
      Promise.all([a, b].map((child) => lineOf(child, (line) => "tick" in line))),
      exitOf(a.child),
      exitOf(b.child),
    ]);
    const rows = await jobsPerProduct(client);
    expect(rows).toHaveLength(600);
    expect(rows.filter((row) => row.jobs !== 1 || row.charges !== 1 || row.due)).toEqual([]);
    const claimed = ticks.map((line) => (line.tick as { claimed: number }).claimed);
    expect(claimed[0]! + claimed[1]!).toBe(600);

    // Due again while their jobs are still queued: this period is skipped, nothing new is charged.
    await client.query(`UPDATE products SET monitor_next_run_at = now() - interval '1 second'`);
    const c = startScheduler(database.url, { ONCE: "1" });
    const again = await lineOf(c, (line) => "tick" in line);
    expect(again.tick).toEqual({ claimed: 600, queued: 0, skipped: 0, busy: 600 });
    expect((await jobsPerProduct(client)).filter((row) => row.jobs !== 1 || row.charges !== 1)).toEqual([]);
  });

  it("a process SIGKILLed while it holds a claim: another process claims those rows, none missed, none doubled", async () => {
    await seedDueProducts(client, { accounts: 5, products: 120 });
    // This one claims 50 rows, then waits holding them.
    const doomed = startScheduler(database.url, { PAUSE_AFTER_CLAIM_MS: "60000" });
    await lineOf(doomed, (line) => line.claimed === 50);
    // A second process meanwhile takes only what the first does not hold.
    const other = startScheduler(database.url, { ONCE: "1" });
    const first = await lineOf(other, (line) => "tick" in line);
    expect((first.tick as { claimed: number }).claimed).toBe(70);
    doomed.child.kill("SIGKILL");
    await exitOf(doomed.child);
    // Its transaction rolled back: the 50 are due again, with no job and no charge.
    const afterKill = await jobsPerProduct(client);
    expect(afterKill.filter((row) => row.jobs === 0 && row.charges === 0 && row.due)).toHaveLength(50);
    const restarted = startScheduler(database.url, { ONCE: "1" });
    const second = await lineOf(restarted, (line) => "tick" in line);
    expect((second.tick as { claimed: number }).claimed).toBe(50);
    expect((await jobsPerProduct(client)).filter((row) => row.jobs !== 1 || row.charges !== 1 || row.due)).toEqual([]);
  });
});
