import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import {
  MAX_ACTIVE_OPERATIONS,
  MAX_OPERATIONS_PER_WINDOW,
  MAX_SOCKETS_PER_ADDRESS,
} from "../../../src/graphql/websocket.js";
import { startTestApp, type TestApp } from "../../support/app.js";

/**
 * What one client may hold over graphql-ws: operations active on one socket,
 * sockets per address, operations started per address; how hostile frames end
 * (a frame over the limit, a credential that is not a string, a literal with a NUL),
 * and that a subscription sent over HTTP is refused, not run. Each test calls from
 * an address of its own (X-Forwarded-For through the trusted loopback proxy).
 * Jobs score a site that never answers, so a started job stays open while it crawls.
 */
let service: TestApp;
let tarpit: Server;
let siteUrl: string;
let nextAddress = 1;

beforeAll(async () => {
  tarpit = createServer(() => undefined);
  await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}/`;
  service = await startTestApp({ TRUST_PROXY: "127.0.0.1", SSRF_ALLOWLIST: "127.0.0.1/32" });
});
afterAll(async () => {
  await service?.close();
  tarpit?.closeAllConnections();
  tarpit?.close();
});

const wsUrl = () => service.url.replace(/^http/, "ws") + "/graphql";
const newAddress = () => `198.18.7.${nextAddress++}`;

/** A graphql-ws client calling from `address`. */
function clientFrom(address: string, connectionParams?: Record<string, unknown>): Client {
  class FromAddress extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { "x-forwarded-for": address } });
    }
  }
  return createClient({
    url: wsUrl(),
    webSocketImpl: FromAddress,
    retryAttempts: 0,
    lazy: true,
    ...(connectionParams ? { connectionParams } : {}),
  });
}

/** The first thing an operation answers: a result, an error, or "complete". */
function first(client: Client, query: string, variables?: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve) => {
    client.subscribe(
      { query, ...(variables ? { variables } : {}) },
      { next: resolve, error: resolve, complete: () => resolve("complete") },
    );
  });
}

async function startJob(client: Client): Promise<string> {
  const started = (await first(
    client,
    `mutation { startScore(input: { url: "${siteUrl}", kind: score }) { job { id } } }`,
  )) as { data?: { startScore: { job: { id: string } } } };
  expect(started.data?.startScore.job.id, JSON.stringify(started)).toMatch(/^[0-9a-f-]{36}$/);
  return started.data!.startScore.job.id;
}

describe("graphql-ws limits", () => {
  it(`keeps at most ${MAX_ACTIVE_OPERATIONS} operations active on one socket`, async () => {
    const client = clientFrom(newAddress());
    try {
      const jobId = await startJob(client);
      const seen: unknown[] = [];
      // Each follows the job, which crawls a site that never answers: it stays open.
      for (let i = 0; i < MAX_ACTIVE_OPERATIONS; i++) {
        client.subscribe(
          { query: `subscription ($id: ID!) { scoreProgress(jobId: $id) { status } }`, variables: { id: jobId } },
          { next: (value) => seen.push(value), error: (error) => seen.push(error), complete: () => undefined },
        );
      }
      // A wait, not a speed check: 25 first answers can take more than poll's default second on a loaded host.
      await expect.poll(() => seen.length, { timeout: 15_000 }).toBe(MAX_ACTIVE_OPERATIONS);
      expect(
        seen.every((value) => /"status":"(queued|crawling)"/.test(JSON.stringify(value))),
        JSON.stringify(seen.slice(0, 2)),
      ).toBe(true);
      const refused = await first(client, `subscription ($id: ID!) { scoreProgress(jobId: $id) { status } }`, {
        id: jobId,
      });
      expect(JSON.stringify(refused)).toContain(
        `At most ${MAX_ACTIVE_OPERATIONS} operations may be active on one socket`,
      );
    } finally {
      await client.dispose();
    }
  });

  it(`refuses the socket after ${MAX_SOCKETS_PER_ADDRESS} from one address with 429, and takes another once one closes`, async () => {
    const address = newAddress();
    const open = (): Promise<WebSocket | number> =>
      new Promise((resolve) => {
        const socket = new WebSocket(wsUrl(), "graphql-transport-ws", { headers: { "x-forwarded-for": address } });
        socket.once("open", () => resolve(socket));
        socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      });
    const sockets: WebSocket[] = [];
    try {
      for (let i = 0; i < MAX_SOCKETS_PER_ADDRESS; i++) sockets.push((await open()) as WebSocket);
      expect(await open()).toBe(429);
      // Another address is not affected.
      const other = await new Promise<WebSocket>((resolve) => {
        const socket = new WebSocket(wsUrl(), "graphql-transport-ws", { headers: { "x-forwarded-for": newAddress() } });
        socket.once("open", () => resolve(socket));
      });
      other.close();
      const closed = sockets.pop()!;
      await new Promise((resolve) => {
        closed.once("close", resolve);
        closed.close();
      });
      const again = await open();
      expect(again).toBeInstanceOf(WebSocket);
      sockets.push(again as WebSocket);
    } finally {
      for (const socket of sockets) socket.terminate();
    }
  });

  it(`starts at most ${MAX_OPERATIONS_PER_WINDOW} operations per 10 s from one address`, async () => {
    const client = clientFrom(newAddress());
    try {
      const answers: string[] = [];
      for (let i = 0; i <= MAX_OPERATIONS_PER_WINDOW; i++) {
        answers.push(
          JSON.stringify(
            await first(client, `subscription ($id: ID!) { scoreProgress(jobId: $id) { status } }`, {
              id: crypto.randomUUID(),
            }),
          ),
        );
      }
      expect(answers.slice(0, MAX_OPERATIONS_PER_WINDOW).every((answer) => answer.includes("NOT_FOUND"))).toBe(true);
      expect(answers.at(-1)).toContain(`At most ${MAX_OPERATIONS_PER_WINDOW} operations may start per 10 s`);
      // A socket has no Retry-After header: the wait is in the error's extensions, and in its advice.
      const refused = JSON.parse(answers.at(-1)!) as Array<{ extensions: { retryAfter: number; action: string } }>;
      const { retryAfter, action } = refused[0]!.extensions;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(10);
      expect(action).toBe(`Retry after ${retryAfter} seconds.`);
    } finally {
      await client.dispose();
    }
  });
});

describe("hostile frames over graphql-ws", () => {
  it("closes a socket sending a frame over 64 KiB with 1009, logging no stack trace", async () => {
    const printed = vi.spyOn(console, "error");
    try {
      const socket = new WebSocket(wsUrl(), "graphql-transport-ws", { headers: { "x-forwarded-for": newAddress() } });
      await new Promise((resolve) => socket.once("open", resolve));
      const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
      socket.send(JSON.stringify({ type: "connection_init", payload: { pad: "x".repeat(70 * 1024) } }));
      expect(await closed).toBe(1009);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it("answers a credential that is not a string as a wrong credential, never as anonymous", async () => {
    const client = clientFrom(newAddress(), { authorization: 12345 });
    try {
      const answer = JSON.stringify(
        await first(
          client,
          `mutation { startScore(input: { url: "http://127.0.0.1:9/", kind: score }) { job { id } } }`,
        ),
      );
      expect(answer).toContain("AUTH_REQUIRED");
      expect(answer).not.toContain('"job"');
    } finally {
      await client.dispose();
    }
  });

  it("refuses a NUL in a literal of the document before anything runs, naming the field", async () => {
    const client = clientFrom(newAddress());
    const jobs = async () =>
      Number((await service.app.database.dataSource.query(`SELECT count(*) AS n FROM score_jobs`))[0].n);
    try {
      const before = await jobs();
      const answer = JSON.stringify(
        await first(
          client,
          `mutation { startScore(input: { url: "http://127.0.0.1:9/", kind: score, context: "ctx\\u0000x" }) { job { id } } }`,
        ),
      );
      expect(answer).toContain("VALIDATION_FAILED");
      expect(answer).toContain("input.context: must not contain control characters (found U+0000)");
      expect(await jobs()).toBe(before);
    } finally {
      await client.dispose();
    }
  });
});

describe("documents that do not parse, over graphql-ws", () => {
  it("answers a syntax error or nesting past the parser's stack as that operation's VALIDATION_FAILED, keeping the socket, printing nothing", async () => {
    const printed = vi.spyOn(console, "error");
    const written = vi.spyOn(process.stderr, "write");
    let connections = 0;
    const closes: number[] = [];
    class FromAddress extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { "x-forwarded-for": newAddress() } });
      }
    }
    const client = createClient({
      url: wsUrl(),
      webSocketImpl: FromAddress,
      retryAttempts: 0,
      lazy: false,
      on: {
        connected: () => void (connections += 1),
        closed: (event) => void closes.push((event as { code: number }).code),
      },
    });
    try {
      const syntax = (await first(client, "{ health { status ")) as Array<{
        message: string;
        locations?: unknown;
        extensions?: Record<string, unknown>;
      }>;
      expect(syntax).toEqual([
        {
          message: "Syntax Error: Expected Name, found <EOF>.",
          locations: [{ line: 1, column: 19 }],
          extensions: expect.objectContaining({ code: "VALIDATION_FAILED" }),
        },
      ]);
      const depth = 20_000;
      const nested = (await first(
        client,
        `{ scoreResult(id: ${"[".repeat(depth)}${"]".repeat(depth)}) { id } }`,
      )) as Array<{ message: string; extensions?: Record<string, unknown> }>;
      expect(nested).toEqual([
        expect.objectContaining({
          message: "Syntax Error: the document is nested too deeply to parse.",
          extensions: expect.objectContaining({ code: "VALIDATION_FAILED" }),
        }),
      ]);
      // The same socket answers the next operation.
      expect(await first(client, "{ health { status } }")).toEqual({
        data: { health: { status: expect.any(String) } },
      });
      expect({ connections, closes }).toEqual({ connections: 1, closes: [] });
      expect(printed).not.toHaveBeenCalled();
      const stackLike = written.mock.calls
        .map(([chunk]) => String(chunk))
        .filter((text) => /Syntax Error|call stack|\n\s+at /.test(text));
      expect(stackLike).toEqual([]);
    } finally {
      printed.mockRestore();
      written.mockRestore();
      await client.dispose();
    }
  });
});

describe("subscriptions over HTTP", () => {
  it("are refused with 400 VALIDATION_FAILED, not run into an internal error", async () => {
    const response = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `subscription { scoreProgress(jobId: "x") { status } }` }),
    });
    const body = (await response.json()) as { errors?: Array<{ message: string; extensions: { code: string } }> };
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(body.errors?.[0]?.extensions.code).toBe("VALIDATION_FAILED");
    expect(body.errors?.[0]?.message).toMatch(/Subscriptions are served over a WebSocket/);
  });
});
