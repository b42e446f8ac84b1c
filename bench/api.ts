// Load on GET /api/score/{id} through the REST layer, beside a baseline
// measured in the same run: a bare node:http handler that reads the same result
// and its 27 dimension rows with `pg` on every request and answers the same
// JSON bytes (checked before any load). Target: at least the
// baseline's throughput on ids the service's memory does not hold.
//
// Two workloads:
//   - one id, again and again: what a popular share link costs. The service
//     answers repeats from memory (the route is `immutable`), the baseline
//     still reads Postgres every time;
//   - 2,500 ids in turn: more than the REST answer cache (16 MB, ~2,000 of these
//     answers) and the result view cache (1,000) hold, both dropping the oldest
//     first, so no service request is answered from memory. A completed result's
//     answer is stored when its job completes, so such a read is one primary-key
//     read of that answer; BENCH_NO_STORED_ANSWERS=1 measures results without one
//     (completed before that was built): Fastify → REST table → graphql-jit →
//     resolver → TypeORM → Postgres, and the answer stored by the first read.
//
// Setup: a scratch database on DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/test), migrated like the service does and
// dropped at the end; one realistic result (the heuristic scorer's answer for
// the calibration leader site's pages) stored 2,500 times in one account (final
// results: the service caches held anonymous ones nowhere). Each server runs in
// its own child process (this file, forked with `--serve`), so the load
// generator never competes with a server's event loop; only 127.0.0.1 is used.
//
//   npm run bench:api            (BENCH_SECONDS=10 per measurement by default)

import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

import autocannon from "autocannon";
import pg from "pg";
import { pino } from "pino";

import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { dataSourceFor } from "../src/db/database.js";
import { Transactions } from "../src/db/transaction.js";
import { dimensions as frameworkDimensions } from "../src/modules/scoring/framework/dimensions.js";
import { finalResultAnswers, resultAnswerSchema } from "../rest-compat/final-answers/final-result-answers.js";
import { ResultAnswerRepository } from "../rest-compat/final-answers/result-answer.repository.js";
import { ResultAnswerStore } from "../rest-compat/final-answers/result-answer-store.js";
import { ScoreResultRepository } from "../src/modules/score/score-result.repository.js";
import { ScoreResultsService } from "../src/modules/score/score-results.service.js";
import type { ScoreService } from "../src/modules/score/score.service.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { scored } from "./realistic-result.js";

const HOST = "127.0.0.1";
const CONNECTIONS = 50;
const WARMUP_S = 2;
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 10);
/** Pool size of both servers: the service's DATABASE_POOL_SIZE default. */
const POOL_SIZE = 10;
/** More ids than the service's two in-memory caches hold (2,000 and 1,000). */
const DISTINCT_IDS = 2_500;
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type ServerKind = "service" | "baseline";

// ---------------------------------------------------------------- servers --

/** The real service, same composition root as `npm start`, without Redis (the read needs none). */
async function startService(databaseUrl: string): Promise<http.Server> {
  const config = loadConfig({
    NODE_ENV: "development",
    // Request logs off: they would measure the log pipe, not the REST layer.
    LOG_LEVEL: "warn",
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    SCORE_WORKERS: "0",
  });
  const app = await createApp(config, pino({ level: config.logLevel }));
  await app.listen(0, HOST);
  return app.http.server;
}

interface ResultRow {
  id: string;
  url: string;
  company_name: string;
  total_score: number;
  stage_name: string;
  framework: string;
  framework_version: string;
  mode: string;
  strengths: string[];
  gaps: string[];
  created_at: Date;
  account_id: string | null;
}

interface DimensionRow {
  dimension_id: string;
  dimension_name: string;
  pillar: string;
  score: number;
  stage_name: string;
  evidence: string;
  evidence_items: Array<{ url?: string; text: string; selfReported?: boolean }>;
  confidence: string;
  reasoning: string;
}

