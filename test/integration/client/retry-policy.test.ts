import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  defaultRetryPolicy,
  PmsApiError,
  PmsClient,
  PmsNetworkError,
  PmsProtocolError,
} from "../../../src/client/index.js";

/**
 * The client's retry policy against a small local HTTP server that answers what
 * each test scripts (429 then 200, 402, 503 …): the contract's rule is "retry
 * 429 throttling only, a capped number of times, backoff from Retry-After; never
 * 402". Waits go through an injected sleep, so they are recorded, not slept.
 */

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}
type Reply = { status: number; headers?: Record<string, string>; body?: unknown; raw?: string };

let server: Server;
let baseUrl: string;
let script: Reply[] = [];
const seen: Seen[] = [];

const throttled = (retryAfter = "2", code = "SCORING_RATE_LIMITED", retryable = true): Reply => ({
  status: 429,
  headers: { "retry-after": retryAfter },
  body: {
    error: {
      code,
      message: "Too many score requests.",
      action: "Retry after the number of seconds in the Retry-After header.",
      retryable,
    },
  },
});
const scored: Reply = { status: 200, headers: { "x-request-id": "req-ok" }, body: { id: "r1", totalScore: 61 } };

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      seen.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
      const reply = script.shift() ?? {
        status: 500,
        body: { error: { code: "INTERNAL", message: "unscripted", action: "", retryable: true } },
      };
      response.writeHead(reply.status, {
        "content-type": "application/json",
        "x-request-id": `req-${seen.length - 1}`,
        ...reply.headers,
      });
      response.end(reply.raw ?? (reply.body === undefined ? "" : JSON.stringify(reply.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  script = [];
});

function client(options: Partial<ConstructorParameters<typeof PmsClient>[0]> = {}) {
  const sleeps: number[] = [];
  // Exact schedules without the random spread; the spread itself is checked below and in the unit test.
  const pms = new PmsClient({
    baseUrl,
    apiKey: "pms_live_test",
    sleep: async (ms) => void sleeps.push(ms),
    ...options,
    retry: { jitter: 0, ...options.retry },
  });
  return { pms, sleeps };
}

async function refusal(promise: Promise<unknown>): Promise<PmsApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PmsApiError);
  return error as PmsApiError;
}

