// Mixed traffic against the deployed shape: two API processes and one
// worker process (`dist/src/main.js` twice with SCORE_WORKERS=0, `dist/src/worker.js`
// once) over real Postgres and Redis, 60 s, loopback only. Traffic, spread over both
// APIs: share-link reads of stored results, history and usage by API key, and score
// starts against a local fixture site, each followed by a graphql-ws progress
// subscriber on the other API until it completes. Prints: requests, 5xx (must be 0),
// p50/p99 per route, jobs completed per minute, and memory.
//
// Memory: the run is cut into BENCH_WINDOWS windows of BENCH_SECONDS each. After a
// warm-up window and after each window, every process's heap is read AFTER a full
// garbage collection, forced over the V8 inspector protocol (the processes run with
// --inspect on 127.0.0.1, nothing in the service changes for it): what survives a
// full GC is what the process holds. A leak shows as post-GC heap that keeps growing
// window after window in proportion to the requests served; a process that holds
// steady has none at this traffic. Figures only: nothing is asserted on time.
//
//   npm run bench:load      (BENCH_SECONDS=60 per window, BENCH_WINDOWS=3, BENCH_CONCURRENCY=16; DATABASE_URL, REDIS_URL;
//                            BENCH_HEAP_SNAPSHOTS=dir writes each process's heap snapshot after the warm-up and the last window)

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { collectLines } from "../test/support/child-process.js";
import { FixtureSites } from "../test/support/fixture-sites.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS;
const ACCOUNTS = 12;
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string | undefined;
  readonly metricsUrl: string;
  readonly inspector: string;
}