/** Reads the result and its dimensions on every request and answers the REST route's JSON shape. */
async function startBaseline(databaseUrl: string): Promise<http.Server> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const send = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    const match = /^\/api\/score\/([^/?]+)/.exec(req.url ?? "");
    const id = match?.[1];
    if (req.method !== "GET" || !id || !UUID.test(id)) return send(res, 404, '{"error":{"code":"NOT_FOUND"}}');
    Promise.all([
      pool.query<ResultRow>(
        `SELECT id, url, company_name, total_score, stage_name, framework, framework_version, mode, strengths, gaps, created_at, account_id
           FROM score_results WHERE id = $1`,
        [id],
      ),
      pool.query<DimensionRow>(
        `SELECT dimension_id, dimension_name, pillar, score, stage_name, evidence, evidence_items, confidence, reasoning
           FROM score_dimensions WHERE result_id = $1 ORDER BY position`,
        [id],
      ),
    ]).then(
      ([results, dimensions]) => {
        const r = results.rows[0];
        if (!r) return send(res, 404, '{"error":{"code":"NOT_FOUND"}}');
        // Keys in the order of the REST operation's selection (ScoreFields), as graphql-js answers them.
        const body = {
          id: r.id,
          url: r.url,
          companyName: r.company_name,
          totalScore: r.total_score,
          stageName: r.stage_name,
          framework: r.framework,
          frameworkVersion: r.framework_version,
          mode: r.mode,
          dimensions: dimensions.rows.map((d) => ({
            dimensionId: d.dimension_id,
            dimensionName: d.dimension_name,
            pillar: d.pillar,
            score: d.score,
            stageName: d.stage_name,
            evidence: d.evidence,
            evidenceItems: d.evidence_items.map((item) => ({
              url: item.url ?? null,
              text: item.text,
              selfReported: item.selfReported === true,
            })),
            confidence: d.confidence,
            reasoning: d.reasoning,
          })),
          strengths: r.strengths,
          gaps: r.gaps,
          createdAt: r.created_at.toISOString(),
          held: r.account_id === null,
        };
        send(res, 200, JSON.stringify(body));
      },
      () => send(res, 500, '{"error":{"code":"INTERNAL"}}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  return server;
}

async function serve(kind: ServerKind, databaseUrl: string): Promise<void> {
  const server = kind === "service" ? await startService(databaseUrl) : await startBaseline(databaseUrl);
  // Exit with the parent (normal end, crash or Ctrl-C) so nothing is left listening.
  process.on("disconnect", () => process.exit(0));
  // Asked between measurements: what the server retains (the service's answer caches grow with distinct ids).
  process.on("message", (msg) => {
    if (msg !== "memory") return;
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ memory: process.memoryUsage() });
  });
  process.send?.({ port: (server.address() as AddressInfo).port });
}

function spawnServer(kind: ServerKind, databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Apollo's usage/schema reporting switches on by itself when these are set;
  // the benchmark must not talk to anything beyond 127.0.0.1.
  for (const key of Object.keys(env)) if (key.startsWith("APOLLO_")) delete env[key];
  // fork() would inherit process.execArgv (tsx's loader); the semi-space flag is `npm start`'s,
  // --expose-gc lets the memory report below count what is retained, not garbage.
  const child = fork(fileURLToPath(import.meta.url), ["--serve", kind, databaseUrl], {
    env,
    execArgv: [
      ...process.execArgv,
      "--max-semi-space-size=32",
      "--expose-gc",
      ...(process.env.BENCH_CPU_PROF_DIR && kind === "service"
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 30 s`)), 30_000);
    child.once("message", (msg) => {
      clearTimeout(timer);
      resolve({ child, port: (msg as { port: number }).port });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited early with code ${code}`));
    });
  });
}

// ------------------------------------------------------------------- data --

/** The heuristic scorer's answer for the calibration leader's pages: a realistic stored result. */
const realisticResult = () => scored("leader.test");