describe("the retry policy", () => {
  it("spreads its waits by default: up to 20 % more than the doubled Retry-After, never less", async () => {
    script = [throttled("2"), throttled("2"), scored];
    const { pms, sleeps } = client({ retry: { jitter: defaultRetryPolicy.jitter } });
    await pms.score("https://acme.example", { mode: "quick" });
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2_000);
    expect(sleeps[0]).toBeLessThanOrEqual(2_400);
    expect(sleeps[1]).toBeGreaterThanOrEqual(4_000);
    expect(sleeps[1]).toBeLessThanOrEqual(4_800);
  });

  it("retries a 429 after Retry-After, doubling, and sends the same Idempotency-Key and body each time", async () => {
    script = [throttled("2"), throttled("2"), scored];
    const { pms, sleeps } = client();
    const answer = await pms.score("https://acme.example", { mode: "quick", context: "B2B" });
    expect(answer).toEqual({ status: "completed", result: { id: "r1", totalScore: 61 } });
    expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual(Array(3).fill("POST /api/score/quick"));
    expect(sleeps).toEqual([2_000, 4_000]);
    const keys = seen.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(seen.map((request) => JSON.parse(request.body))).toEqual(
      Array(3).fill({ url: "https://acme.example", context: "B2B" }),
    );
    expect(seen.every((request) => request.headers.authorization === "Bearer pms_live_test")).toBe(true);
  });

  it("stops at the cap (3 sends by default) and throws the last refusal with its code, action, retryable and request id", async () => {
    script = [throttled("1"), throttled("1"), throttled("1"), scored];
    const { pms, sleeps } = client();
    const error = await refusal(pms.score("https://acme.example"));
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([1_000, 2_000]);
    expect(error).toMatchObject({
      status: 429,
      code: "SCORING_RATE_LIMITED",
      retryable: true,
      retryAfterSeconds: 1,
      attempts: 3,
      requestId: "req-2",
    });
    expect(error.action).toMatch(/Retry-After/);
    script = [];
  });

  it("caps the wait and takes a smaller cap of attempts", async () => {
    script = [throttled("50"), throttled("50"), throttled("50"), throttled("50"), scored];
    const { pms, sleeps } = client({ retry: { maxAttempts: 5, maxDelayMs: 120_000 } });
    await pms.score("https://acme.example");
    expect(sleeps).toEqual([50_000, 100_000, 120_000, 120_000]);

    script = [throttled("1"), scored];
    const once = client({ retry: { maxAttempts: 1 } });
    expect((await refusal(once.pms.score("https://acme.example"))).attempts).toBe(1);
    expect(once.sleeps).toEqual([]);
    script = [];
  });

  it("does not wait out a Retry-After beyond the longest wait (an anonymous caller's hour)", async () => {
    script = [throttled("3600", "ANON_RATE_LIMIT"), scored];
    const { pms, sleeps } = client();
    expect(await refusal(pms.score("https://acme.example"))).toMatchObject({
      code: "ANON_RATE_LIMIT",
      retryAfterSeconds: 3600,
      attempts: 1,
    });
    expect(sleeps).toEqual([]);
    expect(seen).toHaveLength(1);
    script = [];
  });

  it("never retries 402, a non-retryable 429 (monthly quota), other 4xx or 5xx", async () => {
    const refusals: Reply[] = [
      {
        status: 402,
        body: {
          error: {
            code: "CREDIT_EXHAUSTED",
            message: "Not enough credits.",
            action: "Buy a score pack or upgrade your plan.",
            retryable: false,
          },
        },
      },
      {
        status: 402,
        body: {
          error: {
            code: "PLAN_LIMIT_REACHED",
            message: "Products: 1 of 1.",
            action: "Upgrade your plan to raise this limit.",
            retryable: false,
          },
        },
      },
      throttled("1", "QUOTA_EXCEEDED", false),
      {
        status: 400,
        body: {
          error: {
            code: "INVALID_URL",
            message: "url: not an address",
            action: "Send a public http(s) address.",
            retryable: false,
          },
        },
      },
      {
        status: 503,
        headers: { "retry-after": "1" },
        body: {
          error: {
            code: "SERVICE_UNAVAILABLE",
            message: "database down",
            action: "Retry with backoff.",
            retryable: true,
          },
        },
      },
    ];
    for (const reply of refusals) {
      seen.length = 0;
      script = [reply, scored];
      const { pms, sleeps } = client();
      const error = await refusal(pms.score("https://acme.example"));
      expect(error).toMatchObject({
        status: reply.status,
        code: (reply.body as { error: { code: string } }).error.code,
        attempts: 1,
      });
      expect(seen).toHaveLength(1);
      expect(sleeps).toEqual([]);
    }
    script = [];
  });

  it("sends a new key per call, or the caller's own", async () => {
    script = [scored, scored, scored];
    const { pms } = client();
    await pms.score("https://acme.example");
    await pms.score("https://acme.example");
    await pms.score("https://acme.example", { idempotencyKey: "order-42" });
    const keys = seen.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("order-42");
  });

  it("retries a throttled startScore (GraphQL over HTTP) the same way, with the same key", async () => {
    const graphQLThrottled: Reply = {
      status: 200,
      headers: { "retry-after": "3" },
      body: {
        data: null,
        errors: [
          {
            message: "Too many score requests.",
            extensions: {
              code: "SCORING_RATE_LIMITED",
              action: "Retry after the number of seconds in the Retry-After header.",
              retryable: true,
            },
          },
        ],
      },
    };
    const started: Reply = {
      status: 200,
      body: {
        data: {
          startScore: {
            claimToken: null,
            job: {
              id: "j1",
              kind: "quick",
              status: "queued",
              createdAt: "2026-01-01T00:00:00.000Z",
              resultId: null,
              error: null,
            },
          },
        },
      },
    };
    script = [graphQLThrottled, started];
    const { pms, sleeps } = client();
    const answer = await pms.startScore("https://acme.example", { mode: "quick" });
    expect(answer.job.id).toBe("j1");
    expect(sleeps).toEqual([3_000]);
    expect(seen.map((request) => request.path)).toEqual(["/graphql", "/graphql"]);
    expect(seen[0]!.headers["idempotency-key"]).toBe(seen[1]!.headers["idempotency-key"]);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({
      operationName: "StartScore",
      variables: { input: { url: "https://acme.example", kind: "quick", context: null } },
    });

    script = [
      {
        status: 200,
        body: {
          data: null,
          errors: [
            {
              message: "Not enough credits.",
              extensions: { code: "CREDIT_EXHAUSTED", action: "Buy a score pack.", retryable: false },
            },
          ],
        },
      },
      started,
    ];
    seen.length = 0;
    expect(await refusal(pms.startScore("https://acme.example"))).toMatchObject({
      status: 402,
      code: "CREDIT_EXHAUSTED",
      retryable: false,
      attempts: 1,
    });
    expect(seen).toHaveLength(1);
    script = [];
  });

  it("tells an answer outside the contract and an unreachable service apart from refusals", async () => {
    script = [{ status: 502, headers: { "content-type": "text/html" }, raw: "<html>Bad gateway</html>" }];
    const { pms } = client();
    await expect(pms.usage()).rejects.toBeInstanceOf(PmsProtocolError);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = new PmsClient({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await nowhere.usage().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PmsNetworkError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});
