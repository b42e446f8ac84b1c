// GET /api/score/{id}/compare/{otherId} through the REST layer, beside a baseline
// measured in the same run: GET /api/score/{id} on the same service, the read a
// comparison makes twice and then computes on.
//
// Two workloads, each at 10 requests in flight:
//   - first reads: ids (or pairs) never asked before, so the service runs the
//     operation (compare: two result reads, the comparison, the answer) and keeps
//     the answer in memory; the baseline's ids have no answer stored at completion
//     either, so it too runs its operation on a first read;
//   - repeats: one id (one pair) again and again, answered from memory.
//
// Setup: a scratch database on DATABASE_URL's server, the service in this process
// (same composition root as `npm start`, no Redis), two realistic results (the
// heuristic scorer's answers for the calibration sites early.test and leader.test,
// the same product before and after it grew) stored BENCH_PAIRS times each in one
// account through the score-result repository, plus as many baseline copies.
//
//   npm run bench:compare        (BENCH_PAIRS=400 by default)

import { randomUUID } from "node:crypto";
import { pino } from "pino";

import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { Transactions } from "../src/db/transaction.js";
import { ScoreResultRepository } from "../src/modules/score/score-result.repository.js";
import type { ScoreResult } from "../src/modules/scoring/scoring.types.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { scored } from "./realistic-result.js";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const PAIRS = Number(process.env.BENCH_PAIRS ?? 400);
const REPEATS = 3_000;
const IN_FLIGHT = 10;

/** Runs `paths` with IN_FLIGHT requests at a time; answers req/s and the median latency. */
async function load(base: string, paths: readonly string[]): Promise<{ rps: number; medianMs: number; bytes: number }> {
  const latencies: number[] = [];
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < paths.length) {
        const path = paths[next++]!;
        const t = performance.now();
        const response = await fetch(`${base}${path}`);
        const body = await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
        bytes = body.byteLength;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: paths.length / seconds, medianMs: latencies[Math.floor(latencies.length / 2)]!, bytes };
}

async function main(): Promise<void> {
  const database = `pms_bench_compare_${process.pid}`;
  const databaseUrl = withDatabase(ADMIN_URL, database);
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const config = loadConfig({
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    DATABASE_URL: databaseUrl,
    SCORE_WORKERS: "0",
  });
  const app = await createApp(config, pino({ level: "warn" }));
  try {
    const base = await app.listen(0, "127.0.0.1");
    const dataSource = app.database.dataSource;
    const [account] = (await dataSource.query(
      `INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('Bench', now()) RETURNING id`,
    )) as Array<{ id: string }>;
    const earlier = scored("early.test");
    const later = scored("leader.test");
    const repository = new ScoreResultRepository(dataSource);
    const store = async (result: ScoreResult, count: number) => {
      const ids = Array.from({ length: count }, () => randomUUID());
      await new Transactions(dataSource).run(async (tx) => {
        for (const id of ids)
          await repository.insert(tx, {
            id,
            job: { id: randomUUID(), accountId: account!.id, productId: null, claimTokenHash: null },
            result,
            claimExpiresAt: null,
          });
      });
      return ids;
    };
    const seeding = performance.now();
    const [froms, tos, singles] = [await store(earlier, PAIRS), await store(later, PAIRS), await store(later, PAIRS)];
    process.stderr.write(`stored ${PAIRS * 3} results in ${Math.round(performance.now() - seeding)} ms\n`);

    const firstCompare = tos.map((to, i) => `/api/score/${to}/compare/${froms[i]}`);
    const firstResult = singles.map((id) => `/api/score/${id}`);
    const rows: Array<[string, Awaited<ReturnType<typeof load>>]> = [];
    // Baseline first, then compare, then again in reverse on fresh halves: drift hits both alike.
    const half = Math.floor(PAIRS / 2);
    const first = { result: [] as number[][], compare: [] as number[][] };
    for (const [resultPaths, comparePaths, order] of [
      [firstResult.slice(0, half), firstCompare.slice(0, half), ["result", "compare"]],
      [firstResult.slice(half), firstCompare.slice(half), ["compare", "result"]],
    ] as const) {
      for (const which of order) {
        const figures = await load(base, which === "result" ? resultPaths : comparePaths);
        first[which].push([figures.rps, figures.medianMs, figures.bytes]);
      }
    }
    for (const which of ["result", "compare"] as const) {
      const runs = first[which];
      rows.push([
        `first reads, ${which === "result" ? "GET /api/score/{id} (baseline)" : "GET /api/score/{id}/compare/{otherId}"}`,
        {
          rps: runs.reduce((n, r) => n + r[0]!, 0) / runs.length,
          medianMs: runs.reduce((n, r) => n + r[1]!, 0) / runs.length,
          bytes: runs[0]![2]!,
        },
      ]);
    }
    const repeatResult = Array.from({ length: REPEATS }, () => firstResult[0]!);
    const repeatCompare = Array.from({ length: REPEATS }, () => firstCompare[0]!);
    const baselineRepeat = await load(base, repeatResult);
    const compareRepeat = await load(base, repeatCompare);
    rows.push(["repeats, GET /api/score/{id} (baseline)", baselineRepeat]);
    rows.push(["repeats, GET /api/score/{id}/compare/{otherId}", compareRepeat]);

    console.log(`\n${IN_FLIGHT} requests in flight; ${PAIRS} pairs; ${REPEATS} repeats\n`);
    console.log("| workload | req/s | median ms | answer bytes |");
    console.log("|---|---|---|---|");
    for (const [name, figures] of rows)
      console.log(`| ${name} | ${figures.rps.toFixed(0)} | ${figures.medianMs.toFixed(2)} | ${figures.bytes} |`);
    const ratio = (a: string) => {
      const x = rows.find(([name]) => name.startsWith(a) && name.includes("compare"))![1].rps;
      const y = rows.find(([name]) => name.startsWith(a) && name.includes("baseline"))![1].rps;
      return (x / y).toFixed(2);
    };
    console.log(`\ncompare / baseline: first reads ${ratio("first")}×, repeats ${ratio("repeats")}×`);
  } finally {
    await app.close();
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