/** Stores the result as the job runner does (an account's final result), then copies it under fresh ids. */
async function seed(databaseUrl: string): Promise<string[]> {
  const result = realisticResult();
  if (result.dimensions.length !== 27)
    throw new Error(`expected 27 dimensions, the scorer gave ${result.dimensions.length}`);
  const position = new Map(frameworkDimensions.map((dimension, index) => [dimension.id as string, index]));
  return withClient(databaseUrl, async (client) => {
    await client.query("BEGIN");
    const account = await client.query<{ id: string }>(
      `INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('Bench', now()) RETURNING id`,
    );
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO score_results (url, company_name, total_score, stage_name, framework, framework_version, mode, strengths, gaps,
         cross_dimension_notes, anti_patterns, crawled_pages, crawl_stats, scorer, lifecycle_stage_id, account_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       RETURNING id`,
      [
        result.url,
        result.companyName,
        result.totalScore,
        result.stageName,
        result.framework,
        result.frameworkVersion,
        result.mode,
        [...result.strengths],
        [...result.gaps],
        result.crossDimensionNotes,
        [...result.antiPatternsDetected],
        [...result.crawledPages],
        JSON.stringify(result.crawlStats),
        JSON.stringify(result.scorer),
        result.lifecycleStageId ?? null,
        account.rows[0]!.id,
      ],
    );
    const first = inserted.rows[0]!.id;
    for (const d of result.dimensions) {
      await client.query(
        `INSERT INTO score_dimensions (result_id, dimension_id, position, dimension_name, pillar, score, stage_name, evidence, evidence_items, confidence, reasoning)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          first,
          d.dimensionId,
          position.get(d.dimensionId) ?? 0,
          d.dimensionName,
          d.pillar,
          d.score,
          d.stageName,
          d.evidence,
          JSON.stringify(d.evidenceItems),
          d.confidence,
          d.reasoning,
        ],
      );
    }
    const copies = await client.query<{ id: string }>(
      `INSERT INTO score_results (url, company_name, total_score, stage_name, framework, framework_version, mode, strengths, gaps,
         cross_dimension_notes, anti_patterns, crawled_pages, crawl_stats, scorer, lifecycle_stage_id, account_id)
       SELECT url, company_name, total_score, stage_name, framework, framework_version, mode, strengths, gaps,
         cross_dimension_notes, anti_patterns, crawled_pages, crawl_stats, scorer, lifecycle_stage_id, account_id
         FROM score_results, generate_series(2, $2::int) WHERE id = $1
       RETURNING id`,
      [first, DISTINCT_IDS],
    );
    const ids = [first, ...copies.rows.map((row) => row.id)];
    await client.query(
      `INSERT INTO score_dimensions (result_id, dimension_id, position, dimension_name, pillar, score, stage_name, evidence, evidence_items, confidence, reasoning)
       SELECT copy.id, d.dimension_id, d.position, d.dimension_name, d.pillar, d.score, d.stage_name, d.evidence, d.evidence_items, d.confidence, d.reasoning
         FROM score_dimensions d CROSS JOIN unnest($2::uuid[]) AS copy(id) WHERE d.result_id = $1`,
      [first, ids.slice(1)],
    );
    await client.query("COMMIT");
    await client.query("ANALYZE score_results; ANALYZE score_dimensions");
    return ids;
  });
}

/**
 * What a job's completion does for each result (`storeFinalResultAnswers`): run the
 * REST route's operation on the worker's schema and store the answer. The seed
 * bypasses the job runner, so this step stands in for its completion.
 */
async function storeAnswersAsCompletionDoes(databaseUrl: string, ids: readonly string[]): Promise<void> {
  const dataSource = dataSourceFor(databaseUrl, 4);
  await dataSource.initialize();
  try {
    const schema = resultAnswerSchema(
      undefined as unknown as ScoreService,
      new ScoreResultsService(new ScoreResultRepository(dataSource), new Transactions(dataSource)),
      0,
    );
    const answers = finalResultAnswers(
      schema,
      new ResultAnswerStore(new ResultAnswerRepository(dataSource)),
      pino({ level: "warn" }),
    );
    for (let at = 0; at < ids.length; at += 8) {
      const stored = await Promise.all(ids.slice(at, at + 8).map((id) => answers.write({ id })));
      if (stored.includes(false)) throw new Error("an answer was not stored");
    }
  } finally {
    await dataSource.destroy();
  }
}

