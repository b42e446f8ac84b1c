import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsApiError, PmsClient } from "../../../src/client/index.js";
import { graphQLRetryAfter } from "../../../src/client/retry.js";

/**
 * A GraphQL refusal's wait is `extensions.retryAfter` (seconds), read like a
 * Retry-After header: an anonymous caller's hour is not waited out nor sent
 * again, it is answered at once. A local server speaks GraphQL over HTTP with
 * no Retry-After header, so only the extension can say the wait.
 */

let server: Server;
let baseUrl: string;
let requests = 0;
let retryAfter: unknown = 3600;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          data: null,
          errors: [
            {
              message: "Anonymous scoring is limited to 1 per hour per address.",
              extensions: {
                code: "ANON_RATE_LIMIT",
                action: "Sign up, or retry after the wait.",
                retryable: true,
                retryAfter,
              },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function refused(client: PmsClient): Promise<PmsApiError> {
  const thrown = await client.startScore("https://acme.example", { mode: "quick" }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(PmsApiError);
  return thrown as PmsApiError;
}

describe("a GraphQL refusal's extensions.retryAfter", () => {
  it("of an hour: exactly one request, thrown at once with the wait in the message", async () => {
    requests = 0;
    retryAfter = 3600;
    const sleeps: number[] = [];
    const error = await refused(new PmsClient({ baseUrl, sleep: async (ms) => void sleeps.push(ms) }));
    expect(requests).toBe(1);
    expect(sleeps).toEqual([]);
    expect(error).toMatchObject({ status: 429, code: "ANON_RATE_LIMIT", retryAfterSeconds: 3600, attempts: 1 });
    expect(error.message).toMatch(/wait 3600 s \(1 h\)/);
  });

  it("within the longest wait: waited as a Retry-After would be, then sent again", async () => {
    requests = 0;
    retryAfter = 7;
    const sleeps: number[] = [];
    const error = await refused(
      new PmsClient({ baseUrl, retry: { jitter: 0 }, sleep: async (ms) => void sleeps.push(ms) }),
    );
    expect(requests).toBe(3);
    expect(sleeps).toEqual([7_000, 14_000]);
    expect(error.attempts).toBe(3);
  });

  it("reads seconds as a number or a numeric string, and ignores anything else", () => {
    expect(graphQLRetryAfter({ retryAfter: 3600 })).toBe(3600);
    expect(graphQLRetryAfter({ retryAfter: 2.5 })).toBe(3);
    expect(graphQLRetryAfter({ retryAfter: "60" })).toBe(60);
    expect(graphQLRetryAfter({ retryAfter: -1 })).toBeUndefined();
    expect(graphQLRetryAfter({ retryAfter: null })).toBeUndefined();
    expect(graphQLRetryAfter({})).toBeUndefined();
    expect(graphQLRetryAfter(undefined)).toBeUndefined();
  });
});
