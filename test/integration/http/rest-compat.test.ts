import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEALTHY, startTestApp, type TestApp } from "../../support/app.js";
import { HAS_CHROMIUM } from "../../support/browser.js";
import { rawRequest, type RawResponse } from "../../support/raw-http.js";

let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

const envelopeShape = {
  error: {
    code: expect.any(String),
    message: expect.any(String),
    action: expect.any(String),
    retryable: expect.any(Boolean),
    requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    docUrl: expect.stringMatching(/^\/docs#section\/Errors\/[A-Z_]+$/),
  },
};

describe("REST compatibility layer", () => {
  it("answers GET /api/health from the health operation with pass on a healthy database", async () => {
    const response = await fetch(`${service.url}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json();
    expect(body).toMatchObject({
      status: HEALTHY,
      version: service.config.version,
      checks: {
        database: { status: "pass", latencyMs: expect.any(Number), detail: "PostgreSQL answered" },
        auth: { status: "pass" },
        billing: { status: "pass" },
        scoring: { status: "pass", detail: "deterministic heuristic scorer" },
        environment: { status: "pass" },
        rendering: HAS_CHROMIUM
          ? { status: "pass", detail: expect.stringMatching(/^Chromium \d+/) }
          : { status: "warn", detail: expect.stringContaining("no browser") },
      },
    });
  });

  it("answers the prefix itself (/api, /api/) as an unknown REST path: the envelope, never cached", async () => {
    for (const path of ["/api", "/api/", "/api/?x=1", "/api/does-not-exist"]) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("cache-control"), path).toBe("no-store");
      expect(await response.json(), path).toMatchObject({ error: { code: "NOT_FOUND" } });
    }
  });

  it("gives every response a request id, errors included, and a fresh one per request", async () => {
    const ok = await fetch(`${service.url}/api/health`);
    const missing = await fetch(`${service.url}/api/does-not-exist`);
    const first = ok.headers.get("x-request-id");
    const second = missing.headers.get("x-request-id");
    expect(first).toMatch(/^req_[0-9a-f]{24}$/);
    expect(second).toMatch(/^req_[0-9a-f]{24}$/);
    expect(first).not.toBe(second);
  });

  it("answers an unknown /api path with a 404 NOT_FOUND envelope, whatever the method and body", async () => {
    const plain = await fetch(`${service.url}/api/nope?x=1`);
    expect(plain.status).toBe(404);
    expect(await plain.json()).toEqual({
      error: {
        code: "NOT_FOUND",
        message: "No route for GET /api/nope.",
        action: expect.any(String),
        retryable: false,
        requestId: plain.headers.get("x-request-id"),
        docUrl: "/docs#section/Errors/NOT_FOUND",
      },
    });
    const withBrokenBody = await fetch(`${service.url}/api/nope`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(withBrokenBody.status).toBe(404);
    expect((await withBrokenBody.json()).error.code).toBe("NOT_FOUND");
  });

  it("answers a wrong method on a known path with 405 and an Allow header", async () => {
    const response = await fetch(`${service.url}/api/health`, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: "{broken",
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const body = await response.json();
    expect(body).toMatchObject(envelopeShape);
    expect(body.error).toMatchObject({ code: "METHOD_NOT_ALLOWED", retryable: false });
  });

  it("answers OPTIONS with the allowed methods", async () => {
    const response = await fetch(`${service.url}/api/health`, { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers HEAD on a GET route without a body", async () => {
    const response = await fetch(`${service.url}/api/health`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });

  it("answers non-/api unknown paths with the same envelope, whatever the body", async () => {
    const response = await fetch(`${service.url}/wp-admin.php`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("NOT_FOUND");
    const withBrokenBody = await fetch(`${service.url}/wp-admin.php`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{broken",
    });
    expect(withBrokenBody.status).toBe(404);
    expect((await withBrokenBody.json()).error.code).toBe("NOT_FOUND");
  });
});

/** The envelope of a raw answer, after checking it is JSON of exactly Content-Length bytes. */
function envelopeOf(response: RawResponse) {
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body));
  const body = JSON.parse(response.body);
  expect(body).toEqual(envelopeShape);
  // The body names the same request as the header.
  expect(body.error.requestId).toBe(response.headers["x-request-id"]);
  return body.error as { code: string; message: string; retryable: boolean };
}

const requestTo = (method: string, path: string, extra = "") =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extra}\r\n`;

describe("a known path with a method it does not serve", () => {
  it.each(["TRACE", "PROPFIND", "QUERY", "MKCOL"])(
    "answers %s on a REST route with 405 and its Allow header",
    async (method) => {
      const response = await rawRequest(
        service.url,
        requestTo(method, "/api/health", "Content-Type: application/json\r\n"),
      );
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe("GET, HEAD, OPTIONS");
      expect(response.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{24}$/);
      expect(envelopeOf(response)).toMatchObject({
        code: "METHOD_NOT_ALLOWED",
        message: `${method} is not allowed on /api/health; allowed: GET, HEAD.`,
        retryable: false,
      });
    },
  );

  it("answers the same on /api/openapi.json, /docs and /graphql, without reading the body", async () => {
    const brokenBody = "Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{broken";
    for (const [method, path, allow] of [
      ["PUT", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["PATCH", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["POST", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["DELETE", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["TRACE", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["POST", "/docs", "GET, HEAD, OPTIONS"],
      ["PUT", "/graphql", "GET, POST, HEAD, OPTIONS"],
    ] as const) {
      const response = await rawRequest(service.url, requestTo(method, path).slice(0, -2) + brokenBody);
      expect({
        method,
        path,
        status: response.status,
        allow: response.headers.allow,
        code: envelopeOf(response).code,
      }).toEqual({
        method,
        path,
        status: 405,
        allow,
        code: "METHOD_NOT_ALLOWED",
      });
    }
  });

  it("answers OPTIONS on /api/openapi.json, /docs and /graphql with 204 and Allow, like the REST routes", async () => {
    for (const [path, allow] of [
      ["/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["/docs", "GET, HEAD, OPTIONS"],
      ["/graphql", "GET, POST, HEAD, OPTIONS"],
    ] as const) {
      const response = await fetch(`${service.url}${path}`, { method: "OPTIONS" });
      expect({ path, status: response.status, allow: response.headers.get("allow") }).toEqual({
        path,
        status: 204,
        allow,
      });
    }
  });

  it("still answers 404 for a method the path serves when the path names nothing (an over-long id)", async () => {
    for (const path of [`/api/score/${"a".repeat(120)}`, `/r/${"a".repeat(120)}`]) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
      expect(await response.json()).toMatchObject({
        error: { code: "NOT_FOUND", message: `No route for GET ${path}.` },
      });
    }
  });
});

describe("requests refused before any route runs", () => {
  it.each(["/api/score/%ZZ", "/api/score/%FF", "/api/score/%C0%AF", "/%ZZ"])(
    "refuses the malformed percent-encoding in %s as 400 naming the path",
    async (path) => {
      const response = await rawRequest(service.url, requestTo("GET", path));
      expect(response.status).toBe(400);
      expect(response.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{24}$/);
      expect(envelopeOf(response)).toMatchObject({
        code: "VALIDATION_FAILED",
        message: `path: ${path} holds malformed percent-encoding.`,
        retryable: false,
      });
    },
  );

  it.each([
    [
      "headers over 16 KiB",
      requestTo("GET", "/api/health", `X-Filler: ${"a".repeat(17_000)}\r\n`),
      431,
      "PAYLOAD_TOO_LARGE",
    ],
    ["a URL over 16 KiB", requestTo("GET", `/api/health?q=${"a".repeat(17_000)}`), 431, "PAYLOAD_TOO_LARGE"],
    [
      "a Content-Length that is not a number",
      requestTo("POST", "/graphql", "Content-Length: abc\r\n"),
      400,
      "VALIDATION_FAILED",
    ],
    [
      "both Content-Length and Transfer-Encoding",
      requestTo("POST", "/graphql", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n",
      400,
      "VALIDATION_FAILED",
    ],
    [
      "a control character in a header",
      requestTo("GET", "/api/health", "X-Name: a\u0001b\r\n"),
      400,
      "VALIDATION_FAILED",
    ],
    ["HTTP/9.9", "GET /api/health HTTP/9.9\r\nHost: localhost\r\n\r\n", 400, "VALIDATION_FAILED"],
    ["bytes that are not HTTP", "\u0000\u0001garbage\r\n\r\n", 400, "VALIDATION_FAILED"],
  ])("answers %s with the envelope and closes the connection", async (_case, request, status, code) => {
    const response = await rawRequest(service.url, request);
    expect(response.status).toBe(status);
    expect(response.headers.connection).toBe("close");
    expect(response.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{24}$/);
    expect(envelopeOf(response)).toMatchObject({ code, retryable: false });
  });
});

describe("a body the operation's variables refuse", () => {
  it("is answered in the body's terms, naming the field (not GraphQL's variable message)", async () => {
    const login = await fetch(`${service.url}/dev/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "fields@rest.test" }),
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${service.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { error: { code: string; message: string } };
      return { status: response.status, code: answer.error.code, message: answer.error.message };
    };
    const refused = (message: string) => ({ status: 400, code: "VALIDATION_FAILED", message });
    expect(await post("/api/keys", {})).toEqual(refused("name: is required"));
    expect(await post("/api/keys", { name: null })).toEqual(refused("name: is required"));
    expect(await post("/api/keys", { name: 5 })).toEqual(refused("name: must be a string (got 5)"));
    expect(await post("/api/score/quick", {})).toEqual(refused("url: is required"));
    expect(await post("/api/score/quick", { url: "https://example.com", context: { a: 1 } })).toEqual(
      refused("context: must be a string (got { a: 1 })"),
    );
    expect(await post("/api/billing/checkout", { plan: "PRO" })).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/^plan: must be one of [a-z_]+(, [a-z_]+)+ \(got "PRO"\)$/),
    });
  });
});
