// Decides which HTTP framework the service runs under Apollo Server 5:
// Fastify 5 (@as-integrations/fastify) vs Express 5 (@as-integrations/express5),
// against a bare node:http ceiling that answers the same bytes with no GraphQL.
//
// Each server runs in its own child process (this file, forked with `--serve`)
// so the load generator in the parent never competes with a server's event
// loop. Only 127.0.0.1 is used, and children exit when the parent goes away.
//
//   npm run bench:http

import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

import { ApolloServer } from "@apollo/server";
import fastifyApollo from "@as-integrations/fastify";
import { expressMiddleware } from "@as-integrations/express5";
import autocannon from "autocannon";
import express from "express";
import Fastify from "fastify";

const HOST = "127.0.0.1";
const CONNECTIONS = 50;
const WARMUP_S = 2;
const MEASURE_S = 8;

const QUERY = JSON.stringify({ query: "{ health { status version } }" });
const HEALTH = { status: "ok", version: "0.1.0" };
// Apollo ends its JSON with a newline; the baseline and /ping send exactly the
// same bytes so only the request pipeline differs, not the payload size.
// (Checked against the real Apollo response before any load is applied.)
const RESPONSE = JSON.stringify({ data: { health: HEALTH } }) + "\n";

const typeDefs = `#graphql
  type Health { status: String! version: String! }
  type Query { health: Health! }
`;
const resolvers = { Query: { health: () => HEALTH } };

type ServerKind = "node" | "fastify" | "express";

// ---------------------------------------------------------------- servers --

async function startNode(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    // Drain the body anyway: the frameworks must read it, so must the ceiling.
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(RESPONSE),
      });
      res.end(RESPONSE);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  return server;
}

async function startFastify(): Promise<http.Server> {
  const apollo = new ApolloServer({ typeDefs, resolvers });
  await apollo.start();
  const app = Fastify();
  await app.register(fastifyApollo(apollo));
  app.get("/ping", (_req, reply) => reply.type("application/json; charset=utf-8").send(RESPONSE));
  await app.listen({ port: 0, host: HOST });
  return app.server;
}

async function startExpress(): Promise<http.Server> {
  const apollo = new ApolloServer({ typeDefs, resolvers });
  await apollo.start();
  const app = express();
  app.post("/graphql", express.json(), expressMiddleware(apollo));
  app.get("/ping", (_req, res) => {
    res.type("application/json; charset=utf-8").send(RESPONSE);
  });
  return new Promise((resolve) => {
    const server = app.listen(0, HOST, () => resolve(server));
  });
}

async function serve(kind: ServerKind): Promise<void> {
  const start = { node: startNode, fastify: startFastify, express: startExpress }[kind];
  const server = await start();
  // Exit with the parent (normal end, crash or Ctrl-C) so nothing is left listening.
  process.on("disconnect", () => process.exit(0));
  process.send?.({ port: (server.address() as AddressInfo).port });
}

function spawnServer(kind: ServerKind): Promise<{ child: ChildProcess; port: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
  // Apollo's usage/schema reporting switches on by itself when these are set;
  // the benchmark must not talk to anything beyond 127.0.0.1.
  for (const key of Object.keys(env)) if (key.startsWith("APOLLO_")) delete env[key];

  // fork() inherits process.execArgv, which carries tsx's loader into the child.
  const child = fork(fileURLToPath(import.meta.url), ["--serve", kind], { env });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 20 s`)), 20_000);
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

// ------------------------------------------------------------------ bench --

interface Target {
  name: string;
  server: ServerKind;
  method: "GET" | "POST";
  path: string;
}

const TARGETS: Target[] = [
  { name: "node:http baseline (POST)", server: "node", method: "POST", path: "/graphql" },
  { name: "fastify + apollo POST /graphql", server: "fastify", method: "POST", path: "/graphql" },
  { name: "express + apollo POST /graphql", server: "express", method: "POST", path: "/graphql" },
  { name: "fastify GET /ping", server: "fastify", method: "GET", path: "/ping" },
  { name: "express GET /ping", server: "express", method: "GET", path: "/ping" },
];

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

function loadOptions(target: Target, port: number, duration: number): autocannon.Options {
  const url = `http://${HOST}:${port}${target.path}`;
  if (target.method === "GET") return { url, duration, connections: CONNECTIONS, method: "GET" };
  return {
    url,
    duration,
    connections: CONNECTIONS,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: QUERY,
  };
}

