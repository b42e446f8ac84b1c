// A burst of chat messages while both cores are busy: 31 concurrent POST /api/chat
// from one new account (Free: 30 chats a month, 30 per 60 s), against the service as
// deployed (`dist/src/main.js` over real Postgres and Redis, loopback only). Exactly
// one answer should be 429, the real 31st; no other 429 ("rate limiting is
// temporarily unavailable") and no 503 (a query that waited too long for a pooled
// connection). The same run measures, each with a service of its own:
//
//   - idle:        the burst on a quiet machine (the baseline);
//   - busy:        the burst with two `node -e 'for(;;){}'` loops taking both cores;
//   - busy, old:   the same, with the settings the service had before (the limiter's
//                  store deadline 100 ms, pool wait 3 s), through their config knobs.
//                  The code is today's: a late answer still gets one more loop turn.
//   - busy, before: with BENCH_BEFORE_DIST=<dir>, the same burst against another build
//                  (`<dir>/src/main.js`, e.g. the commit before these changes built with
//                  `tsc -p tsconfig.build.json` in a copy of it).
//
// Each round signs up a fresh account, scores a local fixture site (the calibration
// leader) so there is a result to chat about, then fires the burst. Chat replies come
// from the local deterministic engine: no OpenAI. Prints status counts per scenario,
// with the error codes of the refusals. Figures only: nothing is asserted on time.
//
//   npm run bench:burst      (BENCH_ROUNDS=3 bursts per scenario; DATABASE_URL, REDIS_URL; BENCH_BEFORE_DIST;
//                            BENCH_CLIENT=fetch: all 31 from this process instead of one client process each)

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { collectLines } from "../test/support/child-process.js";
import { FixtureSites } from "../test/support/fixture-sites.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = 31;
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
const CLIENT = process.env.BENCH_CLIENT === "fetch" ? "fetch" : "processes";

interface Scenario {
  readonly name: string;
  readonly busy: boolean;
  readonly env: Record<string, string>;
  readonly main?: string;
}

const scenarios: readonly Scenario[] = [
  { name: "idle (baseline)", busy: false, env: {} },
  { name: "both cores busy", busy: true, env: {} },
  {
    name: "both cores busy, old settings (100 ms, pool wait 3 s)",
    busy: true,
    env: { RATE_LIMIT_STORE_TIMEOUT_MS: "100", DATABASE_POOL_WAIT_MS: "3000" },
  },
  ...(BEFORE_DIST
    ? [
        {
          name: `both cores busy, code before the fix (${BEFORE_DIST})`,
          busy: true,
          env: {},
          main: path.join(path.resolve(BEFORE_DIST), "src/main.js"),
        },
      ]
    : []),
];

async function startService(
  env: Record<string, string>,
  main = path.join(root, "dist/src/main.js"),
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      SSRF_ALLOWLIST: "127.0.0.1/32",
      NODE_ENV: "development",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs = collectLines(child);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ready = logs.find((line) => line.includes('"service listening"'));
    if (ready) return { child, url: (JSON.parse(ready) as { url: string }).url };
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${logs.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error(`service not ready:\n${logs.join("\n")}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** Two processes spinning forever: both of this machine's cores taken. */
function busyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
}

const json = (body: unknown, cookie?: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
  body: JSON.stringify(body),
});

/** A new Free account with one scored product: what a chat needs. */
async function account(service: string, siteUrl: string): Promise<{ cookie: string; productId: string }> {
  const login = await fetch(
    `${service}/dev/login`,
    json({ email: `burst-${randomBytes(4).toString("hex")}@bench.test` }),
  );
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const scored = await fetch(`${service}/api/score/product`, json({ url: siteUrl }, cookie));
  if (scored.status !== 200) throw new Error(`scoring answered ${scored.status}: ${await scored.text()}`);
  return { cookie, productId: ((await scored.json()) as { productId: string }).productId };
}

/** One chat, as a client process sends it: prints "status" or "status CODE". */
const sendOne = `
const response = await fetch(process.env.TARGET, { method: "POST", headers: { "content-type": "application/json", cookie: process.env.COOKIE }, body: process.env.BODY });
const body = await response.json().catch(() => ({}));
const unavailable = body.error?.message?.includes("temporarily unavailable") ? " (store unavailable)" : "";
console.log(response.status === 200 ? "200" : response.status + " " + (body.error?.code ?? "?") + unavailable);
`;

/** Runs `sendOne` in a process of its own. */
function sendFromProcess(target: string, cookie: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", sendOne], {
      env: { PATH: process.env.PATH ?? "", TARGET: target, COOKIE: cookie, BODY: body },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", () => resolve(out.trim() || "no answer"));
  });
}

/**
 * Fires the burst at once; answers "status" or "status CODE" per message. By default
 * each message comes from a client process of its own, as 31 people (or curl
 * processes) would send them: starting them takes CPU from the service too, which is
 * how the refusals were first seen. BENCH_CLIENT=fetch sends all from this process.
 */
async function burst(service: string, caller: { cookie: string; productId: string }): Promise<string[]> {
  return Promise.all(
    Array.from({ length: BURST }, async (_, index) => {
      const body = JSON.stringify({ message: `What should we work on first? (${index})`, productId: caller.productId });
      if (CLIENT === "processes") return sendFromProcess(`${service}/api/chat`, caller.cookie, body);
      const response = await fetch(`${service}/api/chat`, { ...json({}, caller.cookie), body });
      const answer = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
      if (response.status === 200) return "200";
      const unavailable = answer.error?.message.includes("temporarily unavailable") ? " (store unavailable)" : "";
      return `${response.status} ${answer.error?.code ?? "?"}${unavailable}`;
    }),
  );
}

const tally = (answers: string[]): string =>
  [...answers.reduce((counts, answer) => counts.set(answer, (counts.get(answer) ?? 0) + 1), new Map<string, number>())]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([answer, count]) => `${count} × ${answer}`)
    .join(", ");

async function main(): Promise<void> {
  const database = `bench_burst_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const sites = await new FixtureSites({
    "127.0.0.1": calibrationSites.find((site) => site.host === "leader.test")!.pages,
  }).start();
  const siteUrl = `http://127.0.0.1:${sites.port}/`;
  const shared = {
    DATABASE_URL: withDatabase(ADMIN_URL, database),
    REDIS_URL,
    REDIS_PREFIX: `bench-burst-${randomBytes(4).toString("hex")}`,
  };
  console.log(
    `${BURST} concurrent chats from one new Free account (client: ${CLIENT === "processes" ? "one process per chat" : "fetch from one process"}), ${ROUNDS} round(s) per scenario; 30 pass the limit, the 31st is the real 429`,
  );
  try {
    for (const scenario of scenarios) {
      const { child, url } = await startService({ ...shared, ...scenario.env }, scenario.main);
      const answers: string[] = [];
      const perRound: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round += 1) {
          const caller = await account(url, siteUrl);
          const loops = scenario.busy ? busyLoops() : [];
          try {
            // Let the loops take the cores before the burst starts.
            if (loops.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
            const started = performance.now();
            const got = await burst(url, caller);
            perRound.push(
              `${got.filter((answer) => answer === "200").length} ok in ${Math.round(performance.now() - started)} ms`,
            );
            answers.push(...got);
          } finally {
            for (const loop of loops) loop.kill("SIGKILL");
          }
        }
      } finally {
        await stop(child);
      }
      console.log(`\n${scenario.name}\n  ${tally(answers)}\n  rounds: ${perRound.join("; ")}`);
    }
  } finally {
    await sites.stop();
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
