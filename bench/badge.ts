// Load on the badge routes, beside a baseline measured in the same run on the same
// server: GET /api/score/{id}, the public read of a result that share links and the
// final-answer cache already make cheap. Badges are fetched by READMEs and CDNs, so
// the question is whether an image costs more than that read.
//
//   - GET /r/{id}/badge.svg over many ids: the ResultBadge operation on the public
//     result read (memory once final), drawing the SVG and hashing it per request;
//   - GET /api/products/{id}/badge.svg over many ids: the REST table's ProductBadge
//     row, one SQL statement per request (no cache: a product's badge changes);
//   - GET /api/score/{id} over the same result ids: the baseline.
//
// Each route's ids are read once before the load (steady state, see main).
// Setup: a scratch database on DATABASE_URL's server, migrated, dropped at the end;
// BADGE_IDS (default 1,000) products with public badges, one result each. The
// service runs in its own child process (this file, forked with `--serve`).
//
//   npx tsx bench/badge.ts            (BENCH_SECONDS=8 per measurement by default)

import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { dataSourceFor } from "../src/db/database.js";
import { serveChild, spawnService } from "./service-process.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const HOST = "127.0.0.1";
const CONNECTIONS = 50;
const WARMUP_S = 2;
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 8);
const IDS = Number(process.env.BADGE_IDS ?? 1_000);
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

interface Target {
  readonly name: string;
  readonly path: (ids: { result: string; product: string }) => string;
}

const TARGETS: Target[] = [
  { name: "baseline: GET /api/score/{id}", path: (ids) => `/api/score/${ids.result}` },
  { name: "GET /r/{id}/badge.svg", path: (ids) => `/r/${ids.result}/badge.svg` },
  { name: "GET /api/products/{id}/badge.svg", path: (ids) => `/api/products/${ids.product}/badge.svg` },
];

/** IDS products with public badges, one result each (27 dimensions are not needed by either badge). */
async function seed(databaseUrl: string): Promise<Array<{ result: string; product: string }>> {
  return withClient(databaseUrl, async (client) => {
    const account = await client.query<{ id: string }>(
      `INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('Bench', now()) RETURNING id`,
    );
    const accountId = account.rows[0]!.id;
    const rows = await client.query<{ result: string; product: string }>(
      `WITH products AS (
         INSERT INTO products (account_id, name, url, public_badge)
         SELECT $1, 'Product ' || n, 'https://p' || n || '.example', true FROM generate_series(1, $2::int) n
         RETURNING id, name, url
       )
       INSERT INTO score_results (url, company_name, total_score, stage_name, framework, framework_version, mode, strengths, gaps,
         cross_dimension_notes, anti_patterns, crawled_pages, crawl_stats, scorer, account_id, product_id)
       SELECT url, name, 72, 'Compounding', 'product', '1.0.0', 'full', '{}', '{}', '', '{}', '{}', '{}'::jsonb,
         '{"kind":"heuristic"}'::jsonb, $1, id FROM products
       RETURNING id AS result, product_id AS product`,
      [accountId, IDS],
    );
    await client.query("ANALYZE products; ANALYZE score_results");
    return rows.rows;
  });
}

async function measure(port: number, target: Target, ids: ReadonlyArray<{ result: string; product: string }>) {
  let next = 0;
  const options = (duration: number) => ({
    url: `http://${HOST}:${port}${target.path(ids[0]!)}`,
    duration,
    connections: CONNECTIONS,
    requests: [
      { setupRequest: (request: { path: string }) => ({ ...request, path: target.path(ids[next++ % ids.length]!) }) },
    ],
  });
  await autocannon(options(WARMUP_S));
  const r = await autocannon(options(MEASURE_S));
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.errors + r.timeouts + r.non2xx,
  };
}

async function main(): Promise<void> {
  const database = `pms_bench_badge_${process.pid}`;
  const databaseUrl = withDatabase(ADMIN_URL, database);
  let server: { child: ChildProcess; port: number } | undefined;
  try {
    await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
    const dataSource = dataSourceFor(databaseUrl, 2);
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await dataSource.destroy();
    const ids = await seed(databaseUrl);
    server = await spawnService(fileURLToPath(import.meta.url), databaseUrl);
    for (const target of TARGETS) {
      const check = await fetch(`http://${HOST}:${server.port}${target.path(ids[1]!)}`);
      if (check.status !== 200) throw new Error(`${target.name}: ${check.status} ${await check.text()}`);
    }
    // Every id read once per route first: the steady state of badges in READMEs (the
    // baseline's answers cached, final result badges in memory; products never are).
    for (const target of TARGETS)
      for (const pair of ids) await (await fetch(`http://${HOST}:${server.port}${target.path(pair)}`)).arrayBuffer();
    const samples = new Map<Target, Array<Awaited<ReturnType<typeof measure>>>>(TARGETS.map((t) => [t, []]));
    // Forward then reverse, so drift on a shared machine hits each target about equally.
    for (const order of [TARGETS, [...TARGETS].reverse()])
      for (const target of order) {
        const sample = await measure(server.port, target, ids);
        samples.get(target)!.push(sample);
        process.stderr.write(`${target.name}: ${sample.rps.toFixed(0)} req/s\n`);
      }
    const baseline = samples.get(TARGETS[0]!)!;
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const baseRps = mean(baseline.map((s) => s.rps));
    console.log(`\n${IDS.toLocaleString("en")} ids in turn, ${CONNECTIONS} connections, ${MEASURE_S} s × 2 rounds\n`);
    console.log("| route | req/s (rounds) | vs baseline | p50 / p99 ms | failures |");
    console.log("|---|---|---|---|---|");
    for (const target of TARGETS) {
      const runs = samples.get(target)!;
      const rps = mean(runs.map((s) => s.rps));
      console.log(
        `| ${target.name} | ${runs.map((s) => s.rps.toFixed(0)).join(", ")} | ${((rps / baseRps) * 100).toFixed(0)} % | ${runs.map((s) => `${s.p50} / ${s.p99}`).join(", ")} | ${runs.reduce((a, s) => a + s.failures, 0)} |`,
      );
    }
  } finally {
    server?.child.kill("SIGTERM");
    if (server) await new Promise((resolve) => server!.child.once("exit", resolve));
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

if (process.argv[2] === "--serve") await serveChild(process.argv[3]!);
else await main();