// ------------------------------------------------------------------ bench --

interface Target {
  name: string;
  server: ServerKind;
  workload: "one" | "many";
}

const TARGETS: Target[] = [
  { name: "node:http + pg baseline, one id", server: "baseline", workload: "one" },
  { name: "service REST, one id", server: "service", workload: "one" },
  { name: `node:http + pg baseline, ${DISTINCT_IDS.toLocaleString("en")} ids`, server: "baseline", workload: "many" },
  { name: `service REST, ${DISTINCT_IDS.toLocaleString("en")} ids`, server: "service", workload: "many" },
];

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** The server's heap after a forced GC, at the end of the measurement. */
  heapBytes: number;
}

function loadOptions(target: Target, port: number, ids: readonly string[], duration: number) {
  const base = {
    url: `http://${HOST}:${port}/api/score/${ids[0]}`,
    duration,
    connections: CONNECTIONS,
    method: "GET" as const,
  };
  if (target.workload === "one") return base;
  let next = 0;
  return {
    ...base,
    // Each request takes the next id in turn (autocannon calls this before every request).
    requests: [
      { setupRequest: (request: { path: string }) => ({ ...request, path: `/api/score/${ids[next++ % ids.length]}` }) },
    ],
  };
}

function memoryOf(child: ChildProcess): Promise<NodeJS.MemoryUsage> {
  return new Promise((resolve) => {
    const onMessage = (msg: unknown) => {
      const memory = (msg as { memory?: NodeJS.MemoryUsage }).memory;
      if (!memory) return;
      child.off("message", onMessage);
      resolve(memory);
    };
    child.on("message", onMessage);
    child.send("memory");
  });
}

const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;

async function measure(
  target: Target,
  server: { child: ChildProcess; port: number },
  ids: readonly string[],
): Promise<Sample> {
  await autocannon(loadOptions(target, server.port, ids, WARMUP_S));
  const r = await autocannon(loadOptions(target, server.port, ids, MEASURE_S));
  const memory = await memoryOf(server.child);
  return {
    heapBytes: memory.heapUsed,
    // Completed 2xx requests over the real elapsed time, not the per-second sample mean.
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.errors + r.timeouts + r.non2xx,
  };
}

