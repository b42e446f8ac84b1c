import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe("configuration", () => {
  it("reads CORS_ORIGINS as origins, or '*' alone, and refuses anything else at boot", () => {
    expect(loadConfig({}).http.corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: "https://app.example.com, http://localhost:5173" }).http.corsOrigins).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
    ]);
    expect(loadConfig({ CORS_ORIGINS: "*" }).http.corsOrigins).toEqual(["*"]);
    for (const bad of ["https://app.example.com/", "https://app.example.com/path", "app.example.com", "ftp://x.test"])
      expect(problemsOf({ CORS_ORIGINS: bad }).join(" "), bad).toMatch(/^CORS_ORIGINS.*invalid origin/);
    expect(problemsOf({ CORS_ORIGINS: "*, https://app.example.com" }).join(" ")).toMatch(/^CORS_ORIGINS.*alone/);
  });

  it("runs on embedded defaults with nothing set", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: "development",
      http: { port: 4000, host: "0.0.0.0", trustProxy: false },
      database: { kind: "embedded", dataDir: path.resolve(".data/postgres") },
      redisUrl: undefined,
      scoring: { engine: "heuristic" },
      crawl: { maxPages: 25, ssrfAllowlist: [] },
    });
  });

  it("reads each documented variable into its typed place", () => {
    const config = loadConfig({
      PORT: "8080",
      DATABASE_URL: "postgres://u:p@db:5432/pms",
      REDIS_URL: "redis://cache:6379",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://127.0.0.1:9999/v1",
      SCORING_MODEL: "gpt-4.1-mini",
      SESSION_JWKS_URL: "https://id.example.com/.well-known/jwks.json",
      SESSION_ISSUER: "https://id.example.com",
      SESSION_AUTHORIZED_PARTIES: "https://app.example.com, https://www.example.com",
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc",
      TRUST_PROXY: "1",
      SSRF_ALLOWLIST: "127.0.0.1/32,fixtures.test",
      CRAWL_MAX_PAGES: "40",
    });
    expect(config.http.port).toBe(8080);
    expect(config.http.trustProxy).toBe(1);
    expect(config.database).toEqual({
      kind: "external",
      url: "postgres://u:p@db:5432/pms",
      poolSize: 10,
      poolWaitMs: 10_000,
    });
    expect(config.rateLimit).toEqual({ storeTimeoutMs: 1_000 });
    expect(config.scoring).toEqual({
      engine: "llm",
      apiKey: "sk-test",
      baseUrl: "http://127.0.0.1:9999/v1",
      model: "gpt-4.1-mini",
    });
    expect(config.session.authorizedParties).toEqual(["https://app.example.com", "https://www.example.com"]);
    expect(config.crawl).toEqual({ maxPages: 40, ssrfAllowlist: ["127.0.0.1/32", "fixtures.test"] });
  });

  it("takes the pool wait and the rate-limit store's deadline", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://u:p@db:5432/pms",
      DATABASE_POOL_WAIT_MS: "15000",
      RATE_LIMIT_STORE_TIMEOUT_MS: "100",
    });
    expect(config.database).toMatchObject({ poolWaitMs: 15_000 });
    expect(config.rateLimit).toEqual({ storeTimeoutMs: 100 });
    expect(problemsOf({ RATE_LIMIT_STORE_TIMEOUT_MS: "0" })).toEqual([
      expect.stringMatching(/^RATE_LIMIT_STORE_TIMEOUT_MS /),
    ]);
  });

  it("names every bad variable at once", () => {
    const problems = problemsOf({
      PORT: "70000",
      CRAWL_MAX_PAGES: "many",
      REDIS_URL: "http://cache",
      NODE_ENV: "staging",
    });
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toMatch(/^PORT /m);
    expect(problems.join("\n")).toMatch(/^CRAWL_MAX_PAGES must be a whole number/m);
    expect(problems.join("\n")).toMatch(/^REDIS_URL must be a URL with scheme redis: or rediss:/m);
    expect(problems.join("\n")).toMatch(/^NODE_ENV /m);
  });

  it("refuses an SSRF_ALLOWLIST entry the crawler could not use", () => {
    expect(problemsOf({ SSRF_ALLOWLIST: "127.0.0.1/32,10.0.0.0/33" })).toEqual([
      expect.stringMatching(/^SSRF_ALLOWLIST has an invalid entry: "10.0.0.0\/33"/),
    ]);
    expect(problemsOf({ SSRF_ALLOWLIST: "127.0.0.1/32,*.fixtures.test,docs.example.com" })).toEqual([]);
  });

  it("never echoes values that may hold credentials", () => {
    const problems = problemsOf({ DATABASE_URL: "mysql://admin:hunter2@db/x", STRIPE_SECRET_KEY: "pk_live_oops" });
    expect(problems.join("\n")).not.toContain("hunter2");
    expect(problems.join("\n")).not.toContain("pk_live_oops");
    expect(problems.join("\n")).toContain("STRIPE_SECRET_KEY");
  });

  it("requires Stripe's webhook secret with its API key in every environment, and takes a public base URL", () => {
    expect(problemsOf({ STRIPE_SECRET_KEY: "sk_test_123" })).toEqual([
      expect.stringMatching(/^STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set/),
    ]);
    expect(loadConfig({ PORT: "5000" }).publicBaseUrl).toBe("http://localhost:5000");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://score.example.com/" }).publicBaseUrl).toBe(
      "https://score.example.com",
    );
    expect(problemsOf({ PUBLIC_BASE_URL: "ftp://x" })).toEqual([expect.stringMatching(/^PUBLIC_BASE_URL /)]);
  });

  it("refuses TRUST_PROXY=true in production (any client can write the left-most X-Forwarded-For), but not a hop count or addresses", () => {
    const production = {
      NODE_ENV: "production",
      SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----",
      SESSION_ISSUER: "https://id",
      SESSION_AUDIENCE: "pms",
    };
    expect(problemsOf({ ...production, TRUST_PROXY: "true" })).toEqual([
      expect.stringMatching(/^TRUST_PROXY must not be true in production/),
    ]);
    expect(problemsOf({ ...production, TRUST_PROXY: "1" })).toEqual([]);
    expect(problemsOf({ ...production, TRUST_PROXY: "10.0.0.0/8,192.168.1.4" })).toEqual([]);
    expect(problemsOf({ TRUST_PROXY: "true" })).toEqual([]);
  });

  it("requires a real identity provider in production", () => {
    expect(problemsOf({ NODE_ENV: "production" })).toEqual([
      expect.stringMatching(/^SESSION_JWKS_URL is required in production/),
      "SESSION_ISSUER is required in production",
    ]);
    expect(
      problemsOf({
        NODE_ENV: "production",
        SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----",
        SESSION_ISSUER: "https://id",
        SESSION_AUDIENCE: "pms",
      }),
    ).toEqual([]);
  });

  it("refuses production sessions that are not checked for whom they were issued: SESSION_AUDIENCE or SESSION_AUTHORIZED_PARTIES", () => {
    const sources: Array<Record<string, string>> = [
      { SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----" },
      { SESSION_JWKS_URL: "https://id.example/jwks" },
    ];
    for (const keys of sources) {
      const production = { NODE_ENV: "production", SESSION_ISSUER: "https://id", ...keys };
      expect(problemsOf(production)).toEqual([
        "SESSION_AUDIENCE or SESSION_AUTHORIZED_PARTIES is required in production: without either, a session the identity provider issued to another application is accepted",
      ]);
      expect(problemsOf({ ...production, SESSION_AUDIENCE: "https://api.example" })).toEqual([]);
      expect(problemsOf({ ...production, SESSION_AUTHORIZED_PARTIES: "https://app.example" })).toEqual([]);
    }
    // Outside production either may be left out; a list is read like SESSION_AUTHORIZED_PARTIES.
    expect(problemsOf({ SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----" })).toEqual([]);
    expect(loadConfig({ SESSION_AUDIENCE: "https://api.example, pms" }).session.audiences).toEqual([
      "https://api.example",
      "pms",
    ]);
    expect(loadConfig({}).session.audiences).toEqual([]);
  });

  it("refuses two ways of verifying sessions at once, and clear-text JWKS in production", () => {
    expect(
      problemsOf({ SESSION_JWKS_URL: "https://id.example/jwks", SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----" }),
    ).toEqual([expect.stringMatching(/^SESSION_PUBLIC_KEY cannot be set together with SESSION_JWKS_URL/)]);
    expect(
      problemsOf({
        NODE_ENV: "production",
        SESSION_JWKS_URL: "http://id.example/jwks",
        SESSION_ISSUER: "https://id",
        SESSION_AUTHORIZED_PARTIES: "https://app",
      }),
    ).toEqual([expect.stringMatching(/^SESSION_JWKS_URL must use https in production/)]);
  });

  it("has a drain budget below Docker's 10 s stop timeout and a few seconds' recheck of followed jobs, both settable within bounds", () => {
    expect(loadConfig({})).toMatchObject({ shutdownDrainMs: 8_000, progressRecheckMs: 2_500 });
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: "25000", PROGRESS_RECHECK_MS: "1000" })).toMatchObject({
      shutdownDrainMs: 25_000,
      progressRecheckMs: 1_000,
    });
    expect(problemsOf({ SHUTDOWN_DRAIN_MS: "500" })).toEqual([expect.stringMatching(/^SHUTDOWN_DRAIN_MS /)]);
    expect(problemsOf({ PROGRESS_RECHECK_MS: "10" })).toEqual([expect.stringMatching(/^PROGRESS_RECHECK_MS /)]);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", PORT: "" }).database.kind).toBe("embedded");
    expect(loadConfig({ PORT: "" }).http.port).toBe(4000);
  });

  it("is frozen: nothing can change configuration after boot", () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
  });
});
