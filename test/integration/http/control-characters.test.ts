import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { apiClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * NUL and other control characters in any string a caller sends answer 400
 * VALIDATION_FAILED naming the field, on every door, and nothing runs: no charge,
 * no job, no row. (PostgreSQL cannot store U+0000; these used to be 500s.)
 */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let ada: Caller;

beforeAll(async () => {
  service = await startScoringApp();
  api = apiClient(service);
  ada = await signIn(service, "ada@control.test");
  await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'business' WHERE id = $1`, [ada.accountId]);
});
afterAll(() => service?.close());

async function expectRefused(response: Response, field: string) {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(400);
  expect(body.error).toMatchObject({ code: "VALIDATION_FAILED", retryable: false });
  expect(body.error.message).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}: must not contain control characters`));
}

const jobs = async () => Number((await service.app.database.dataSource.query(`SELECT count(*) AS n FROM score_jobs`))[0].n);

describe("control characters in a REST body, query or path", () => {
  it.each([
    ["/api/score", { url: "https://example.com/\u0000" }, "url"],
    ["/api/score", { url: "https://example.com/", context: "We sell\u0000 widgets" }, "context"],
    ["/api/score/quick", { url: "https://exa\u0007mple.com/" }, "url"],
    ["/api/score/product", { url: "https://example.com/\u001b[31m" }, "url"],
    ["/api/keys", { name: "ci\u0000key" }, "name"],
    ["/api/members/invitations", { email: "bob@example.com\u0000" }, "email"],
    ["/api/score/link", { resultId: "x", claimToken: "clm_\u0000" }, "claimToken"],
    ["/api/billing/checkout", { plan: "pro\u007f" }, "plan"],
  ])("POST %s %j → 400 naming %s, charging nothing", async (path, body, field) => {
    const before = await jobs();
    await expectRefused(await api(path, { method: "POST", cookie: ada.cookie, body }), field);
    expect(await jobs()).toBe(before);
  });

  it("an anonymous score and /dev/login too", async () => {
    await expectRefused(await api("/api/score", { method: "POST", body: { url: "https://example.com/\u0000" } }), "url");
    await expectRefused(await api("/dev/login", { method: "POST", body: { email: "eve\u0000@example.com" } }), "email");
    await expectRefused(await api("/dev/login", { method: "POST", body: { email: "eve@example.com", name: "Eve\u0000" } }), "name");
  });

  it("names nested fields and keys, and reads query strings and path parameters", async () => {
    await expectRefused(await api("/api/score", { method: "POST", cookie: ada.cookie, body: { url: "https://example.com/", extra: { list: ["ok", "b\u0000ad"] } } }), "extra.list[1]");
    await expectRefused(await api("/api/scores?cursor=%00abc", { cookie: ada.cookie }), "cursor");
    await expectRefused(await api("/api/score/%00", {}), "id");
  });

  it("leaves tabs and line breaks alone (free text may hold them)", async () => {
    const response = await api("/api/score/quick", { method: "POST", cookie: ada.cookie, body: { url: service.siteUrl("maker.test"), context: "Line one\n\tLine two\r\n" } });
    expect(response.status).toBe(200);
  });
});

describe("control characters over GraphQL", () => {
  const graphql = (query: string, variables?: Record<string, unknown>) =>
    api("/graphql", { method: "POST", cookie: ada.cookie, body: { query, ...(variables ? { variables } : {}) } });

  it("in variables: refused naming the variable's field, nothing runs", async () => {
    const before = await jobs();
    const response = await graphql(`mutation ($input: ScoreInput!) { quickScore(input: $input) { job { id } } }`, { input: { url: "https://example.com/\u0000" } });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.errors?.[0]).toMatchObject({ extensions: { code: "VALIDATION_FAILED" } });
    expect(body.errors[0].message).toMatch(/^input\.url: must not contain control characters/);
    expect(body.data ?? null).toBeNull();
    expect(await jobs()).toBe(before);
  });

  it("in literals written into the document: refused naming the argument", async () => {
    const response = await graphql(`mutation { createApiKey(input: { name: "a\\u0000b" }) { key { id } } }`);
    const body = await response.json();
    expect(body.errors?.[0]).toMatchObject({ extensions: { code: "VALIDATION_FAILED" } });
    expect(body.errors[0].message).toMatch(/^input\.name: must not contain control characters/);
    expect((await (await api("/api/keys", { cookie: ada.cookie })).json()).keys ?? []).toEqual([]);
  });

  it("over graphql-ws: refused before anything runs", async () => {
    const client = createClient({ url: service.url.replace(/^http/, "ws") + "/graphql", webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    try {
      const outcome = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: `subscription ($id: ID!) { scoreProgress(jobId: $id) { status } }`, variables: { id: "abc\u0000" } },
          { next: (value) => resolve(value), error: (error) => resolve(error), complete: () => resolve("complete") },
        );
      });
      expect(JSON.stringify(outcome)).toMatch(/VALIDATION_FAILED/);
    } finally {
      await client.dispose();
    }
  });
});