async function start(name: string, entry: string, env: Record<string, string>, ready: string): Promise<Proc> {
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", path.join(root, entry)], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      SSRF_ALLOWLIST: "127.0.0.1/32",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs = collectLines(child);
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  let metricsUrl: string | undefined;
  let inspector: string | undefined;
  while (Date.now() < deadline) {
    for (const line of logs) {
      if (line.includes('"metrics endpoint listening"')) metricsUrl = (JSON.parse(line) as { url: string }).url;
      if (line.includes(`"${ready}"`)) url = (JSON.parse(line) as { url?: string }).url;
      inspector ??= /^Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
    }
    if (metricsUrl && inspector && logs.some((line) => line.includes(`"${ready}"`)))
      return { name, child, url, metricsUrl, inspector };
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${logs.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} not ready:\n${logs.join("\n")}`);
}

async function memory(proc: Proc): Promise<{ heap: number; rss: number }> {
  const text = await (await fetch(proc.metricsUrl)).text();
  const value = (name: string) =>
    Number(/^(\S+) (\S+)$/m.exec(text.split("\n").find((line) => line.startsWith(`${name} `)) ?? "")?.[2] ?? NaN);
  return { heap: value("pms_nodejs_heap_size_used_bytes"), rss: value("pms_process_resident_memory_bytes") };
}

/** Heap used after a full GC, over the inspector protocol (HeapProfiler.collectGarbage, then Runtime.getHeapUsage). */
async function heapAfterGc(proc: Proc): Promise<number> {
  const socket = new WebSocket(proc.inspector);
  await new Promise<void>((resolve, reject) => socket.once("open", () => resolve()).once("error", reject));
  let id = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const mine = ++id;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString()) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
        };
        if (message.id !== mine) return;
        socket.off("message", onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result ?? {});
      };
      socket.on("message", onMessage);
      socket.send(JSON.stringify({ id: mine, method }));
    });
  try {
    // Twice: objects with finalizers or weak references are freed by the second pass.
    await call("HeapProfiler.collectGarbage");
    await call("HeapProfiler.collectGarbage");
    return (await call("Runtime.getHeapUsage")).usedSize as number;
  } finally {
    socket.close();
  }
}

/** A heap snapshot over the inspector protocol (HeapProfiler.takeHeapSnapshot), written to `file`. */
async function heapSnapshot(proc: Proc, file: string): Promise<void> {
  const socket = new WebSocket(proc.inspector, { maxPayload: 1024 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => socket.once("open", () => resolve()).once("error", reject));
  const out = createWriteStream(file);
  socket.on("message", (data: WebSocket.RawData) => {
    const message = JSON.parse(data.toString()) as { method?: string; params?: { chunk?: string } };
    if (message.method === "HeapProfiler.addHeapSnapshotChunk") out.write(message.params!.chunk!);
  });
  await new Promise<void>((resolve) => {
    socket.on("message", (data: WebSocket.RawData) => {
      if ((JSON.parse(data.toString()) as { id?: number }).id === 1) resolve();
    });
    socket.send(JSON.stringify({ id: 1, method: "HeapProfiler.takeHeapSnapshot", params: { reportProgress: false } }));
  });
  socket.close();
  await new Promise<void>((resolve) => out.end(resolve));
  console.log(`heap snapshot: ${file}`);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  const database = `bench_load_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const databaseUrl = withDatabase(ADMIN_URL, database);
  const sites = await new FixtureSites({
    "127.0.0.1": calibrationSites.find((site) => site.host === "leader.test")!.pages,
  }).start();
  const shared = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: `bench-load-${randomBytes(4).toString("hex")}`,
    NODE_ENV: "development",
  };
  const procs: Proc[] = [];
  try {
    // One at a time at first: the first process migrates the scratch database.
    procs.push(await start("API A", "dist/src/main.js", { ...shared, SCORE_WORKERS: "0" }, "service listening"));
    procs.push(
      ...(await Promise.all([
        start("API B", "dist/src/main.js", { ...shared, SCORE_WORKERS: "0" }, "service listening"),
        start("worker", "dist/src/worker.js", { ...shared, SCORE_WORKERS: "2" }, "scoring worker ready"),
      ])),
    );
    const [apiA, apiB] = [procs[0]!.url!, procs[1]!.url!];
    const siteUrl = `http://127.0.0.1:${sites.port}/`;

    // Accounts on Business, each with a key (keys work on both APIs; sessions are per process here).
    const keys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i += 1) {
      const login = await fetch(`${apiA}/dev/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `load${i}@bench.test` }),
      });
      const { accountId } = (await login.json()) as { accountId: string };
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
      await withClient(databaseUrl, (client) =>
        client.query(`UPDATE accounts SET plan = 'business' WHERE id = $1`, [accountId]),
      );
      const created = await fetch(`${apiA}/api/keys`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ name: "load" }),
      });
      keys.push(((await created.json()) as { secret: string }).secret);
    }
    // A few stored results to read by share link.
    const resultIds: string[] = [];
    for (const key of keys.slice(0, 3)) {
      const answer = await fetch(`${apiA}/api/score/quick`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: siteUrl }),
      });
      resultIds.push(((await answer.json()) as { id: string }).id);
    }

    const before = await Promise.all(procs.map(memory));
    const heaps: number[][] = [];
    const requestsAt: number[] = [];
    const latencies = new Map<string, number[]>();
    const statuses = new Map<number, number>();
    let fiveXx = 0;
    let jobsStarted = 0;
    let jobsCompleted = 0;
    const followers: Array<Promise<void>> = [];
    const record = (route: string, status: number, ms: number) => {
      (latencies.get(route) ?? latencies.set(route, []).get(route)!).push(ms);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) fiveXx += 1;
    };
    const timed = async (route: string, url: string, init: RequestInit = {}) => {
      const started = performance.now();
      const response = await fetch(url, init);
      const body = await response.text();
      record(route, response.status, performance.now() - started);
      return { status: response.status, body };
    };
    const follow = (jobId: string, key: string) =>
      new Promise<void>((resolve) => {
        const client = createClient({
          url: `${apiB.replace(/^http/, "ws")}/graphql`,
          retryAttempts: 0,
          webSocketImpl: WebSocket,
          // An API key travels in connectionParams (a browser cannot set headers on a WebSocket).
          connectionParams: { authorization: `Bearer ${key}` },
        });
        client.subscribe(
          { query: `subscription($jobId: ID!) { scoreProgress(jobId: $jobId) { status } }`, variables: { jobId } },
          {
            next: (message) => {
              if (
                (message.data as { scoreProgress?: { status: string } } | undefined)?.scoreProgress?.status ===
                "completed"
              )
                jobsCompleted += 1;
            },
            error: () => void Promise.resolve(client.dispose()).then(resolve),
            complete: () => void Promise.resolve(client.dispose()).then(resolve),
          },
        );
      });

    let turn = 0;
    const lastStart = new Map<string, number>();
    const traffic = (deadline: number) =>
      Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          while (Date.now() < deadline) {
            const api = (turn++ + worker) % 2 ? apiB : apiA;
            const key = keys[Math.floor(Math.random() * keys.length)]!;
            const auth = { authorization: `Bearer ${key}` };
            const roll = Math.random();
            if (roll < 0.55)
              await timed(
                "GET /api/score/{id}",
                `${api}/api/score/${resultIds[Math.floor(Math.random() * resultIds.length)]}`,
              );
            else if (roll < 0.75) await timed("GET /api/scores", `${api}/api/scores?limit=10`, { headers: auth });
            else if (roll < 0.95) await timed("GET /api/usage", `${api}/api/usage`, { headers: auth });
            else {
              // At most 5 score starts per account per minute (the limit every caller meets): pace them.
              if (Date.now() - (lastStart.get(key) ?? 0) < 13_000) continue;
              lastStart.set(key, Date.now());
              const started = await timed("POST /graphql startScore", `${api}/graphql`, {
                method: "POST",
                headers: { ...auth, "content-type": "application/json" },
                body: JSON.stringify({
                  query: `mutation($input: StartScoreInput!) { startScore(input: $input) { job { id } } }`,
                  variables: { input: { url: siteUrl, kind: "quick" } },
                }),
              });
              const jobId = (JSON.parse(started.body) as { data?: { startScore?: { job: { id: string } } } }).data
                ?.startScore?.job.id;
              if (jobId) {
                jobsStarted += 1;
                followers.push(follow(jobId, key));
              }
            }
          }
        }),
      );
    const requestCount = () => [...statuses.values()].reduce((a, b) => a + b, 0);
    // Window 0 warms up (JIT, pools, caches filling); the post-GC heap after it is the baseline.
    for (let window = 0; window <= WINDOWS; window += 1) {
      await traffic(Date.now() + SECONDS * 1000);
      // Let the window's jobs finish and their subscribers close before reading what is held.
      await Promise.race([Promise.all(followers), new Promise((resolve) => setTimeout(resolve, 60_000))]);
      heaps.push(await Promise.all(procs.map(heapAfterGc)));
      requestsAt.push(requestCount());
      // Diagnosis (BENCH_HEAP_SNAPSHOTS=dir): each process's heap after the warm-up and after the last window.
      if (SNAPSHOTS && (window === 0 || window === WINDOWS)) {
        for (const proc of procs)
          await heapSnapshot(proc, path.join(SNAPSHOTS, `${proc.name.replace(/\W+/g, "-")}-${window}.heapsnapshot`));
      }
    }
    const after = await Promise.all(procs.map(memory));
    const [stored] = (
      await withClient(databaseUrl, (client) =>
        client.query(
          `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM score_jobs`,
        ),
      )
    ).rows as Array<{ completed: number; failed: number }>;

    const total = requestCount();
    const seconds = SECONDS * (WINDOWS + 1);
    console.log(
      `${seconds} s (${WINDOWS + 1} windows of ${SECONDS} s, the first a warm-up), ${CONCURRENCY} concurrent clients, ${ACCOUNTS} accounts, 2 APIs + 1 worker (2 jobs at a time), Postgres + Redis on 127.0.0.1`,
    );
    console.log(
      `requests: ${total.toLocaleString("en")} (${(total / seconds).toFixed(0)}/s); by status: ${[...statuses.entries()]
        .sort()
        .map(([s, n]) => `${s}: ${n}`)
        .join(", ")}; 5xx: ${fiveXx}`,
    );
    console.log("route                          count    p50 ms   p99 ms");
    for (const [route, values] of latencies)
      console.log(
        `${route.padEnd(28)} ${String(values.length).padStart(7)} ${percentile(values, 50).toFixed(1).padStart(9)} ${percentile(values, 99).toFixed(1).padStart(8)}`,
      );
    console.log(
      `jobs: ${jobsStarted} started during the run, ${jobsCompleted} seen completed by a subscriber on the other API (${((jobsCompleted / seconds) * 60).toFixed(1)} per minute); in the database: ${stored?.completed ?? 0} completed, ${stored?.failed ?? 0} failed (3 seeding jobs included)`,
    );
    console.log("process        heap before → after (MB, not collected)    RSS before → after (MB)");
    procs.forEach((proc, i) =>
      console.log(
        `${proc.name.padEnd(14)} ${(before[i]!.heap / 2 ** 20).toFixed(0).padStart(6)} → ${(after[i]!.heap / 2 ** 20).toFixed(0).padEnd(18)} ${(before[i]!.rss / 2 ** 20).toFixed(0).padStart(6)} → ${(after[i]!.rss / 2 ** 20).toFixed(0)}`,
      ),
    );
    console.log(
      `heap after a forced full GC (MB), after the warm-up and after each window (requests served so far: ${requestsAt.map((n) => n.toLocaleString("en")).join(" / ")}):`,
    );
    procs.forEach((proc, i) => {
      const series = heaps.map((sample) => sample[i]!);
      const growth = series.at(-1)! - series[0]!;
      const served = requestsAt.at(-1)! - requestsAt[0]!;
      console.log(
        `${proc.name.padEnd(14)} ${series.map((bytes) => (bytes / 2 ** 20).toFixed(1)).join(" → ")}   since warm-up: ${(growth / 2 ** 20).toFixed(1)} MB over ${served.toLocaleString("en")} requests (${(growth / Math.max(1, served)).toFixed(0)} bytes per request)`,
      );
    });
    if (fiveXx > 0) process.exitCode = 1;
  } finally {
    for (const proc of procs) proc.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const proc of procs) if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
    await sites.stop();
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
