import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.js";

let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

const envelopeShape = {
  error: { code: expect.any(String), message: expect.any(String), action: expect.any(String), retryable: expect.any(Boolean) },
};

describe("REST compatibility layer", () => {
  it("answers GET /api/health from the health operation with pass on a healthy database", async () => {
    const response = await fetch(`${service.url}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json();
    expect(body).toMatchObject({
      status: "pass",
      version: service.config.version,
      checks: {
        database: { status: "pass", latencyMs: expect.any(Number), detail: "PostgreSQL answered" },
        auth: { status: "pass" },
        billing: { status: "pass" },
        scoring: { status: "pass", detail: "deterministic heuristic scorer" },
        environment: { status: "pass" },
      },
    });
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
      error: { code: "NOT_FOUND", message: "No route for GET /api/nope.", action: expect.any(String), retryable: false },
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

  it("answers non-/api unknown paths with the same envelope", async () => {
    const response = await fetch(`${service.url}/wp-admin.php`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("NOT_FOUND");
  });
});
