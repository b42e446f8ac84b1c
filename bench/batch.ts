// Scoring a list of 100 addresses as one batch (POST /api/score/batch, then
// following GET /api/score/batches/{id} to its end) with two workers, beside a
// baseline measured in the same run: the same 100 addresses scored one after
// another through POST /api/score (each waiting for its result).
//
// Setup: a scratch database on DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/test), dropped at the end; the real service
// (createApp, no Redis: the in-process pool with SCORE_WORKERS=2, two worker
// loops) on 127.0.0.1; 100 local fixture sites (the eight calibration sites' pages
// under 100 host names, resolved to 127.0.0.1), crawled and scored for real by the
// heuristic scorer. The baseline signs in 20 people (the short-window limit is 5
// scores a minute per person) on an Enterprise account; the batch is one request
// of another Enterprise account. Nothing leaves 127.0.0.1.
//
//   npm run bench:batch            (BENCH_URLS=100 by default)

import { pino } from "pino";

import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { FixtureSites, fixtureResolver } from "../test/support/fixture-sites.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const URLS = Number(process.env.BENCH_URLS ?? 100);
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const PER_PERSON = 5;

async function main(): Promise<void> {
  const database = `bench_batch_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const hosts = Array.from({ length: URLS }, (_, i) => `b${i}.bench.test`);
  const sites = await new FixtureSites(
    Object.fromEntries(hosts.map((host, i) => [host, calibrationSites[i % calibrationSites.length]!.pages])),
  ).start();
  const config = loadConfig({
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    DATABASE_URL: withDatabase(ADMIN_URL, database),
    SCORE_WORKERS: "2",
    SSRF_ALLOWLIST: "127.0.0.1/32,*.test",
    CHROMIUM_PATH: "off",
  });
  const app = await createApp(config, pino({ level: "warn" }), {
    scoring: { crawl: { resolver: fixtureResolver(), budgetMs: 20_000 }, waitMs: 120_000 },
  });
  try {
    const base = await app.listen(0, "127.0.0.1");
    const sql = (text: string, values: unknown[]) => app.database.dataSource.query(text, values);
    const signIn = async (email: string) => {
      const response = await fetch(`${base}/dev/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      const body = (await response.json()) as { accountId: string };
      await sql("UPDATE accounts SET plan = 'enterprise' WHERE id = $1", [body.accountId]);
      return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
    };
    const urls = hosts.map((host) => sites.url(host, "/"));
    const post = (path: string, cookie: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(body),
      });

    // Baseline: one after another, each waiting for its result.
    const people = await Promise.all(
      Array.from({ length: Math.ceil(URLS / PER_PERSON) }, (_, i) => signIn(`p${i}@baseline.bench.test`)),
    );
    const singleStart = performance.now();
    for (const [i, url] of urls.entries()) {
      const response = await post("/api/score", people[Math.floor(i / PER_PERSON)]!, { url });
      if (response.status !== 200)
        throw new Error(`POST /api/score answered ${response.status}: ${await response.text()}`);
    }
    const singleMs = performance.now() - singleStart;

    // The batch: one request, followed to its end.
    const owner = await signIn("owner@batch.bench.test");
    const batchStart = performance.now();
    const submitted = await post("/api/score/batch", owner, { urls });
    if (submitted.status !== 202) throw new Error(`POST /api/score/batch answered ${submitted.status}`);
    const { id } = (await submitted.json()) as { id: string };
    const acceptedMs = performance.now() - batchStart;
    let batch: { status: string; counts: { completed: number; failed: number } };
    for (;;) {
      batch = (await (
        await fetch(`${base}/api/score/batches/${id}`, { headers: { cookie: owner } })
      ).json()) as typeof batch;
      if (batch.status === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const batchMs = performance.now() - batchStart;

    console.log(`addresses: ${URLS} local fixture sites, heuristic scorer, SCORE_WORKERS=2 (in-process pool)`);
    console.log(`baseline  ${URLS} single scores one after another   ${(singleMs / 1000).toFixed(1).padStart(7)} s`);
    console.log(
      `batch     one POST /api/score/batch, to completed   ${(batchMs / 1000).toFixed(1).padStart(7)} s   (${(singleMs / batchMs).toFixed(2)}× faster; accepted in ${acceptedMs.toFixed(0)} ms; ${batch.counts.completed} completed, ${batch.counts.failed} failed)`,
    );
  } finally {
    await app.close();
    await sites.stop();
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
