import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../../rest-compat/routes.js";
import { API_VERSIONS, CURRENT_API_VERSION } from "../../../src/api-versions.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { keyedMember } from "../../support/api-key.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";

/**
 * API hygiene (docs/api.md §4, §11, §14) through both doors: unknown body fields are
 * refused, the error envelope names its field, request and reference, every answer
 * names its API version, and cross-origin access follows the route's credential.
 */
const APP_ORIGIN = "https://app.example.com";
let service: TestApp;
beforeAll(async () => {
  service = await startTestApp({ CORS_ORIGINS: `${APP_ORIGIN}, https://admin.example.com` });
});
afterAll(() => service?.close());

const api = (path: string, init: Parameters<ReturnType<typeof apiClient>>[1] = {}) => apiClient(service)(path, init);
const someId = "00000000-0000-4000-8000-000000000000";
const docUrl = (code: string) => `/docs#section/Errors/${code}`;

describe("a body field the route does not know", () => {
  it("is refused with 400 VALIDATION_FAILED naming it, on every route that takes a body, before anything runs", async () => {
    const withBody = restRoutes.filter((row) => row.method === "POST" || row.method === "PATCH");
    expect(withBody.length).toBeGreaterThan(10);
    for (const row of withBody) {
      const path = row.path.replace(/:[A-Za-z]+/g, someId);
      // No credential: the refusal comes before the operation, so before its authentication.
      const response = await api(path, { method: row.method, body: { colour: "red" } });
      const where = `${row.method} ${row.path}`;
      expect(response.status, where).toBe(400);
      const { error } = await response.json();
      expect(error, where).toMatchObject({ code: "VALIDATION_FAILED", param: "colour" });
      expect(error.message, where).toMatch(/^colour: /);
    }
  });

  it("costs a key caller nothing: no API call, no score, no rate-limit count", async () => {
    const caller = await keyedMember(service, "unknown-fields@example.com");
    const refused = await api("/api/score", {
      method: "POST",
      bearer: caller.apiKey,
      body: { url: "https://example.com", colour: "red" },
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: {
        code: "VALIDATION_FAILED",
        message: "colour: is not a field of this request; it takes context, url",
        action: expect.any(String),
        retryable: false,
        param: "colour",
        requestId: refused.headers.get("x-request-id"),
        docUrl: docUrl("VALIDATION_FAILED"),
      },
    });
    expect(refused.headers.get("ratelimit")).toBeNull();
    const usage = await (await api("/api/usage", { bearer: caller.apiKey })).json();
    // The usage read itself is the only call charged.
    expect(usage.apiCalls.used).toBe(1);
    expect(usage.scores.used).toBe(0);
  });

  it("is refused by the GraphQL door too, as VALIDATION_FAILED in the same extensions", async () => {
    const literal = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation { quickScore(input: { url: "https://example.com", colour: "red" }) { job { id } } }`,
      }),
    });
    expect(literal.status).toBe(400);
    const literalError = (await literal.json()).errors[0];
    expect(literalError.message).toMatch(/Field "colour" is not defined by type "ScoreInput"/);
    expect(literalError.extensions).toMatchObject({
      code: "VALIDATION_FAILED",
      retryable: false,
      param: "colour",
      requestId: literal.headers.get("x-request-id"),
      docUrl: docUrl("VALIDATION_FAILED"),
    });

    const variables = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation ($input: ScoreInput!) { quickScore(input: $input) { job { id } } }`,
        variables: { input: { url: "https://example.com", colour: "red" } },
      }),
    });
    expect(variables.status).toBe(400);
    expect((await variables.json()).errors[0].extensions).toEqual({
      code: "VALIDATION_FAILED",
      action: expect.any(String),
      retryable: false,
      param: "colour",
      requestId: variables.headers.get("x-request-id"),
      docUrl: docUrl("VALIDATION_FAILED"),
    });
  });
});

