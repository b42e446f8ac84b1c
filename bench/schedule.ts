/**
 * `npm run bench:schedule`: the monitor scheduler's claim pass with 10,000 monitored
 * products due at once, spread over 200 Business accounts with credits.
 *
 * Baseline, in the same run and database: a bare `SELECT … FOR NO KEY UPDATE SKIP
 * LOCKED` of the same 10,000 rows (the least any claim can cost), then one scheduler
 * process, then three processes started together (test/support/monitor-process.ts,
 * claims of 200). Each run ends with the check that every product got exactly one
 * job and one charge, and nothing is still due. Needs PostgreSQL at DATABASE_URL.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { dataSourceFor } from "../src/db/database.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { collectLines, exitOf } from "../test/support/child-process.js";
import { jobsPerProduct, seedDueProducts } from "../test/support/monitor-seed.js";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const PRODUCTS = 10_000;
const ACCOUNTS = 200;
const root = fileURLToPath(new URL("../", import.meta.url));
const script = fileURLToPath(new URL("../test/support/monitor-process.ts", import.meta.url));

/** Every product due again; `cycle: "new"` also forgets the cycle rows, so each account's first charge opens its cycle. */
async function resetDue(client: pg.Client, cycle: "new" | "open" = "new"): Promise<void> {
  await client.query(`DELETE FROM score_jobs`);
  await client.query(`DELETE FROM credit_entries`);
  if (cycle === "new") await client.query(`DELETE FROM credit_balances`);
  await client.query(`UPDATE products SET monitor_next_run_at = now() - interval '1 minute' * random()`);
  await client.query(`VACUUM ANALYZE products`);
}

/** Runs `processes` schedulers that start their tick together; answers the claim pass's wall time. */
async function schedulers(url: string, processes: number): Promise<{ ms: number; claimed: number[] }> {
  const startAt = Date.now() + 3_000;
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: url,
        ONCE: "1",
        START_AT: String(startAt),
        ...(process.env.MONITOR_BATCH ? { MONITOR_BATCH: process.env.MONITOR_BATCH } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { child, lines: collectLines(child) };
  });
  await Promise.all(children.map(({ child }) => exitOf(child)));
  const ticks = children.map(({ lines }) => {
    const line = lines.find((text) => text.includes('"tick"'));
    if (!line) throw new Error(`a scheduler printed no tick:\n${lines.join("\n")}`);
    return JSON.parse(line) as { tick: { claimed: number }; endedAt: number };
  });
  if (Date.now() < startAt) throw new Error("schedulers ended before their start");
  return {
    ms: Math.max(...ticks.map((tick) => tick.endedAt)) - startAt,
    claimed: ticks.map((tick) => tick.tick.claimed),
  };
}

async function check(client: pg.Client): Promise<string> {
  const rows = await jobsPerProduct(client);
  const wrong = rows.filter((row) => row.jobs !== 1 || row.charges !== 1 || row.due);
  if (rows.length !== PRODUCTS || wrong.length > 0)
    throw new Error(`${wrong.length} of ${rows.length} products without exactly one job and charge`);
  return `${rows.length} products, each exactly one job and one charge`;
}

async function main(): Promise<void> {
  const database = `bench_schedule_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = withDatabase(ADMIN_URL, database);
  const client = new pg.Client({ connectionString: url });
  try {
    const dataSource = dataSourceFor(url, 2);
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await dataSource.destroy();
    await client.connect();
    await seedDueProducts(client, { accounts: ACCOUNTS, products: PRODUCTS });
    await resetDue(client);

    const bareStarted = performance.now();
    await client.query("BEGIN");
    const bare = await client.query(
      `SELECT id FROM products WHERE monitor_interval IS NOT NULL AND monitor_next_run_at <= now()
        ORDER BY monitor_next_run_at LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED`,
      [PRODUCTS],
    );
    await client.query("ROLLBACK");
    const bareMs = performance.now() - bareStarted;

    const one = await schedulers(url, 1);
    const oneCheck = await check(client);
    await resetDue(client);
    const three = await schedulers(url, 3);
    const threeCheck = await check(client);
    // The same again with every account's cycle already open (the steady state: a cycle's first charge is rarer).
    await resetDue(client, "open");
    const warm = await schedulers(url, 3);
    const warmCheck = await check(client);

    console.log(`monitor claim pass: ${PRODUCTS} products due at once, ${ACCOUNTS} Business accounts`);
    console.log(`  baseline, bare SKIP LOCKED select of ${bare.rowCount} rows: ${bareMs.toFixed(0)} ms`);
    console.log(`  1 scheduler process: ${one.ms} ms (claimed ${one.claimed.join(", ")}); ${oneCheck}`);
    console.log(`  3 scheduler processes: ${three.ms} ms (claimed ${three.claimed.join(" + ")}); ${threeCheck}`);
    console.log(
      `  3 scheduler processes, cycles already open: ${warm.ms} ms (claimed ${warm.claimed.join(" + ")}); ${warmCheck}`,
    );
  } finally {
    await client.end().catch(() => undefined);
    await withClient(ADMIN_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
