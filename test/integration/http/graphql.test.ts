import { print } from "graphql";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { HealthStatusOnlyDocument, type HealthStatusOnlyQuery } from "../../generated/operations.js";
import { HEALTHY, startTestApp, type TestApp } from "../../support/app.js";

let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

async function postGraphQL(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("GraphQL over HTTP", () => {
  it("answers a typed operation with exactly the fields asked for", async () => {
    const response = await postGraphQL({ query: print(HealthStatusOnlyDocument) });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await response.json()) as { data: HealthStatusOnlyQuery };
    expect(body).toEqual({ data: { health: { status: HEALTHY } } });
  });

  it("reports a document error with the catalogue's code, action and retryable", async () => {
    const response = await postGraphQL({ query: "{ health { nope } }" });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0]).toMatchObject({
      message: 'Cannot query field "nope" on type "Health".',
      extensions: { code: "VALIDATION_FAILED", action: expect.any(String), retryable: false },
    });
    expect(JSON.stringify(body)).not.toMatch(/stacktrace|at \w+ \(/);
  });

  it("refuses malformed JSON with a 400 VALIDATION_FAILED envelope", async () => {
    const response = await postGraphQL('{"query": "{ health { status } }"');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "VALIDATION_FAILED", message: "body: is not valid JSON.", retryable: false },
    });
  });

  it("refuses prototype-polluting bodies, saying so rather than calling valid JSON invalid", async () => {
    for (const body of [
      '{"query": "{ health { status } }", "__proto__": {"polluted": true}}',
      '{"query": "{ health { status } }", "extensions": {"deep": [{"constructor": {"prototype": {"polluted": true}}}]}}',
      '{"query": "{ health { status } }", "extensions": {"\\u005f_proto__": {"polluted": true}}}',
    ]) {
      const response = await postGraphQL(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: {
          code: "VALIDATION_FAILED",
          message: "body: contains a forbidden key (__proto__ or constructor.prototype).",
          retryable: false,
        },
      });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A key merely named "constructor" is fine.
    const harmless = await postGraphQL(
      '{"query": "{ health { status } }", "extensions": {"constructor": {"name": "x"}}}',
    );
    expect(harmless.status).toBe(200);
  });

  it("refuses an empty JSON body naming it", async () => {
    const response = await postGraphQL("");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "VALIDATION_FAILED", message: "body: is empty; send a JSON object." },
    });
  });

  it("refuses a body over 64 KiB with a 413 envelope before parsing it", async () => {
    const query = `{ health { status } } # ${"x".repeat(64 * 1024)}`;
    const response = await postGraphQL({ query });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE", retryable: false } });
  });

  it("refuses a non-JSON body with 415", async () => {
    const response = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "query=%7B%20health%20%7B%20status%20%7D%20%7D",
    });
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("sends a browser opening /graphql to the self-hosted GraphiQL, not a CDN", async () => {
    const response = await fetch(`${service.url}/graphql`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("url=/graphiql");
    expect(html).not.toMatch(/https?:\/\//);
  });
});

describe("GraphQL over WebSocket (graphql-ws) on the same path", () => {
  it("executes operations over a graphql-transport-ws connection at /graphql", async () => {
    const client = createClient({
      url: `${service.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        client.subscribe(
          { query: print(HealthStatusOnlyDocument) },
          { next: (data) => (value = data), error: reject, complete: () => resolve(value) },
        );
      });
      expect(result).toEqual({ data: { health: { status: HEALTHY } } });
    } finally {
      await client.dispose();
    }
  });

  it("reports errors over the socket in the catalogue's shape", async () => {
    const client = createClient({
      url: `${service.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: "{ health { nope } }" },
          { next: () => undefined, error: resolve, complete: () => resolve("completed") },
        );
      });
      expect(errors).toEqual([
        expect.objectContaining({
          message: 'Cannot query field "nope" on type "Health".',
          extensions: expect.objectContaining({
            code: "VALIDATION_FAILED",
            action: expect.any(String),
            retryable: false,
          }),
        }),
      ]);
    } finally {
      await client.dispose();
    }
  });

  it("refuses WebSocket upgrades on any other path", async () => {
    const socket = new WebSocket(`${service.url.replace("http", "ws")}/elsewhere`, "graphql-transport-ws");
    const outcome = await new Promise<string>((resolve) => {
      socket.on("unexpected-response", (_request, response) => resolve(`status ${response.statusCode}`));
      socket.on("open", () => resolve("open"));
      socket.on("error", (error) => resolve(`error ${error.message}`));
    });
    expect(outcome).toMatch(/404/);
  });
});

describe("a mutation over GET", () => {
  it("is 405 METHOD_NOT_ALLOWED with Allow: POST, in its code as in its status", async () => {
    const query = encodeURIComponent('mutation { createApiKey(input: { name: "x" }) { key { id } } }');
    const response = await fetch(`${service.url}/graphql?query=${query}`, {
      headers: { "apollo-require-preflight": "true" },
    });
    const body = (await response.json()) as { errors?: Array<{ message: string; extensions: { code: string } }> };
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(body.errors?.[0]?.extensions.code).toBe("METHOD_NOT_ALLOWED");
    expect(body.errors?.[0]?.message).not.toMatch(/\n$/);
  });
});
