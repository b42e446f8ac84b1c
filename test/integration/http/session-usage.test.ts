import { print } from "graphql";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountUsageDocument } from "../../generated/operations.js";
import { pino } from "pino";
import { createApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { createTestDatabase } from "../../support/database.js";

/**
 * Sign-in through the local identity provider, then the caller's usage over both
 * doors: the same operation, the same answer, the same errors.
 */
let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

async function login(email: string, name?: string) {
  const response = await fetch(`${service.url}/dev/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, name }),
  });
  const cookie = response.headers.get("set-cookie") ?? "";
  return { response, body: await response.json(), cookie: cookie.split(";")[0]! };
}

const graphql = (cookie: string | undefined, query: string) =>
  fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ query }),
  });

describe("signing in with the local identity provider", () => {
  it("sets a signed, HttpOnly session cookie and creates a Free account on first sign-in only", async () => {
    const first = await login("Founder@Example.com", "Fran Founder");
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get("set-cookie")).toMatch(
      /^__session=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/,
    );
    expect(first.body).toEqual({
      user: { id: expect.any(String), email: "founder@example.com" },
      accountId: expect.any(String),
    });

    const again = await login("founder@example.com");
    expect(again.body.accountId).toBe(first.body.accountId);
    const other = await login("someone-else@example.com");
    expect(other.body.accountId).not.toBe(first.body.accountId);
  });

  it("refuses a missing or malformed e-mail with VALIDATION_FAILED", async () => {
    const missing = await fetch(`${service.url}/dev/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatchObject({ code: "VALIDATION_FAILED", message: "email: is required" });
    const malformed = await login("not-an-address");
    expect(malformed.response.status).toBe(400);
  });
});

describe("usage of the caller's account", () => {
  it("answers the same figures over REST and GraphQL for a new Free account", async () => {
    const { cookie } = await login("usage@example.com");
    const rest = await fetch(`${service.url}/api/usage`, { headers: { cookie } });
    expect(rest.status).toBe(200);
    const usage = await rest.json();
    expect(usage).toMatchObject({
      plan: "free",
      period: { start: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), end: expect.any(String) },
      credits: { limit: 80, used: 0, remaining: 80, packBalance: 0 },
      scores: { limit: 3, used: 0 },
      chatMessages: { limit: 30, used: 0 },
      apiCalls: { limit: 0, used: 0 },
      products: { limit: 1, used: 0 },
      seats: { limit: 1, used: 1 },
    });

    const response = await graphql(cookie, print(AccountUsageDocument));
    expect(await response.json()).toEqual({
      data: {
        usage: {
          plan: "free",
          credits: usage.credits,
          scores: usage.scores,
          seats: usage.seats,
        },
      },
    });
  });

  it("answers 401 AUTH_REQUIRED without a session, on both doors", async () => {
    const rest = await fetch(`${service.url}/api/usage`);
    expect(rest.status).toBe(401);
    expect(await rest.json()).toEqual({
      error: {
        code: "AUTH_REQUIRED",
        message: "This operation needs a signed-in session or an API key.",
        action: expect.any(String),
        retryable: false,
        requestId: rest.headers.get("x-request-id"),
        docUrl: "/docs#section/Errors/AUTH_REQUIRED",
      },
    });
    const body = await (await graphql(undefined, "{ usage { plan } }")).json();
    expect(body.errors[0].extensions).toMatchObject({ code: "AUTH_REQUIRED", retryable: false });
    expect(body.data).toBeNull();
  });

  it("answers 401 for a forged or tampered session instead of treating it as anonymous", async () => {
    const { cookie } = await login("tamper@example.com");
    const [header, payload] = cookie.replace("__session=", "").split(".");
    const forged = `__session=${header}.${payload}.c2lnbmF0dXJl`;
    const rest = await fetch(`${service.url}/api/usage`, { headers: { cookie: forged } });
    expect(rest.status).toBe(401);
    expect((await rest.json()).error).toMatchObject({ code: "AUTH_REQUIRED", message: "session signature invalid" });
  });

  it("keeps public operations public whatever the cookie says", async () => {
    const health = await fetch(`${service.url}/api/health`, { headers: { cookie: "__session=garbage" } });
    expect(health.status).toBe(200);
  });
});

