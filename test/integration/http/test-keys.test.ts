import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, graphqlClient, signIn, type CallInit } from "../../support/http.js";

/**
 * Test-mode keys (docs/api.md §14) through both doors: made on any plan outside
 * production, charged as a session is, and neither made nor accepted by a
 * production service, which shares the database here so that it sees the very key.
 */
let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

const api = (path: string, init: CallInit = {}) => apiClient(service)(path, init);

const CREATE = `mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { key { id prefix mode } secret } }`;

describe("test keys outside production", () => {
  it("are made on Free over REST, listed with their mode, and authenticate usage charging no API call", async () => {
    const free = await signIn(service, "free-test-key@example.com");
    const created = await api("/api/keys", {
      method: "POST",
      cookie: free.cookie,
      body: { name: "laptop", mode: "test" },
    });
    expect(created.status).toBe(201);
    const { key, secret } = await created.json();
    expect(secret).toMatch(/^pms_test_[0-9A-Za-z]{49}$/);
    expect(key).toMatchObject({ name: "laptop", mode: "test", prefix: secret.slice(0, 13) });
    expect(await (await api("/api/keys", { cookie: free.cookie })).json()).toEqual({ keys: [key] });

    for (let call = 0; call < 2; call += 1) {
      const usage = await api("/api/usage", { bearer: secret });
      expect(usage.status).toBe(200);
      expect(usage.headers.get("ratelimit-policy") ?? "").not.toContain("api-calls");
      // Charged as the account's session would be: Free has no API-call allowance, and nothing is spent.
      expect(await usage.json()).toMatchObject({ plan: "free", apiCalls: { limit: 0, used: 0 }, credits: { used: 0 } });
    }
  });

  it("are made on Free over GraphQL (mode: test), and authenticate GraphQL", async () => {
    const free = await signIn(service, "free-test-key-graphql@example.com");
    const graphql = graphqlClient(service);
    const created = await graphql(CREATE, { input: { name: "ci", mode: "test" } }, { cookie: free.cookie });
    expect(created.errors).toBeUndefined();
    const { key, secret } = created.data!.createApiKey;
    expect(key.mode).toBe("test");
    expect(secret).toMatch(/^pms_test_/);
    const usage = await graphql("{ usage { plan apiCalls { used } } }", {}, { bearer: secret });
    expect(usage).toEqual({ data: { usage: { plan: "free", apiCalls: { used: 0 } } } });
  });

  it("leave live keys as they were: the default mode, Business and Enterprise only (402 on Free over both doors)", async () => {
    const free = await signIn(service, "free-live-key@example.com");
    for (const body of [{ name: "k" }, { name: "k", mode: "live" }]) {
      const refused = await api("/api/keys", { method: "POST", cookie: free.cookie, body });
      expect(refused.status).toBe(402);
      expect((await refused.json()).error).toMatchObject({
        code: "PLAN_LIMIT_REACHED",
        action: expect.stringMatching(/test key/),
      });
    }
    const overGraphQL = await graphqlClient(service)(CREATE, { input: { name: "k" } }, { cookie: free.cookie });
    expect(overGraphQL.errors?.[0]?.extensions).toMatchObject({ code: "PLAN_LIMIT_REACHED" });

    const business = await signIn(service, "business-live-key@example.com");
    await service.app.database.dataSource.query("UPDATE accounts SET plan = 'business' WHERE id = $1", [
      business.accountId,
    ]);
    const live = await (
      await api("/api/keys", { method: "POST", cookie: business.cookie, body: { name: "k" } })
    ).json();
    expect(live.key.mode).toBe("live");
    expect(live.secret).toMatch(/^pms_live_/);
  });

  it("refuses an unknown mode naming the field, over both doors", async () => {
    const free = await signIn(service, "free-bad-mode@example.com");
    const rest = await api("/api/keys", { method: "POST", cookie: free.cookie, body: { name: "k", mode: "staging" } });
    expect(rest.status).toBe(400);
    expect((await rest.json()).error).toMatchObject({
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/mode/),
    });
    const graphql = await graphqlClient(service)(
      `mutation { createApiKey(input: {name: "k", mode: staging}) { secret } }`,
      {},
      { cookie: free.cookie },
    );
    expect(graphql.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/staging/),
      extensions: { code: "VALIDATION_FAILED" },
    });
    expect(await (await api("/api/keys", { cookie: free.cookie })).json()).toEqual({ keys: [] });
  });
});

describe("test keys in production", () => {
  it("are refused with 401 (and cannot be made: 400 naming mode), while live keys still work", async () => {
    // Keys made outside production, in the database a production service then opens.
    const free = await signIn(service, "free-goes-live@example.com");
    const testKey = (
      await (await api("/api/keys", { method: "POST", cookie: free.cookie, body: { name: "t", mode: "test" } })).json()
    ).secret as string;
    const business = await signIn(service, "business-goes-live@example.com");
    await service.app.database.dataSource.query("UPDATE accounts SET plan = 'business' WHERE id = $1", [
      business.accountId,
    ]);
    const liveKey = (
      await (await api("/api/keys", { method: "POST", cookie: business.cookie, body: { name: "l" } })).json()
    ).secret as string;

    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const production = await startTestApp({
      NODE_ENV: "production",
      DATABASE_URL: service.database!.url,
      SESSION_PUBLIC_KEY: await exportSPKI(publicKey),
      SESSION_ISSUER: "https://id.example",
      SESSION_AUDIENCE: "pms",
    });
    try {
      const call = apiClient(production);
      const graphql = graphqlClient(production);

      const refused = await call("/api/usage", { bearer: testKey });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error).toMatchObject({
        code: "AUTH_REQUIRED",
        message: "Test keys (pms_test_…) work only on a service outside production.",
      });
      const refusedOverGraphQL = await graphql("{ usage { plan } }", {}, { bearer: testKey });
      expect(refusedOverGraphQL.errors?.[0]).toMatchObject({
        message: "Test keys (pms_test_…) work only on a service outside production.",
        extensions: { code: "AUTH_REQUIRED" },
      });
      expect((await call("/api/usage", { bearer: liveKey })).status).toBe(200);

      const session = await new SignJWT({ sub: "user_prod", email: "prod@example.com" })
        .setProtectedHeader({ alg: "ES256" })
        .setIssuer("https://id.example")
        .setAudience("pms")
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(privateKey);
      const cookie = `__session=${session}`;
      const notMade = await call("/api/keys", { method: "POST", cookie, body: { name: "t", mode: "test" } });
      expect(notMade.status).toBe(400);
      expect((await notMade.json()).error).toMatchObject({
        code: "VALIDATION_FAILED",
        message: expect.stringMatching(/^mode: /),
      });
      const notMadeOverGraphQL = await graphql(CREATE, { input: { name: "t", mode: "test" } }, { cookie });
      expect(notMadeOverGraphQL.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/^mode: /),
        extensions: { code: "VALIDATION_FAILED" },
      });
      expect(await (await call("/api/keys", { cookie })).json()).toEqual({ keys: [] });
    } finally {
      await production.close();
    }
  });
});
