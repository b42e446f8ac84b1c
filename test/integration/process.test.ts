import { bounded } from "../support/bounded.js";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "graphql-ws";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { HEALTHY } from "../support/app.js";
import { collectLines, exitOf } from "../support/child-process.js";
import { createTestDatabase } from "../support/database.js";
import { FOLLOW_PROGRESS, type ProgressStep } from "../support/progress.js";

/**
 * The built entry point as `npm start` runs it: a real process, its exit codes,
 * its signals, and the embedded database it owns.
 */
const entry = new URL("../../dist/src/main.js", import.meta.url).pathname;

interface Started {
  child: ChildProcess;
  url: string;
  /** From the service's first line of code to listening. */
  bootMs: number;
  /** From spawning the process (Node start and module loading included) to listening. */
  wallMs: number;
  logs: string[];
}

/** Every service process a test started: one a failed assertion left running is stopped after that test. */
const spawned: ChildProcess[] = [];

function run(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  spawned.push(child);
  return child;
}

async function startService(env: Record<string, string>): Promise<Started> {
  const spawnedAt = performance.now();
  const child = run(env);
  const logs = collectLines(child);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    for (const line of logs) {
      if (!line.includes('"service listening"')) continue;
      const parsed = JSON.parse(line) as { url: string; bootMs: number };
      return { child, url: parsed.url, bootMs: parsed.bootMs, wallMs: Math.round(performance.now() - spawnedAt), logs };
    }
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${logs.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`service did not start:\n${logs.join("\n")}`);
}