describe("the error envelope", () => {
  it("names the one field at fault in `param` on both doors", async () => {
    const caller = await keyedMember(service, "param@example.com");
    const rest = await api("/api/webhooks", { method: "POST", bearer: caller.apiKey, body: { url: "http://x.test" } });
    expect(rest.status).toBe(400);
    expect((await rest.json()).error).toMatchObject({ code: "VALIDATION_FAILED", param: "url" });
    const graphql = await graphqlClient(service)(
      `mutation { createWebhook(input: { url: "http://x.test" }) { secret } }`,
      {},
      { bearer: caller.apiKey },
    );
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: "VALIDATION_FAILED", param: "url" });
  });

  it("carries requestId (the X-Request-Id) and docUrl on every kind of refusal", async () => {
    const cases: Array<[string, Promise<Response>, string]> = [
      ["404", api("/api/nothing-here"), "NOT_FOUND"],
      ["405", api("/api/health", { method: "DELETE" }), "METHOD_NOT_ALLOWED"],
      ["404 outside /api", api("/nothing-here"), "NOT_FOUND"],
      [
        "malformed JSON",
        fetch(`${service.url}/api/score`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{",
        }),
        "VALIDATION_FAILED",
      ],
      ["body too large", api("/api/score", { method: "POST", body: { url: "x".repeat(70_000) } }), "PAYLOAD_TOO_LARGE"],
      ["a resolver's refusal", api("/api/usage"), "AUTH_REQUIRED"],
    ];
    for (const [name, pending, code] of cases) {
      const response = await pending;
      const { error } = await response.json();
      expect(error, name).toMatchObject({
        code,
        requestId: response.headers.get("x-request-id"),
        docUrl: docUrl(code),
      });
      expect(error.requestId, name).toMatch(/^req_/);
    }
  });

  it("names the request in a GraphQL error's extensions, also when Apollo refuses before any operation runs", async () => {
    const executed = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ usage { apiCalls { used } } }" }),
    });
    const noQuery = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variables: {} }),
    });
    for (const response of [executed, noQuery]) {
      const { errors } = await response.json();
      expect(errors[0].extensions).toMatchObject({
        code: expect.any(String),
        requestId: response.headers.get("x-request-id"),
        docUrl: expect.stringMatching(/^\/docs#section\/Errors\/[A-Z_]+$/),
      });
    }
  });
});

