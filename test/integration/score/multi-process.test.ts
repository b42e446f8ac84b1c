import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "graphql-ws";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newWebhookSecret } from "../../../src/modules/webhooks/webhooks.service.js";
import { WebhookReceiver } from "../../support/webhook-receiver.js";
import { collectLines, exitOf } from "../../support/child-process.js";
import { follow, START_SCORE, wsClient } from "../../support/progress.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { FixtureSites, type Route, type Site } from "../../support/fixture-sites.js";

/**
 * Two API processes and one worker process over real Postgres and Redis, as
 * deployed (`npm start` twice with SCORE_WORKERS=0, `npm run worker` once): a job
 * started through API A streams its progress to a subscriber on API B.
 *
 * The built entry points run, so `dist/` must be built (`npm test` does it: its
 * `tsc -p tsconfig.json` emits). The processes share this file's database and a
 * Redis namespace of their own (REDIS_PREFIX), so no other service or test run on
 * the same Redis can take their jobs; the namespace's keys are deleted afterwards.
 *
 * Anonymous callers may score once per address per hour; every run calls from its
 * own made-up address (198.18.0.0/15, for tests), sent as X-Forwarded-For to
 * processes told to trust the loopback proxy.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const apiEntry = path.join(root, "dist/src/main.js");
const workerEntry = path.join(root, "dist/src/worker.js");
const liveRedis = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redisPrefix = `pmstest-${randomInt(1, 1_000_000_000)}`;
const clientIp = `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const leader = calibrationSites.find((site) => site.host === "leader.test")!;

interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logs: string[];
  /** The API's base URL; undefined for the worker. */
  readonly url: string | undefined;
}

const children: Started[] = [];
// Last resort, should this test process end without afterAll (a crash, a timeout kill).
process.once("exit", () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(file));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Spawns an entry point and waits for the log line saying it is ready. */
async function start(name: string, entry: string, env: Record<string, string>, readyMessage: string): Promise<Started> {
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      REDIS_URL: liveRedis,
      REDIS_PREFIX: redisPrefix,
      SSRF_ALLOWLIST: "127.0.0.1/32",
      TRUST_PROXY: "loopback",
      // The run's test CA, so webhook deliveries to the test's HTTPS receiver verify.
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs = collectLines(child);
  // Registered at once, so afterAll stops it even if it never becomes ready.
  const started: { -readonly [K in keyof Started]: Started[K] } = { name, child, logs, url: undefined };
  children.push(started);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const line of logs) {
      if (!line.includes(`"${readyMessage}"`)) continue;
      started.url = (JSON.parse(line) as { url?: string }).url;
      return started;
    }
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${logs.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${name} was not ready in 20 s:\n${logs.join("\n")}`);
}

/** SIGTERM, then SIGKILL after a grace period; resolves to the exit code (null when killed). */
async function stop(started: Started, graceMs = 10_000): Promise<number | null> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome !== "late") return outcome;
  child.kill("SIGKILL");
  await exited;
  return null;
}

/** The leader's pages for any host, each held until `release()`, so the subscriber is in place before the crawl reports. */
function gatedSite(pages: Site): { site: Site; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const site: Site = {};
  for (const [pathname, route] of Object.entries(pages)) site[pathname] = gated(route, gate);
  return { site, release };
}

function gated(route: Route, gate: Promise<void>): Route {
  const { status = 200, headers = {}, body = "" } = typeof route === "string" ? { body: route } : route;
  return {
    handle: (_request, response) => {
      void gate.then(() => {
        if (!response.destroyed)
          response.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers }).end(body);
      });
    },
  };
}

let database: TestDatabase;
let sites: FixtureSites;
let release: () => void = () => undefined;
let apiA: Started;
let apiB: Started;
let worker: Started;
let subscriber: Client | undefined;

beforeAll(async () => {
  for (const entry of [apiEntry, workerEntry]) {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does) first`);
  }
  const sourceChanged = Math.max(newestMtime(path.join(root, "src")), newestMtime(path.join(root, "rest-compat")));
  if (sourceChanged > statSync(workerEntry).mtimeMs || sourceChanged > statSync(apiEntry).mtimeMs) {
    console.warn("dist/ is older than src/: this test runs the last build (`npm run build` to refresh it)");
  }

  const gate = gatedSite(leader.pages);
  release = gate.release;
  // The crawler reaches the site by literal IP, so its Host header is 127.0.0.1:<port>.
  sites = await new FixtureSites({ "127.0.0.1": gate.site }).start();
  database = await createTestDatabase();

  const shared = { DATABASE_URL: database.url };
  [apiA, apiB, worker] = await Promise.all([
    start("API A", apiEntry, { ...shared, SCORE_WORKERS: "0" }, "service listening"),
    start("API B", apiEntry, { ...shared, SCORE_WORKERS: "0" }, "service listening"),
    start("worker", workerEntry, { ...shared, SCORE_WORKERS: "1" }, "scoring worker ready"),
  ]);
}, 40_000);