async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let dataDir: string;
beforeAll(async () => {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does) first`);
  dataDir = await mkdtemp(path.join(tmpdir(), "pms-process-"));
});
// A service left running (with its embedded database) would hold DATA_DIR and fail every later test.
afterEach(async () => {
  for (const child of spawned.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGTERM");
    const stopped = await Promise.race([
      new Promise((resolve) => child.once("exit", () => resolve(true))),
      new Promise((resolve) => setTimeout(() => resolve(false), 15_000)),
    ]);
    if (!stopped) child.kill("SIGKILL");
  }
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("the service process", () => {
  it("refuses to start on a bad setting, naming the variable, without a stack trace", async () => {
    const child = run({ PORT: "eighty", DATABASE_URL: "mysql://nope", DATA_DIR: dataDir });
    const logs = collectLines(child);
    expect(await exitOf(child)).toBe(1);
    const output = logs.join("\n");
    expect(output).toContain("PORT must be a whole number");
    expect(output).toContain("DATABASE_URL must be a URL with scheme postgres: or postgresql:");
    expect(output).not.toContain("mysql://nope"); // URLs can hold passwords: never echoed
    expect(output).not.toMatch(/\n\s+at /);
  });

  it("prints logs for people on a terminal (pino-pretty), a start-up failure included, and JSON when piped", async () => {
    // `script` gives the process a pseudo-terminal, as a person running `npm start` has.
    const env = {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
    };
    const onTerminal = spawn("script", ["-qefc", `${process.execPath} ${entry}`, "/dev/null"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = collectLines(onTerminal);
    expect(await exitOf(onTerminal)).not.toBe(0);
    const text = lines.join("\n").replace(/\u001b\[[0-9;]*m/g, "");
    expect(text).toMatch(/FATAL.*service failed to start/);
    expect(text).toContain("ECONNREFUSED");
    expect(lines.some((line) => line.trimStart().startsWith('{"level"'))).toBe(false);

    const piped = run({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });
    const pipedLines = collectLines(piped);
    expect(await exitOf(piped)).toBe(1);
    const fatal = pipedLines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((record) => record.level === 60);
    expect(fatal?.msg).toBe("service failed to start");
  });

  it("refuses to start a worker process without the Redis and the database it shares", async () => {
    const worker = new URL("../../dist/src/worker.js", import.meta.url).pathname;
    const child = spawn(process.execPath, [worker], {
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const logs = collectLines(child);
    expect(await exitOf(child)).toBe(1);
    const output = logs.join("\n");
    expect(output).toContain("REDIS_URL is required for a worker process");
    expect(output).toContain("DATABASE_URL is required for a worker process");
    expect(output).not.toMatch(/\n\s+at /);
  });

  it("refuses production without an identity provider", async () => {
    const child = run({ NODE_ENV: "production", DATA_DIR: dataDir });
    const logs = collectLines(child);
    expect(await exitOf(child)).toBe(1);
    expect(logs.join("\n")).toContain("SESSION_JWKS_URL is required in production");
  });

  it("starts on embedded defaults, serves health, and stops cleanly on SIGTERM with its database", async () => {
    const service = await startService({ DATA_DIR: dataDir });
    console.log(
      `cold start, fresh DATA_DIR (initdb included): ${service.wallMs} ms from spawn, ${service.bootMs} ms in main()`,
    );
    const health = await fetch(`${service.url}/api/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).status).toBe(HEALTHY);
    const pid = await postmasterPid(dataDir);
    expect(alive(pid)).toBe(true);

    service.child.kill("SIGTERM");
    expect(await exitOf(service.child)).toBe(0);
    for (let waited = 0; alive(pid) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it("restarts on existing data, and takes over from a database orphaned by a killed process", async () => {
    const warm = await startService({ DATA_DIR: dataDir });
    console.log(`start on existing DATA_DIR: ${warm.wallMs} ms from spawn, ${warm.bootMs} ms in main()`);
    const orphan = await postmasterPid(dataDir);
    warm.child.kill("SIGKILL");
    await exitOf(warm.child);
    expect(alive(orphan)).toBe(true);

    const next = await startService({ DATA_DIR: dataDir });
    try {
      expect(alive(orphan)).toBe(false);
      const health = await fetch(`${next.url}/api/health`);
      expect((await health.json()).status).toBe(HEALTHY);
    } finally {
      next.child.kill("SIGTERM");
      expect(await exitOf(next.child)).toBe(0);
    }
  });

  it("refuses a DATA_DIR whose database another running service owns", async () => {
    const first = await startService({ DATA_DIR: dataDir });
    try {
      const second = run({ DATA_DIR: dataDir });
      const logs = collectLines(second);
      expect(await exitOf(second)).toBe(1);
      expect(logs.join("\n")).toContain("is in use by another running service");
      const health = await fetch(`${first.url}/api/health`);
      expect((await health.json()).status).toBe(HEALTHY);
    } finally {
      first.child.kill("SIGTERM");
      expect(await exitOf(first.child)).toBe(0);
    }
  });

  // Three processes start in turn, two of them with an embedded database: slow on a loaded machine.
  it("says which port is taken, and which variable moves it, instead of crashing with a stack trace (API, metrics, worker)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = String((taken.address() as AddressInfo).port);
    const fatalOf = async (child: ChildProcess) => {
      const lines = collectLines(child);
      const [code] = (await once(child, "close")) as [number | null];
      const output = lines.join("\n");
      expect(code, output).toBe(1);
      expect(output).not.toMatch(/\n\s+at /);
      return lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((record) => record.level === 60)?.msg;
    };
    try {
      // The API's own port: its embedded database was up by then, and goes with it.
      expect(await fatalOf(run({ DATA_DIR: dataDir, PORT: port }))).toBe(
        `port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port`,
      );
      // The metrics port.
      expect(await fatalOf(run({ DATA_DIR: dataDir, METRICS_PORT: port }))).toBe(
        `port ${port} on 127.0.0.1 is already in use: stop what listens there, or set METRICS_PORT to another port`,
      );
      // A worker's metrics port.
      const database = await createTestDatabase();
      try {
        const worker = spawn(process.execPath, [new URL("../../dist/src/worker.js", import.meta.url).pathname], {
          env: {
            PATH: process.env.PATH ?? "",
            DATABASE_URL: database.url,
            REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
            REDIS_PREFIX: `pmstest-port-${port}`,
            METRICS_PORT: port,
          },
          stdio: ["ignore", "pipe", "pipe"],
        });
        expect(await fatalOf(worker)).toBe(
          `port ${port} on 127.0.0.1 is already in use: stop what listens there, or set METRICS_PORT to another port`,
        );
      } finally {
        await database.drop();
      }
    } finally {
      taken.close();
    }
    // Nothing was left holding the data directory: the next start takes it.
    const service = await startService({ DATA_DIR: dataDir });
    service.child.kill("SIGTERM");
    expect(await exitOf(service.child)).toBe(0);
  }, 90_000);

  it("logs a failure nobody caught as JSON: a stray rejection leaves it serving, an uncaught exception drains it and exits 1", async () => {
    const lifecycle = new URL("../../dist/src/process-lifecycle.js", import.meta.url).href;
    const script = `
      import pino from "pino";
      import { stopOnSignals } from ${JSON.stringify(lifecycle)};
      const logger = pino();
      stopOnSignals(logger, "service", async () => logger.info("drained"));
      setInterval(() => undefined, 1000);
      Promise.reject(new Error("stray rejection"));
      setTimeout(() => {
        logger.info("still serving");
        setTimeout(() => { throw new Error("uncaught boom"); }, 20);
      }, 100);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("../..", import.meta.url).pathname,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = collectLines(child);
    // "close", not "exit": the last lines may still be in the pipes when the process has exited.
    const code = await new Promise<number | null>((resolve) => child.once("close", (exitCode) => resolve(exitCode)));
    const output = lines.join("\n");
    expect(code, output).toBe(1);
    // Every line is JSON: no bare stack trace.
    const parsed = lines
      .filter((line) => line.trim() !== "")
      .map((line) => {
        try {
          return JSON.parse(line) as { level: number; time: number; msg: string; err?: { message: string } };
        } catch {
          throw new Error(`a line that is not JSON:\n${line}\n\nall output:\n${output}`);
        }
      })
      // In the order they were logged: pino writes a fatal line at once (flushSync), ahead of an info line
      // still in its buffer ("still serving" arrived after the crash on a loaded host). Equal times keep arrival order.
      .sort((a, b) => a.time - b.time);
    const summary = parsed.map((line) => [line.level, line.msg, line.err?.message ?? ""] as const);
    expect(summary.slice(0, 2), output).toEqual([
      [50, "service: a promise failed with nobody waiting on it; serving goes on", "stray rejection"],
      [30, "still serving", ""],
    ]);
    // The crash's lines. pino flushes a fatal line on its own (flushSync), and on a loaded host with a
    // full pipe that flush can land it after the lines logged right after it; the drain's own order holds.
    expect([...summary.slice(2)].sort(), output).toEqual(
      [
        [60, "service: an exception nobody caught; stopping", "uncaught boom"],
        [30, "service shutting down", ""],
        [30, "drained", ""],
      ].sort(),
    );
    const messages = summary.map(([, msg]) => msg);
    expect(messages.indexOf("drained")).toBeGreaterThan(messages.indexOf("service shutting down"));
  });

  it("exits 1, not 0, when an exception nobody caught comes while it drains after SIGTERM", async () => {
    const lifecycle = new URL("../../dist/src/process-lifecycle.js", import.meta.url).href;
    const script = `
      import pino from "pino";
      import { stopOnSignals } from ${JSON.stringify(lifecycle)};
      const logger = pino();
      stopOnSignals(logger, "service", () => new Promise((resolve) => {
        setTimeout(() => { throw new Error("boom while draining"); }, 20);
        setTimeout(() => { logger.info("drained"); resolve(); }, 80);
      }));
      setInterval(() => undefined, 1000);
      process.kill(process.pid, "SIGTERM");
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("../..", import.meta.url).pathname,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = collectLines(child);
    const code = await new Promise<number | null>((resolve) => child.once("close", (exitCode) => resolve(exitCode)));
    const output = lines.join("\n");
    expect(code, output).toBe(1);
    // stdout and stderr arrive through two pipes, so their lines interleave in any order: order them by their time.
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; time: number });
    expect(
      logged.sort((a, b) => a.time - b.time).map((entry) => entry.msg),
      output,
    ).toEqual(["service shutting down", "service: an exception nobody caught; stopping", "drained"]);
  });

  it("answers a scoring request in flight at SIGTERM (202 with its job) from its embedded database before stopping it, then exits 0", async () => {
    // A site whose home page takes a moment: the scoring request is in flight when SIGTERM comes.
    let release: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (release = resolve));
    const site = createHttpServer((request, response) => {
      const page = `<!doctype html><html lang="en"><head><title>Slowpoke</title></head><body><h1>Slowpoke</h1><p>A product page.</p></body></html>`;
      if (request.url !== "/") return void response.writeHead(404).end();
      release();
      setTimeout(() => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page), 1_500);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    const service = await startService({ DATA_DIR: dataDir, SSRF_ALLOWLIST: "127.0.0.1/32" });
    try {
      const answer = fetch(`${service.url}/api/score/quick`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: siteUrl }),
      });
      await asked;
      service.child.kill("SIGTERM");
      const response = await Promise.race([
        answer,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no answer:\n${service.logs.join("\n")}`)), 15_000),
        ),
      ]);
      const body = (await response.json()) as { job?: { id: string; status: string }; error?: unknown };
      // The crawl is aborted, not waited for: the caller gets the job to follow (it is released for the next start).
      expect(response.status, `${JSON.stringify(body)}\n${service.logs.slice(-20).join("\n")}`).toBe(202);
      expect(body.job).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: "queued" });
      // The answer closes its connection, so a keep-alive client does not hold the drain open.
      expect(response.headers.get("connection")).toBe("close");
      expect(await exitOf(service.child)).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill("SIGKILL");
      site.close();
    }
  }, 90_000);

  it("reports fail while its embedded database is down, and still shuts down when it has died", async () => {
    const service = await startService({ DATA_DIR: dataDir });
    process.kill(await postmasterPid(dataDir), "SIGKILL");
    // Backends of a killed postmaster notice its death a moment later; until then a
    // pooled connection may still answer. Poll, bounded, until the outage shows.
    const check = () =>
      fetch(`${service.url}/api/health`).catch(async (error: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        throw new Error(
          `health request failed (service exit ${service.child.exitCode}/${service.child.signalCode}):\n${service.logs.slice(-40).join("\n")}`,
          { cause: error },
        );
      });
    let health = await check();
    for (let waited = 0; health.status !== 503 && waited < 10_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      health = await check();
    }
    expect(health.status).toBe(503);
    expect((await health.json()).checks.database.status).toBe("fail");
    service.child.kill("SIGTERM");
    // Its last lines say why, if it ever exits otherwise: a pooled client checked out without an "error" listener
    // once took the postmaster's FATAL as an uncaught exception (exit 1); test/service/db/lost-connection.test.ts.
    expect(await exitOf(service.child), service.logs.slice(-30).join("\n")).toBe(0);
  });
  it("on SIGTERM answers a waiting scoring call 202 with its job, closes its progress sockets, releases the job and exits by itself; the next process completes it, charged once", async () => {
    const database = await createTestDatabase();
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    // A site whose home page does not answer while `slow` (a crawl that would outlast any stop timeout).
    let slow = true;
    const held: Array<() => void> = [];
    let reached: () => void = () => undefined;
    const crawling = new Promise<void>((resolve) => (reached = resolve));
    const site = createHttpServer((request, response) => {
      if (request.url !== "/") return void response.writeHead(404).end();
      const answer = () => {
        if (!response.destroyed)
          response
            .writeHead(200, { "content-type": "text/html; charset=utf-8" })
            .end(
              `<!doctype html><html lang="en"><head><title>Drip</title></head><body><h1>Drip</h1><p>A product page.</p></body></html>`,
            );
      };
      if (!slow) return answer();
      held.push(answer);
      reached();
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    const env = { DATA_DIR: dataDir, DATABASE_URL: database.url, SSRF_ALLOWLIST: "127.0.0.1/32" };
    const signIn = async (url: string) => {
      const response = await fetch(`${url}/dev/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@drain.test" }),
      });
      const body = (await response.json()) as { accountId: string };
      return { cookie: (response.headers.get("set-cookie") ?? "").split(";")[0]!, accountId: body.accountId };
    };
    const jobRow = async (id: string) =>
      (
        await sql.query(
          `SELECT "status", "lease_token", "locked_until", "attempts", "result_id", "error_code", "error_message" FROM "score_jobs" WHERE "id" = $1`,
          [id],
        )
      ).rows[0] as
        | {
            status: string;
            lease_token: string | null;
            locked_until: Date | null;
            attempts: number;
            result_id: string | null;
            error_code: string | null;
            error_message: string | null;
          }
        | undefined;

    const first = await startService(env);
    let second: Started | undefined;
    try {
      const ada = await signIn(first.url);
      const answer = fetch(`${first.url}/api/score`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: ada.cookie },
        body: JSON.stringify({ url: siteUrl }),
      });
      await bounded(crawling, 20_000, "the crawl reaching the site");
      const jobId = (
        (await sql.query(`SELECT "id" FROM "score_jobs" WHERE "account_id" = $1`, [ada.accountId])).rows[0] as {
          id: string;
        }
      ).id;
      const followed = followOnce(first.url, ada.cookie, jobId);
      await bounded(followed.first, 10_000, "the subscription's first step");

      first.child.kill("SIGTERM");
      const response = await bounded(
        answer,
        20_000,
        `the waiting POST /api/score after SIGTERM:\n${first.logs.slice(-20).join("\n")}`,
      );
      const body = (await response.json()) as { job?: { id: string; status: string } };
      expect(response.status, JSON.stringify(body)).toBe(202);
      expect(body.job).toMatchObject({ id: jobId, status: "queued" });
      expect(response.headers.get("location")).toBe(`/api/score/jobs/${jobId}`);
      // The follower is told the server is going away (1001), which a graphql-ws client reconnects on.
      expect(await bounded(followed.closed, 20_000, "the subscription's socket closing")).toBe(1001);
      // 0: it stopped by itself; a stop still running at the end of its drain budget exits 1.
      expect(await bounded(exitOf(first.child), 20_000, "the process exiting")).toBe(0);
      expect(first.logs.some((line) => line.includes("released an unfinished job at shutdown"))).toBe(true);
      // Released: claimable at once by another process, the aborted run not counted as an attempt.
      expect(await jobRow(jobId)).toMatchObject({
        status: "queued",
        lease_token: null,
        locked_until: null,
        attempts: 0,
      });

      // The next process takes the job up at start and completes it; the customer was charged once.
      slow = false;
      for (const release of held.splice(0)) release();
      second = await startService(env);
      for (let waited = 0; (await jobRow(jobId))?.status !== "completed"; waited += 200) {
        if (waited > 30_000)
          throw new Error(
            `the job was not completed by the next process: ${JSON.stringify(await jobRow(jobId))}\n${second.logs.slice(-20).join("\n")}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const again = await signIn(second.url);
      const resumed = followOnce(second.url, again.cookie, jobId);
      expect((await bounded(resumed.ended, 10_000, "a subscription on the next process")).at(-1)).toMatchObject({
        status: "completed",
        resultId: (await jobRow(jobId))!.result_id,
      });
      const entries = (
        await sql.query(
          `SELECT "kind", "reference" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" IN ('spend', 'refund')`,
          [ada.accountId],
        )
      ).rows as Array<{ kind: string; reference: string }>;
      expect(entries.filter((entry) => entry.kind === "spend" && entry.reference === `job:${jobId}`)).toHaveLength(1);
      expect(entries.filter((entry) => entry.kind === "refund")).toEqual([]);
      const [{ scores }] = (
        await sql.query(
          `SELECT COALESCE(SUM("score_count"), 0)::int AS "scores" FROM "credit_balances" WHERE "account_id" = $1`,
          [ada.accountId],
        )
      ).rows as [{ scores: number }];
      expect(scores).toBe(1);
    } finally {
      for (const started of [first, second]) {
        if (started && started.child.exitCode === null && started.child.signalCode === null) {
          started.child.kill("SIGTERM");
          await bounded(exitOf(started.child), 20_000, "a stop").catch(() => started.child.kill("SIGKILL"));
        }
      }
      slow = false;
      for (const release of held.splice(0)) release();
      site.close();
      await sql.end();
      await database.drop();
    }
  }, 120_000);
});

/**
 * Follows a job's progress on one graphql-ws socket that does not reconnect, so the
 * test sees how the server ends it: `ended` with the steps when it completes the
 * subscription, `closed` with the close code when it closes the socket instead.
 */
function followOnce(baseUrl: string, cookie: string, jobId: string) {
  const steps: ProgressStep[] = [];
  let gotFirst: () => void = () => undefined;
  let onClosed: (code: number) => void = () => undefined;
  let onEnded: (steps: ProgressStep[]) => void = () => undefined;
  const first = new Promise<void>((resolve) => (gotFirst = resolve));
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const ended = new Promise<ProgressStep[]>((resolve) => (onEnded = resolve));
  const client = createClient({
    url: `${baseUrl.replace(/^http/, "ws")}/graphql`,
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => onClosed((event as { code: number }).code) },
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie } });
      }
    },
  });
  client.subscribe<{ scoreProgress: ProgressStep }>(
    { query: FOLLOW_PROGRESS, variables: { jobId } },
    {
      next: (result) => {
        if (result.data) steps.push(result.data.scoreProgress);
        gotFirst();
      },
      error: () => gotFirst(),
      complete: () => {
        onEnded(steps);
        void client.dispose();
      },
    },
  );
  return { first, closed, ended };
}