async function measure(target: Target, port: number): Promise<Sample> {
  await autocannon(loadOptions(target, port, WARMUP_S));
  const r = await autocannon(loadOptions(target, port, MEASURE_S));
  return {
    // Completed 2xx requests over the real elapsed time, not the per-second sample mean.
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.errors + r.timeouts + r.non2xx,
  };
}

// A wrong or failing response would make every number meaningless, so check
// once, before loading, that each target answers 200 with exactly RESPONSE.
async function checkResponse(target: Target, port: number): Promise<void> {
  const init: RequestInit =
    target.method === "POST"
      ? { method: "POST", headers: { "content-type": "application/json" }, body: QUERY }
      : { method: "GET" };
  const res = await fetch(`http://${HOST}:${port}${target.path}`, init);
  const body = await res.text();
  if (res.status !== 200 || body !== RESPONSE) {
    throw new Error(
      `${target.name}: expected 200 ${JSON.stringify(RESPONSE)}, got ${res.status} ${JSON.stringify(body)}`,
    );
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function printTable(samples: Map<Target, Sample[]>): void {
  const baseline = mean(samples.get(TARGETS[0]!)!.map((s) => s.rps));
  const header = ["target", "req/s (mean)", "round 1", "round 2", "p50 ms", "p99 ms", "vs node:http"];
  const rows = TARGETS.map((t) => {
    const s = samples.get(t)!;
    const rps = mean(s.map((x) => x.rps));
    const failures = s.reduce((n, x) => n + x.failures, 0);
    return [
      t.name + (failures > 0 ? ` (!${failures} failed)` : ""),
      rps.toFixed(0),
      s[0]!.rps.toFixed(0),
      s[1]!.rps.toFixed(0),
      mean(s.map((x) => x.p50)).toFixed(1),
      mean(s.map((x) => x.p99)).toFixed(1),
      (rps / baseline).toFixed(2) + "x",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));

  const rpsOf = (i: number): number => mean(samples.get(TARGETS[i]!)!.map((s) => s.rps));
  const [fastify, expressRps] = [rpsOf(1), rpsOf(2)];
  const [winner, loser, fast, slow] =
    fastify >= expressRps ? ["fastify", "express", fastify, expressRps] : ["express", "fastify", expressRps, fastify];
  console.log(
    `\nFaster under Apollo: ${winner} (+${((fast / slow - 1) * 100).toFixed(1)}% req/s vs ${loser}, ` +
      `mean of 2 interleaved rounds, ${CONNECTIONS} connections, ${MEASURE_S} s each)`,
  );
}

async function main(): Promise<void> {
  const kinds: ServerKind[] = ["node", "fastify", "express"];
  const servers = new Map<ServerKind, { child: ChildProcess; port: number }>();
  try {
    for (const kind of kinds) servers.set(kind, await spawnServer(kind));
    const portOf = (t: Target): number => servers.get(t.server)!.port;
    for (const t of TARGETS) await checkResponse(t, portOf(t));

    const samples = new Map<Target, Sample[]>(TARGETS.map((t) => [t, []]));
    // Forward then reverse: slow drift on a shared machine (thermal, noisy
    // neighbours) then hits every target about equally across the two rounds.
    const rounds = [TARGETS, [...TARGETS].reverse()];
    for (const [i, order] of rounds.entries()) {
      for (const t of order) {
        process.stderr.write(`round ${i + 1}: ${t.name} ...`);
        const s = await measure(t, portOf(t));
        samples.get(t)!.push(s);
        process.stderr.write(` ${s.rps.toFixed(0)} req/s\n`);
      }
    }
    console.log();
    printTable(samples);
  } finally {
    for (const { child } of servers.values()) child.kill("SIGTERM");
  }
}

if (process.argv[2] === "--serve") {
  await serve(process.argv[3] as ServerKind);
} else {
  await main();
}