afterAll(async () => {
  release();
  await Promise.resolve(subscriber?.dispose()).catch(() => undefined);
  // Whatever happened above, no process outlives the file.
  await Promise.all(children.map((started) => stop(started, 5_000)));
  await sites?.stop();
  await database?.drop();
  const redis = new Redis(liveRedis, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${redisPrefix}:*`).catch(() => [] as string[]);
  if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
  await redis.quit();
}, 30_000);

describe("scoring across processes", () => {
  it("a deploy: the stopping worker aborts its crawl and hands the job back at once; the next worker runs it as its first attempt", async () => {
    const held = gatedSite(leader.pages);
    const slowSite = await new FixtureSites({ "127.0.0.1": held.site }).start();
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const answer = await fetch(`${apiA.url}/graphql`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`,
        },
        body: JSON.stringify({
          query: START_SCORE,
          variables: { input: { url: `http://127.0.0.1:${slowSite.port}/`, kind: "quick" } },
        }),
      });
      const jobId = ((await answer.json()) as { data: { startScore: { job: { id: string } } } }).data.startScore.job.id;
      const row = async () =>
        (await db.query(`SELECT "status", "attempts", "locked_until" FROM "score_jobs" WHERE "id" = $1`, [jobId]))
          .rows[0] as { status: string; attempts: number; locked_until: Date | null };
      // The old worker holds it, its crawl waiting on the site.
      for (let waited = 0; (await row()).attempts === 0 || slowSite.requests.length === 0; waited += 50) {
        if (waited > 15_000) throw new Error(`the worker never took the job:\n${worker.logs.slice(-10).join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      const next = await start(
        "worker 2",
        workerEntry,
        { DATABASE_URL: database.url, SCORE_WORKERS: "1" },
        "scoring worker ready",
      );
      expect(await stop(worker)).toBe(0);
      expect(worker.logs.some((line) => line.includes("released an unfinished job at shutdown"))).toBe(true);
      worker = next;
      held.release();

      // Well before the 60 s lease or the 30 s sweep could have brought it back.
      for (let waited = 0; (await row()).status !== "completed"; waited += 100) {
        if (waited > 20_000)
          throw new Error(
            `the job was not run again at once: ${JSON.stringify(await row())}\n${next.logs.slice(-10).join("\n")}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await row()).toMatchObject({ status: "completed", attempts: 1, locked_until: null });
    } finally {
      held.release();
      await db.end();
      await slowSite.stop();
    }
  }, 60_000);

  it("delivers each webhook event once when every process runs a dispatcher (both APIs and the worker)", async () => {
    const receiver = await new WebhookReceiver(inject("testTls")).start();
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const account = (
        await db.query(`INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('hooks', now()) RETURNING id`)
      ).rows[0].id as string;
      const webhook = (
        await db.query(`INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id`, [
          account,
          receiver.url("/multi"),
          ["subscription.changed"],
          newWebhookSecret(),
        ])
      ).rows[0].id as string;
      // 200 committed events with their deliveries, as checkouts write them; every process polls for them.
      await db.query(
        `WITH e AS (INSERT INTO domain_events (type, account_id, data)
                    SELECT 'subscription.changed', $1::uuid, jsonb_build_object('accountId', $1::text, 'previousPlan', 'free', 'plan', 'pro', 'n', g) FROM generate_series(1, 200) g
                    RETURNING id)
         INSERT INTO webhook_deliveries (event_id, webhook_id, event_type, next_attempt_at) SELECT id, $2, 'subscription.changed', now() FROM e`,
        [account, webhook],
      );
      await receiver.waitFor(200, 20_000).catch(async (error: unknown) => {
        const { rows: seen } = await db.query(
          `SELECT status, attempts, last_error FROM webhook_deliveries WHERE webhook_id = $1 LIMIT 3`,
          [webhook],
        );
        throw new Error(`${String(error)}; deliveries: ${JSON.stringify(seen)}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const ids = receiver.received.map((request) => request.headers["webhook-id"]);
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
      const { rows } = await db.query(
        `SELECT status, count(*)::int AS n, max(attempts)::int AS attempts FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status`,
        [webhook],
      );
      expect(rows).toEqual([{ status: "delivered", n: 200, attempts: 1 }]);
    } finally {
      await db.end();
      await receiver.stop();
    }
  });

  it("streams a job started on API A, run by the worker, to a subscriber on API B, and B serves its result", async () => {
    const origin = `http://127.0.0.1:${sites.port}`;

    // 1. Start on A, anonymously, without waiting.
    const startResponse = await fetch(`${apiA.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": clientIp },
      body: JSON.stringify({
        query: START_SCORE,
        variables: { input: { url: `${origin}/`, kind: "score" } },
      }),
    });
    const started = (await startResponse.json()) as {
      data?: { startScore: { job: { id: string; status: string }; claimToken: string | null } };
      errors?: unknown;
    };
    expect(started.errors, JSON.stringify(started.errors)).toBeUndefined();
    const { job, claimToken } = started.data!.startScore;
    expect(job.status).toBe("queued");
    expect(claimToken).toMatch(/^clm_/);

    // 2. Follow it on B, over graphql-ws, from the same client address.
    subscriber = wsClient(apiB.url!, { "x-forwarded-for": clientIp });
    const followed = follow(subscriber, job.id);
    // The subscriber is in place: let the crawl read the site.
    void followed.first.then(release);
    const { steps: events, errors, ending } = await followed.ended;
    expect(errors).toEqual([]);
    expect(ending).toBe("complete");

    // 3. The stream: queued → crawling (page n of m) → scoring (1 … 27) → completed, then it ended.
    const statuses = events.map((event) => event.status);
    expect(statuses[0]).toBe("queued"); // the site held the crawl until B answered the current step
    expect(statuses.at(-1)).toBe("completed");
    const order = ["queued", "crawling", "scoring", "completed"];
    expect(statuses.map((status) => order.indexOf(status))).toEqual(
      [...statuses.map((status) => order.indexOf(status))].sort((a, b) => a - b),
    );
    expect(statuses.filter((status) => status === "queued")).toHaveLength(1);
    expect(events.every((event) => event.jobId === job.id)).toBe(true);

    const crawling = events.filter((event) => event.status === "crawling");
    expect(crawling.length).toBeGreaterThan(1);
    expect(crawling.map((event) => event.page)).toEqual(crawling.map((_, index) => index + 1));
    for (const event of crawling) {
      expect(event.pages).toBeGreaterThanOrEqual(event.page!);
      expect(event.url!.startsWith(`${origin}/`)).toBe(true);
      expect(Object.keys(leader.pages)).toContain(new URL(event.url!).pathname);
    }
    expect(crawling[0]!.url).toBe(`${origin}/`);

    const scoring = events.filter((event) => event.status === "scoring");
    expect(scoring.map((event) => event.dimension)).toEqual(Array.from({ length: 27 }, (_, index) => index + 1));
    expect(new Set(scoring.map((event) => event.dimensions))).toEqual(new Set([27]));
    expect(new Set(scoring.map((event) => event.dimensionId)).size).toBe(27);

    const completed = events.at(-1)!;
    expect(completed.error).toBeNull();
    expect(completed.resultId).toMatch(/^[0-9a-f-]{36}$/);

    // 4. B serves the stored result over REST.
    const resultResponse = await fetch(`${apiB.url}/api/score/${completed.resultId}`);
    expect(resultResponse.status).toBe(200);
    const result = (await resultResponse.json()) as {
      id: string;
      url: string;
      dimensions: Array<{ dimensionId: string }>;
    };
    expect(result.id).toBe(completed.resultId);
    expect(result.url).toBe(`${origin}/`);
    expect(result.dimensions).toHaveLength(27);
    expect(result.dimensions.map((dimension) => dimension.dimensionId).sort()).toEqual(
      scoring.map((event) => event.dimensionId).sort(),
    );

    // 5. The crawler read the fixture site, and only the worker can have run it: A and B run SCORE_WORKERS=0.
    expect(sites.requests.some((request) => request.path === "/")).toBe(true);
    expect(sites.requests.length).toBeGreaterThanOrEqual(crawling.length);

    // 6. All three stop cleanly on SIGTERM.
    await subscriber.dispose();
    subscriber = undefined;
    const codes = await Promise.all([apiA, apiB, worker].map((started) => stop(started)));
    expect(
      codes,
      [apiA, apiB, worker].map((started) => `${started.name}:\n${started.logs.slice(-5).join("\n")}`).join("\n"),
    ).toEqual([0, 0, 0]);
  }, 60_000);
});