describe("development stand-ins (/dev/login, /dev/checkout)", () => {
  it("are on only without an identity provider outside production, with a warning at boot while they are", async () => {
    const logged: Array<{ level: number; msg: string }> = [];
    const sink = { write: (line: string) => void logged.push(JSON.parse(line)) };
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const spki = await exportSPKI(publicKey);
    for (const [env, on] of [
      [{ NODE_ENV: "development" }, true],
      [{ NODE_ENV: "development", SESSION_PUBLIC_KEY: spki, SESSION_ISSUER: "https://id.example" }, false],
      [
        {
          NODE_ENV: "production",
          SESSION_PUBLIC_KEY: spki,
          SESSION_ISSUER: "https://id.example",
          SESSION_AUDIENCE: "pms",
        },
        false,
      ],
    ] as const) {
      logged.length = 0;
      const database = await createTestDatabase();
      const config = loadConfig({ LOG_LEVEL: "info", DATABASE_URL: database.url, ...env });
      const app = await createApp(config, pino({ level: "info" }, sink));
      try {
        const url = await app.listen(0, "127.0.0.1");
        const login = await fetch(`${url}/dev/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"email":"a@b.co"}',
        });
        // An unknown checkout is 404 either way: whether the route exists shows in the message.
        const checkout = await (await fetch(`${url}/dev/checkout/cs_local_x`)).json();
        const warned = logged.some((line) => line.level === 40 && /^development stand-ins are on/.test(line.msg));
        expect({
          env: env.NODE_ENV,
          provider: "SESSION_PUBLIC_KEY" in env,
          login: login.status === 200,
          checkout: !/^No route for/.test(checkout.error.message),
          warned,
        }).toEqual({
          env: env.NODE_ENV,
          provider: "SESSION_PUBLIC_KEY" in env,
          login: on,
          checkout: on,
          warned: on,
        });
      } finally {
        await app.close();
        await database.drop();
      }
    }
  });
});

describe("in production", () => {
  it("health shows every component's status to everyone, but provider modes, hosts and models only to an operator", async () => {
    const operatorToken = "op_" + "x".repeat(40);
    const production = await startTestApp({
      NODE_ENV: "production",
      SESSION_JWKS_URL: "https://id.example/.well-known/jwks.json",
      SESSION_ISSUER: "https://id.example",
      SESSION_AUTHORIZED_PARTIES: "https://app.example",
      OPENAI_API_KEY: "sk-test-secret",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      SCORING_MODEL: "gpt-test-model",
      OPERATOR_TOKEN: operatorToken,
    });
    try {
      const health = async (headers: Record<string, string> = {}) =>
        (await fetch(`${production.url}/api/health`, { headers })).json();
      const publicView = await health();
      expect(publicView.checks).toMatchObject({
        database: { status: "pass", detail: "available", latencyMs: expect.any(Number) },
        auth: { status: "pass", detail: "available" },
        scoring: { status: "pass", detail: "available" },
        billing: { status: "warn", detail: "degraded" },
        environment: { status: "warn", detail: "degraded" },
      });
      const text = JSON.stringify(publicView);
      for (const secret of ["id.example", "gpt-test-model", "127.0.0.1", "Stripe", "PostgreSQL", "REDIS_URL"])
        expect(text).not.toContain(secret);
      // Over GraphQL too, and a wrong token shows nothing more.
      const graphql = await fetch(`${production.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-operator-token": "op_wrong" },
        body: JSON.stringify({ query: "{ health { checks { scoring { detail } } } }" }),
      });
      expect((await graphql.json()).data.health.checks.scoring.detail).toBe("available");

      const operatorView = await health({ "x-operator-token": operatorToken });
      expect(operatorView.checks.scoring.detail).toBe("LLM scorer: model gpt-test-model via 127.0.0.1:9");
      expect(operatorView.checks.auth.detail).toMatch(/id\.example/);
      expect(operatorView.checks.environment.detail).toMatch(/REDIS_URL/);
    } finally {
      await production.close();
    }
  });

  it("refuses a validly signed session the identity provider minted for another application (AUTH_REQUIRED naming the check)", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const mint = (claims: Record<string, unknown>) =>
      new SignJWT({ sub: "user_other", email: "someone@other.example", ...claims })
        .setProtectedHeader({ alg: "ES256" })
        .setIssuer("https://id.example")
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(privateKey);
    const keys = {
      NODE_ENV: "production",
      SESSION_PUBLIC_KEY: await exportSPKI(publicKey),
      SESSION_ISSUER: "https://id.example",
    };
    for (const [env, refusal] of [
      [{ SESSION_AUDIENCE: "https://api.pms.example" }, "session audience not accepted"],
      [{ SESSION_AUTHORIZED_PARTIES: "https://app.pms.example" }, "session authorized party not accepted"],
    ] as const) {
      const production = await startTestApp({ ...keys, ...env });
      try {
        const usage = (token: string) =>
          fetch(`${production.url}/api/usage`, { headers: { cookie: `__session=${token}` } });
        const foreign = await mint({ aud: "some-other-app", azp: "other-client" });
        const rest = await usage(foreign);
        expect(rest.status).toBe(401);
        expect((await rest.json()).error).toMatchObject({ code: "AUTH_REQUIRED", message: refusal });
        const graphqlAnswer = await fetch(`${production.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: `__session=${foreign}` },
          body: JSON.stringify({ query: print(AccountUsageDocument) }),
        });
        expect((await graphqlAnswer.json()).errors?.[0]).toMatchObject({
          message: refusal,
          extensions: { code: "AUTH_REQUIRED" },
        });
        // The same provider's session for this service signs in.
        const own = await usage(await mint({ aud: "https://api.pms.example", azp: "https://app.pms.example" }));
        expect(own.status).toBe(200);
      } finally {
        await production.close();
      }
    }
  });

  it("has no /dev/login", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const production = await startTestApp({
      NODE_ENV: "production",
      SESSION_PUBLIC_KEY: await exportSPKI(publicKey),
      SESSION_ISSUER: "https://id.example",
      SESSION_AUDIENCE: "pms",
    });
    try {
      const response = await fetch(`${production.url}/dev/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"email":"a@b.co"}',
      });
      expect(response.status).toBe(404);
    } finally {
      await production.close();
    }
  });
});
