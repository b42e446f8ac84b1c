// Cost of the per-request API call charge when one account is busy. Every key-authenticated request charges one API call (0.1 credit and
// one unit of the monthly ceiling) before its operation runs; the ledger keeps a
// per-cycle balance row that each charge updates in one conditional statement.
// The question: do 50 concurrent requests of ONE account (all charging the same
// row) run nearly as fast as 50 concurrent requests spread over 50 accounts
// (50 different rows)? The second workload is the baseline, measured in the same
// run against the same server. Target: one account ≥ 0.8× the spread throughput.
//
// Each request: GET /api/usage with `Authorization: Bearer <key>` through the REST
// layer (key lookup, API-call charge, lock-free usage read). The accounts are on
// Enterprise (no credit limit, a 100,000-call ceiling), so no request is refused.
// The service runs in a child process (this file forked with --serve) so the load
// generator does not share its event loop. The workloads alternate (one, spread,
// one, spread, …) and the medians are printed; at the end the running totals are
// checked against the ledger's entries (they must agree exactly).
//
//   npm run bench:usage          (BENCH_SECONDS=8 per measurement, BENCH_ROUNDS=3)

import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

import autocannon from "autocannon";

import { hashSecret, newSecret, VISIBLE_PREFIX_LENGTH } from "../src/modules/accounts/api-keys/api-key-secret.js";
import { serveChild, spawnService } from "./service-process.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const HOST = "127.0.0.1";
const CONNECTIONS = 50;
const ACCOUNTS = 50;
const POOL_SIZE = 10;
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** ACCOUNTS Enterprise accounts, each with one API key; returns the keys' secrets. */
async function seed(databaseUrl: string): Promise<string[]> {
  return withClient(databaseUrl, async (client) => {
    const secrets: string[] = [];
    for (let i = 0; i < ACCOUNTS; i += 1) {
      const secret = newSecret();
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO accounts (name, plan, billing_cycle_anchor) VALUES ($1, 'enterprise', now() - interval '1 day') RETURNING id`,
        [`Bench ${i}`],
      );
      await client.query(`INSERT INTO api_keys (account_id, name, prefix, secret_hash) VALUES ($1, 'bench', $2, $3)`, [
        rows[0]!.id,
        secret.slice(0, VISIBLE_PREFIX_LENGTH),
        hashSecret(secret),
      ]);
      secrets.push(secret);
    }
    return secrets;
  });
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function measure(port: number, keyOfClient: (index: number) => string, duration: number): Promise<Sample> {
  let clients = 0;
  // setupClient is in autocannon's documented options but not in its type definitions.
  const options = {
    url: `http://${HOST}:${port}/api/usage`,
    connections: CONNECTIONS,
    duration,
    setupClient: (client: { setHeaders: (headers: Record<string, string>) => void }) => {
      client.setHeaders({ authorization: `Bearer ${keyOfClient(clients++)}` });
    },
  };
  const result = await autocannon(options as Parameters<typeof autocannon>[0]);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const database = `bench_usage_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const databaseUrl = withDatabase(ADMIN_URL, database);
  let child: ChildProcess | undefined;
  try {
    const service = await spawnService(fileURLToPath(import.meta.url), databaseUrl);
    child = service.child;
    const secrets = await seed(databaseUrl);
    console.log(
      `GET /api/usage with an API key, ${CONNECTIONS} connections, ${MEASURE_S} s per measurement, ${ROUNDS} rounds, pool ${POOL_SIZE}`,
    );
    // Warm-up: every account's cycle row is created by its first charge (the slow path), JIT warms.
    await measure(service.port, (i) => secrets[i % ACCOUNTS]!, 2);

    const one: Sample[] = [];
    const spread: Sample[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      one.push(await measure(service.port, () => secrets[0]!, MEASURE_S));
      spread.push(await measure(service.port, (i) => secrets[i % ACCOUNTS]!, MEASURE_S));
    }
    const row = (name: string, samples: Sample[]) => {
      const bad = samples.reduce((n, s) => n + s.non2xx + s.errors, 0);
      console.log(
        `${name.padEnd(36)} ${median(samples.map((s) => s.rps))
          .toFixed(0)
          .padStart(7)} req/s   p50 ${median(samples.map((s) => s.p50))
          .toFixed(1)
          .padStart(6)} ms   p99 ${median(samples.map((s) => s.p99))
          .toFixed(1)
          .padStart(
            6,
          )} ms   non-2xx/errors ${bad}   (rounds: ${samples.map((s) => s.rps.toFixed(0)).join(", ")} req/s)`,
      );
    };
    row("one account (all 50 on one row)", one);
    row(`baseline: spread over ${ACCOUNTS} accounts`, spread);
    const ratio = median(one.map((s) => s.rps)) / median(spread.map((s) => s.rps));
    console.log(`ratio one/spread: ${ratio.toFixed(2)}× (target ≥ 0.80×) ${ratio >= 0.8 ? "met" : "MISSED"}`);

    // The running totals must equal the ledger's sums after all that concurrency.
    const mismatches = await withClient(databaseUrl, async (client) => {
      const { rows } = await client.query<{ n: number }>(`
        SELECT COUNT(*)::int AS n FROM credit_balances b
          LEFT JOIN (SELECT account_id, cycle_start, SUM(amount_tenths) AS balance,
                            SUM(CASE kind WHEN 'spend' THEN 1 WHEN 'refund' THEN -1 ELSE 0 END) FILTER (WHERE action = 'api_call') AS calls
                       FROM credit_entries WHERE bucket = 'plan' GROUP BY account_id, cycle_start) e USING (account_id, cycle_start)
         WHERE b.plan_balance <> COALESCE(e.balance, 0) OR b.api_call_count <> COALESCE(e.calls, 0)`);
      const [{ calls }] = (
        await client.query<{ calls: number }>(`SELECT SUM(api_call_count)::int AS calls FROM credit_balances`)
      ).rows as [{ calls: number }];
      console.log(`API calls charged in all: ${calls.toLocaleString("en")}`);
      return rows[0]!.n;
    });
    console.log(`running totals vs ledger: ${mismatches === 0 ? "equal on every row" : `${mismatches} rows DIFFER`}`);
    if (mismatches !== 0) process.exitCode = 1;
  } finally {
    child?.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

if (process.argv[2] === "--serve") {
  await serveChild(process.argv[3]!, { DATABASE_POOL_SIZE: String(POOL_SIZE) });
} else {
  await main();
}
