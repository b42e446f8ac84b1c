// Percentiles (docs/api.md §13): what a read of a result's percentiles costs once
// the population is large, against a primary-key read of one result measured in the
// same run, over the same pool. Target: p99 < 20 ms and ≤ 1.5× the primary-key read.
//
// A scratch database gets 100,000 full results (27 dimensions each) of 40,000
// distinct sites, inserted with generate_series; the migration's backfill then
// builds the population and the histograms (its time is printed too). Reads go
// through the resolver's path: a fresh per-request DataLoader of PercentilesService
// (one statement for the version's 28 histogram rows) and the answer computed from
// it. Reads alternate with the baseline (a `SELECT … WHERE id = $1` of a random
// result) so both see the same machine. Also printed: the cost a completion pays
// to keep the population (the result's insert plus `enter`, against the insert alone).
//
//   npm run bench:percentiles    (DATABASE_URL: a server where a scratch database can be created;
//                                 BENCH_RESULTS=100000, BENCH_READS=3000)

import { randomUUID } from "node:crypto";
import { dataSourceFor } from "../src/db/database.js";
import { Transactions } from "../src/db/transaction.js";
import { PercentilesService } from "../src/modules/score/percentiles.service.js";
import { ScorePopulationRepository } from "../src/modules/score/score-population.repository.js";
import { ScoreResultRepository } from "../src/modules/score/score-result.repository.js";
import { dimensions } from "../src/modules/scoring/framework/dimensions.js";
import { scoreResultOf } from "../test/support/population.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const RESULTS = Number(process.env.BENCH_RESULTS ?? 100_000);
const SITES = Math.round(RESULTS * 0.4);
const READS = Number(process.env.BENCH_READS ?? 3_000);
const COMPLETIONS = 300;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main(): Promise<void> {
  const database = `bench_percentiles_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const dataSource = dataSourceFor(withDatabase(ADMIN_URL, database), 4);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: "each" });

    let started = performance.now();
    // The fill runs on a plain client: the pool's statement budget (30 s) is for requests.
    const databaseUrl = withDatabase(ADMIN_URL, database);
    await withClient(databaseUrl, async (client) => {
      await client.query(
        `INSERT INTO "score_results" ("id", "url", "company_name", "total_score", "stage_name", "framework", "framework_version", "mode",
         "strengths", "gaps", "cross_dimension_notes", "anti_patterns", "crawled_pages", "crawl_stats", "scorer", "created_at")
       SELECT gen_random_uuid(), 'https://site' || (i % $2) || '.example/', 'Co', (i * 7919) % 101, 'Scaling', 'maturity', '2.2.0', 'full',
              '{}', '{}', '', '{}', '{}', '{}'::jsonb, '{"engine":"heuristic"}'::jsonb, now() - make_interval(secs => $1 - i)
         FROM generate_series(1, $1) AS i`,
        [RESULTS, SITES],
      );
      await client.query(
        `INSERT INTO "score_dimensions" ("result_id", "dimension_id", "position", "dimension_name", "pillar", "score", "stage_name",
         "evidence", "evidence_items", "confidence", "reasoning")
       SELECT r."id", d.id, d.position, d.id, 'market_strategy', (abs(hashtext(r."id"::text)::bigint + r."total_score" * 31 + d.position * 17) % 101)::int,
              'Scaling', '', '[]'::jsonb, 'medium', ''
         FROM "score_results" r CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS d(id, position)`,
        [dimensions.map((dimension) => dimension.id)],
      );
    });
    console.log(
      `filled ${RESULTS.toLocaleString("en-US")} results of ${SITES.toLocaleString("en-US")} sites (27 dimensions each) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // The deploy's backfill: the migration again, over the filled results.
    await dataSource.undoLastMigration({ transaction: "each" });
    started = performance.now();
    await dataSource.runMigrations({ transaction: "each" });
    console.log(`backfill (the migration over them): ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await dataSource.query(`ANALYZE`);
    const [{ sites }] = (await dataSource.query(`SELECT "sites" FROM "score_histograms" WHERE "metric" = 'total'`)) as [
      { sites: number },
    ];
    console.log(`population: ${sites.toLocaleString("en-US")} sites, framework maturity 2.2.0`);

    const ids = (
      (await dataSource.query(`SELECT "id" FROM "score_results" ORDER BY random() LIMIT 500`)) as Array<{ id: string }>
    ).map((row) => row.id);
    const service = new PercentilesService(new ScorePopulationRepository(dataSource));
    const result = (i: number) => ({
      id: ids[i % ids.length]!,
      framework: "maturity",
      frameworkVersion: "2.2.0",
      mode: "full",
      totalScore: (i * 37) % 101,
      dimensions: dimensions.map((dimension, d) => ({ dimensionId: dimension.id, score: (i + d * 13) % 101 })),
    });
    const pkRead = (i: number) =>
      dataSource.query(
        `SELECT "id", "url", "company_name", "total_score", "stage_name", "framework", "framework_version", "mode", "created_at"
           FROM "score_results" WHERE "id" = $1`,
        [ids[i % ids.length]],
      );
    // Warm both paths (pool connections, plans, pages), then alternate.
    for (let i = 0; i < 200; i += 1) {
      await service.loader().load(result(i));
      await pkRead(i);
    }
    const reads: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < READS; i += 1) {
      let t = performance.now();
      const answer = await service.loader().load(result(i));
      reads.push(performance.now() - t);
      if (!answer.available || answer.dimensions.length !== 27) throw new Error("the population should answer");
      t = performance.now();
      await pkRead(i);
      baseline.push(performance.now() - t);
    }
    const read = summary(reads);
    const pk = summary(baseline);
    console.log(`\n${READS} reads each, alternating, pool of 4`);
    console.log(
      `percentiles of a result (loader → 28 histogram rows → 28 ranks): p50 ${ms(read.p50)}  p99 ${ms(read.p99)}`,
    );
    console.log(`primary-key read of one result (baseline):                     p50 ${ms(pk.p50)}  p99 ${ms(pk.p99)}`);
    console.log(
      `ratio: p50 ${(read.p50 / pk.p50).toFixed(2)}×  p99 ${(read.p99 / pk.p99).toFixed(2)}×  (target p99 < 20 ms and ≤ 1.5×)`,
    );

    // What a completion pays: the result's insert, with and without entering the population.
    const results = new ScoreResultRepository(dataSource);
    const population = new ScorePopulationRepository(dataSource);
    const transactions = new Transactions(dataSource);
    const complete = async (i: number, enter: boolean) => {
      const id = randomUUID();
      const t = performance.now();
      await transactions.run(async (tx) => {
        await results.insert(tx, {
          id,
          job: { id: randomUUID(), accountId: null, productId: null, claimTokenHash: null },
          // Half new sites, half replacements of counted ones.
          result: scoreResultOf({ url: `https://site${i % 2 ? i : SITES + i}.example/`, total: (i * 13) % 101 }),
          claimExpiresAt: null,
        });
        if (enter) await population.enter(tx, id);
      });
      return performance.now() - t;
    };
    const withEnter: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < COMPLETIONS; i += 1) {
      without.push(await complete(i, false));
      withEnter.push(await complete(i + COMPLETIONS, true));
    }
    const a = summary(withEnter);
    const b = summary(without);
    console.log(`\n${COMPLETIONS} completions each, one at a time`);
    console.log(`store a result and enter it into the population: p50 ${ms(a.p50)}  p99 ${ms(a.p99)}`);
    console.log(`store a result alone (baseline):                 p50 ${ms(b.p50)}  p99 ${ms(b.p99)}`);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database}`));
  }
}

await main();