describe("Pms-Version", () => {
  it("is echoed on every answer: the newest without a header, the one sent with it, on both doors", async () => {
    expect(CURRENT_API_VERSION).toBe(API_VERSIONS[0]!.version);
    for (const path of ["/api/health", "/api/nothing-here", "/api/openapi.json"]) {
      expect((await api(path)).headers.get("pms-version"), path).toBe(CURRENT_API_VERSION);
    }
    const sent = await api("/api/health", { headers: { "pms-version": CURRENT_API_VERSION } });
    expect(sent.headers.get("pms-version")).toBe(CURRENT_API_VERSION);
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "pms-version": CURRENT_API_VERSION },
      body: JSON.stringify({ query: "{ health { status } }" }),
    });
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get("pms-version")).toBe(CURRENT_API_VERSION);
  });

  it("refuses an unknown version with 400 VALIDATION_FAILED naming the header and the known versions", async () => {
    const rest = await api("/api/usage", { headers: { "pms-version": "2019-01-01" } });
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "pms-version": "latest" },
      body: JSON.stringify({ query: "{ health { status } }" }),
    });
    for (const response of [rest, graphql]) {
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error).toMatchObject({ code: "VALIDATION_FAILED", param: "Pms-Version" });
      expect(error.message).toContain(`known versions: ${CURRENT_API_VERSION}`);
    }
  });

  it("pins each new account to the newest version, and answers an authenticated request with its account's", async () => {
    const caller = await keyedMember(service, "pinned@example.com");
    const sql = service.app.database.dataSource;
    const [row] = await sql.query("SELECT api_version FROM accounts WHERE id = $1", [caller.accountId]);
    expect(row.api_version).toBe(CURRENT_API_VERSION);
    // Another pin (as an older release would be), read through each kind of credential.
    await sql.query("UPDATE accounts SET api_version = '2026-01-01' WHERE id = $1", [caller.accountId]);
    expect((await api("/api/usage", { bearer: caller.apiKey })).headers.get("pms-version")).toBe("2026-01-01");
    expect((await api("/api/usage", { cookie: caller.cookie })).headers.get("pms-version")).toBe("2026-01-01");
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${caller.apiKey}` },
      body: JSON.stringify({ query: "{ usage { apiCalls { used } } }" }),
    });
    expect(graphql.headers.get("pms-version")).toBe("2026-01-01");
    // A version sent wins over the pin.
    const sent = await api("/api/usage", { bearer: caller.apiKey, headers: { "pms-version": CURRENT_API_VERSION } });
    expect(sent.headers.get("pms-version")).toBe(CURRENT_API_VERSION);
  });
});

describe("CORS", () => {
  const preflight = (path: string, origin: string, method: string) =>
    fetch(`${service.url}${path}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization, content-type, pms-version",
      },
    });

  it("lets any origin read the public GETs, without credentials", async () => {
    for (const path of ["/api/health", "/api/lifecycle/stages", "/api/openapi.json", `/api/score/${someId}`]) {
      const response = await api(path, { headers: { origin: "https://anyone.example" } });
      expect(response.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(response.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
    const answered = await preflight("/api/health", "https://anyone.example", "GET");
    expect(answered.status).toBe(204);
    expect(answered.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers a configured origin's preflight and key requests on key routes, exposing the headers a client reads", async () => {
    const answered = await preflight("/api/score", APP_ORIGIN, "POST");
    expect(answered.status).toBe(204);
    expect(answered.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(answered.headers.get("access-control-allow-methods")).toBe("POST");
    expect(answered.headers.get("access-control-allow-headers")).toBe(
      "Authorization, Content-Type, Idempotency-Key, Pms-Version",
    );
    expect(answered.headers.get("access-control-allow-credentials")).toBeNull();
    expect(answered.headers.get("vary")).toMatch(/Origin/);

    const caller = await keyedMember(service, "cors@example.com");
    const response = await api("/api/usage", { bearer: caller.apiKey, headers: { origin: APP_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(response.headers.get("vary")).toMatch(/Origin/);
    const exposed = response.headers.get("access-control-expose-headers")!.split(", ");
    for (const name of [
      "Retry-After",
      "RateLimit",
      "RateLimit-Policy",
      "X-Request-Id",
      "Pms-Version",
      "Idempotent-Replayed",
    ])
      expect(exposed).toContain(name);

    // /graphql likewise.
    expect((await preflight("/graphql", APP_ORIGIN, "POST")).headers.get("access-control-allow-origin")).toBe(
      APP_ORIGIN,
    );
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${caller.apiKey}`, origin: APP_ORIGIN },
      body: JSON.stringify({ query: "{ usage { apiCalls { used } } }" }),
    });
    expect(graphql.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
  });

  it("gives an origin not configured no CORS headers, and a refusal to it none either", async () => {
    const refusedPreflight = await preflight("/api/usage", "https://evil.example", "GET");
    expect(refusedPreflight.headers.get("access-control-allow-origin")).toBeNull();
    const response = await api("/api/usage", { headers: { origin: "https://evil.example" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(response.headers.get("vary")).toMatch(/Origin/);
  });

  it("never lets a session cookie's request, or a session-only route, be read cross-origin", async () => {
    const member = await signIn(service, "cors-session@example.com");
    const withCookie = await api("/api/usage", { cookie: member.cookie, headers: { origin: APP_ORIGIN } });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("access-control-allow-origin")).toBeNull();
    expect(withCookie.headers.get("access-control-allow-credentials")).toBeNull();
    // Creating a key takes a session only: no preflight passes, even from a configured origin.
    const sessionOnly = await preflight("/api/keys", APP_ORIGIN, "POST");
    expect(sessionOnly.headers.get("access-control-allow-origin")).toBeNull();
    // The same path's key-readable method does.
    expect((await preflight("/api/keys", APP_ORIGIN, "GET")).headers.get("access-control-allow-methods")).toBe("GET");
  });
});