/** Every number is meaningless unless both answer the same bytes: checked on several ids before any load. */
async function checkResponses(ports: Map<ServerKind, number>, ids: readonly string[]): Promise<number> {
  let size = 0;
  for (const id of [ids[0]!, ids[1]!, ids.at(-1)!]) {
    const bodies: string[] = [];
    for (const kind of ["service", "baseline"] as const) {
      const res = await fetch(`http://${HOST}:${ports.get(kind)}/api/score/${id}`);
      const body = await res.text();
      if (res.status !== 200)
        throw new Error(`${kind}: GET /api/score/${id} answered ${res.status} ${body.slice(0, 300)}`);
      bodies.push(body);
    }
    if (bodies[0] !== bodies[1]) {
      let at = 0;
      while (bodies[0]![at] === bodies[1]![at]) at += 1;
      const around = (body: string) => body.slice(Math.max(0, at - 150), at + 150);
      throw new Error(
        `service and baseline differ for ${id} at character ${at}:\nservice:  …${around(bodies[0]!)}…\nbaseline: …${around(bodies[1]!)}…`,
      );
    }
    const parsed = JSON.parse(bodies[0]!) as { dimensions: unknown[] };
    if (parsed.dimensions.length !== 27) throw new Error(`expected 27 dimensions, got ${parsed.dimensions.length}`);
    size = Buffer.byteLength(bodies[0]!);
  }
  return size;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function printTable(samples: Map<Target, Sample[]>, bodyBytes: number): void {
  const rpsOf = (t: Target): number => mean(samples.get(t)!.map((s) => s.rps));
  const baselineOf = (t: Target): Target => TARGETS.find((b) => b.server === "baseline" && b.workload === t.workload)!;
  const header = ["target", "req/s (mean)", "round 1", "round 2", "p50 ms", "p99 ms", "vs baseline", "heap after GC"];
  const rows = TARGETS.map((t) => {
    const s = samples.get(t)!;
    const failures = s.reduce((n, x) => n + x.failures, 0);
    return [
      t.name + (failures > 0 ? ` (!${failures} failed)` : ""),
      rpsOf(t).toFixed(0),
      s[0]!.rps.toFixed(0),
      s[1]!.rps.toFixed(0),
      mean(s.map((x) => x.p50)).toFixed(1),
      mean(s.map((x) => x.p99)).toFixed(1),
      (rpsOf(t) / rpsOf(baselineOf(t))).toFixed(2) + "x",
      mb(Math.max(...s.map((x) => x.heapBytes))),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));

  console.log(
    `\nGET /api/score/{id}: ${bodyBytes.toLocaleString("en")} bytes of JSON (27 dimensions), identical from both; ` +
      `mean of 2 interleaved rounds, ${CONNECTIONS} connections, ${MEASURE_S} s each after ${WARMUP_S} s of warm-up, pool of ${POOL_SIZE} connections each; ` +
      `heap after GC: the server process's, highest after either round (the service's two answer caches included).`,
  );
  for (const t of TARGETS.filter((x) => x.server === "service")) {
    const ratio = rpsOf(t) / rpsOf(baselineOf(t));
    console.log(
      `${t.name}: ${(ratio * 100).toFixed(0)}% of the baseline's throughput; target >= 100%: ${ratio >= 1 ? "MET" : "MISSED"}`,
    );
  }
}

async function main(): Promise<void> {
  const database = `pms_bench_api_${process.pid}`;
  const databaseUrl = withDatabase(ADMIN_URL, database);
  const servers = new Map<ServerKind, { child: ChildProcess; port: number }>();
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    for (const { child } of servers.values()) child.kill("SIGTERM");
    await Promise.all(
      [...servers.values()].map(({ child }) =>
        child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once("exit", r)) : undefined,
      ),
    );
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  };
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));

  try {
    await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
    const dataSource = dataSourceFor(databaseUrl, 2);
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await dataSource.destroy();
    const seeding = performance.now();
    const ids = await seed(databaseUrl);
    process.stderr.write(
      `seeded ${ids.length} results × 27 dimensions in ${Math.round(performance.now() - seeding)} ms\n`,
    );
    if (process.env.BENCH_NO_STORED_ANSWERS === "1") {
      process.stderr.write(
        "answers not stored at completion: the first read of each id builds and stores it (results from before that was built)\n",
      );
    } else {
      const storing = performance.now();
      await storeAnswersAsCompletionDoes(databaseUrl, ids);
      process.stderr.write(
        `stored their REST answers as a job's completion does in ${Math.round(performance.now() - storing)} ms\n`,
      );
    }

    for (const kind of ["baseline", "service"] as const) servers.set(kind, await spawnServer(kind, databaseUrl));
    const ports = new Map([...servers].map(([kind, { port }]) => [kind, port] as const));
    const bodyBytes = await checkResponses(ports, ids);

    const samples = new Map<Target, Sample[]>(TARGETS.map((t) => [t, []]));
    // Forward then reverse: slow drift on a shared machine (thermal, noisy
    // neighbours) then hits every target about equally across the two rounds.
    const rounds = [TARGETS, [...TARGETS].reverse()];
    for (const [i, order] of rounds.entries()) {
      for (const t of order) {
        process.stderr.write(`round ${i + 1}: ${t.name} ...`);
        const s = await measure(t, servers.get(t.server)!, ids);
        samples.get(t)!.push(s);
        process.stderr.write(` ${s.rps.toFixed(0)} req/s\n`);
      }
    }
    console.log();
    printTable(samples, bodyBytes);
  } finally {
    await cleanup();
  }
}

if (process.argv[2] === "--serve") {
  await serve(process.argv[3] as ServerKind, process.argv[4]!);
} else {
  await main();
}
