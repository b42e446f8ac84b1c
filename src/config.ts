import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseAllowlist } from "./net/ssrf-allowlist.js";
import { BrowserPathError, locateBrowser, type BrowserLocation } from "./platform/browser-locator.js";

/**
 * The one place that reads the environment. Everything else receives a frozen
 * `Config`, so a test can build any configuration without touching `process.env`.
 */

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const optionalUrl = (protocols: readonly string[]) =>
  optionalString.refine(
    (value) => {
      if (value === undefined) return true;
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL with scheme ${protocols.join(" or ")}` },
  );

const csv = optionalString.transform((value) =>
  value === undefined
    ? []
    : value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
);

/** An origin as a browser sends it in `Origin`: http(s), a host, an optional port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

const integer = (fallback: number, min: number, max: number) =>
  optionalString
    .pipe(
      z
        .string()
        .regex(/^\d+$/, { message: "must be a whole number" })
        .transform(Number)
        .pipe(z.number().int().min(min).max(max))
        .optional(),
    )
    .transform((value) => value ?? fallback);

const trustProxy = optionalString.transform((value, ctx) => {
  // Accepts the forms operators already know from Express/Fastify: a hop count,
  // true/false, or a list of proxy addresses/CIDRs.
  if (value === undefined || value === "false") return false as const;
  if (value === "true") return true as const;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  if (list.length === 0) {
    ctx.addIssue({ code: "custom", message: "must be true, false, a hop count or a list of addresses" });
    return z.NEVER;
  }
  return list;
});

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
    PORT: integer(4000, 0, 65_535),
    // Unset: no metrics endpoint. Set: GET /metrics (Prometheus) on this port, apart from the API.
    METRICS_PORT: integer(-1, 0, 65_535),
    METRICS_HOST: optionalString.transform((value) => value ?? "127.0.0.1"),
    HOST: optionalString.transform((value) => value ?? "0.0.0.0"),
    // Unset: human-readable (pino-pretty) when stdout is a terminal, JSON otherwise.
    LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
    DATABASE_URL: optionalUrl(["postgres:", "postgresql:"]),
    DATABASE_POOL_SIZE: integer(10, 1, 200),
    // How long a query may queue for a pooled connection before 503: a burst of 30 chats must queue, not fail.
    DATABASE_POOL_WAIT_MS: integer(10_000, 100, 120_000),
    DATA_DIR: optionalString.transform((value) => path.resolve(value ?? "./.data")),
    REDIS_URL: optionalUrl(["redis:", "rediss:"]),
    // Longest wait for the rate-limit store before a request is refused (fail closed); a disconnected store is refused at once.
    RATE_LIMIT_STORE_TIMEOUT_MS: integer(1_000, 10, 30_000),
    REDIS_PREFIX: optionalString
      .transform((value) => value ?? "pms")
      .refine((value) => /^[A-Za-z0-9_.-]{1,40}$/.test(value), {
        message: "must be 1 to 40 letters, digits, '.', '_' or '-'",
      }),
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: optionalUrl(["http:", "https:"]),
    SCORING_MODEL: optionalString.transform((value) => value ?? "gpt-4o-mini"),
    CHAT_MODEL: optionalString.transform((value) => value ?? "gpt-4o-mini"),
    SESSION_JWKS_URL: optionalUrl(["https:", "http:"]),
    SESSION_PUBLIC_KEY: optionalString,
    SESSION_ISSUER: optionalString,
    /** Sent as `X-Operator-Token`, it shows health's provider details in production. */
    OPERATOR_TOKEN: optionalString.refine(
      (value) => value === undefined || value.length >= 32,
      "must be at least 32 characters",
    ),
    /** GraphQL introspection: on outside production unless false, off in production unless true. */
    GRAPHQL_INTROSPECTION: z.enum(["true", "false"]).optional(),
    SESSION_AUTHORIZED_PARTIES: csv,
    /** Accepted `aud` values of session JWTs; empty: `aud` is not checked. */
    SESSION_AUDIENCE: csv,
    PUBLIC_BASE_URL: optionalUrl(["http:", "https:"]),
    STRIPE_API_URL: optionalUrl(["http:", "https:"]),
    STRIPE_SECRET_KEY: optionalString.refine(
      (value) => value === undefined || /^(sk|rk)_(live|test)_\w+$/.test(value),
      { message: "must look like sk_live_…, sk_test_…, rk_live_… or rk_test_…" },
    ),
    STRIPE_WEBHOOK_SECRET: optionalString.refine((value) => value === undefined || value.startsWith("whsec_"), {
      message: "must start with whsec_",
    }),
    TRUST_PROXY: trustProxy,
    /** Browser origins allowed to call key-authenticated routes cross-origin; `*` alone: any (never with credentials). */
    CORS_ORIGINS: csv.superRefine((origins, ctx) => {
      if (origins.includes("*") && origins.length > 1)
        ctx.addIssue({ code: "custom", message: "'*' allows every origin: list origins or give '*' alone" });
      for (const origin of origins.filter((entry) => entry !== "*"))
        if (!isOrigin(origin))
          ctx.addIssue({
            code: "custom",
            message: `has an invalid origin ${JSON.stringify(origin)}: give scheme://host[:port], e.g. https://app.example.com, without a path`,
          });
    }),
    SSRF_ALLOWLIST: csv,
    CRAWL_MAX_PAGES: integer(25, 1, 500),
    // Unset: chromium / chromium-browser / google-chrome on PATH, else Playwright's cache, else no rendering; "off": none.
    CHROMIUM_PATH: optionalString,
    SCORE_WORKERS: integer(2, 0, 64),
    SCORE_WAIT_SECONDS: integer(120, 1, 600),
    // How often a process re-reads the jobs it has followers for (progress subscribers, waiting calls).
    PROGRESS_RECHECK_MS: integer(2_500, 100, 60_000),
    MONITOR_TICK_MS: integer(30_000, 0, 3_600_000),
    // How long a stopping process may take, SIGTERM to exit; below Docker's 10 s stop timeout.
    SHUTDOWN_DRAIN_MS: integer(8_000, 1_000, 600_000),
    WEBHOOK_ACCOUNT_SHARE: integer(10, 1, 1_000),
    WEBHOOK_BREAKER_FAILURES: integer(5, 1, 1_000),
    WEBHOOK_BREAKER_COOLDOWN_SECONDS: integer(60, 1, 86_400),
  })
  .superRefine((env, ctx) => {
    // The guard's own parser decides what an entry may be, so boot and crawl agree.
    try {
      parseAllowlist(env.SSRF_ALLOWLIST);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        path: ["SSRF_ALLOWLIST"],
        message: (error as Error).message.replace(/^SSRF_ALLOWLIST:\s*/, "has an invalid entry: "),
      });
    }
    if (env.SESSION_JWKS_URL && env.SESSION_PUBLIC_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["SESSION_PUBLIC_KEY"],
        message: "cannot be set together with SESSION_JWKS_URL: choose one way to verify sessions",
      });
    }
    if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["STRIPE_WEBHOOK_SECRET"],
        message: "is required when STRIPE_SECRET_KEY is set: checkout completions arrive as signed webhooks",
      });
    }
    if (env.NODE_ENV !== "production") return;
    if (env.SESSION_JWKS_URL?.startsWith("http:")) {
      ctx.addIssue({
        code: "custom",
        path: ["SESSION_JWKS_URL"],
        message: "must use https in production: session keys fetched in clear text could be replaced",
      });
    }
    // In production there is no local identity provider, so sign-in needs a real one.
    if (!env.SESSION_JWKS_URL && !env.SESSION_PUBLIC_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["SESSION_JWKS_URL"],
        message: "is required in production (or SESSION_PUBLIC_KEY): the local identity provider is disabled there",
      });
    }
    if (!env.SESSION_ISSUER) {
      ctx.addIssue({ code: "custom", path: ["SESSION_ISSUER"], message: "is required in production" });
    }
    // One issuer signs sessions for many applications: without a check of whom a token is for,
    // a session minted for another of them would sign its holder in here.
    if (
      (env.SESSION_JWKS_URL || env.SESSION_PUBLIC_KEY) &&
      env.SESSION_AUDIENCE.length === 0 &&
      env.SESSION_AUTHORIZED_PARTIES.length === 0
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["SESSION_AUDIENCE"],
        message:
          "or SESSION_AUTHORIZED_PARTIES is required in production: without either, a session the identity provider issued to another application is accepted",
      });
    }
    if (env.TRUST_PROXY === true) {
      ctx.addIssue({
        code: "custom",
        path: ["TRUST_PROXY"],
        message:
          "must not be true in production: it believes the left-most X-Forwarded-For, which any client can write, so per-address limits could be dodged; give the number of proxies in front of the service or their addresses",
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export interface Config {
  readonly env: Env["NODE_ENV"];
  readonly isProduction: boolean;
  readonly version: string;
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly trustProxy: Env["TRUST_PROXY"];
    /** CORS_ORIGINS: origins allowed on key-authenticated routes (`["*"]`: any). */
    readonly corsOrigins: readonly string[];
  };
  /** Prometheus metrics on their own port; undefined: none. */
  readonly metrics: { readonly port: number; readonly host: string } | undefined;
  readonly logLevel: NonNullable<Env["LOG_LEVEL"]>;
  /** undefined: pretty on a terminal, JSON otherwise. */
  readonly logFormat: "json" | "pretty" | undefined;
  /** `poolWaitMs`: how long a query waits for a pooled connection (a new connection still gets 3 s to open). */
  readonly database:
    | { readonly kind: "external"; readonly url: string; readonly poolSize: number; readonly poolWaitMs: number }
    | { readonly kind: "embedded"; readonly dataDir: string; readonly poolSize: number; readonly poolWaitMs: number };
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  /** Namespace of every Redis key and channel: deployments (or test runs) sharing one Redis stay apart. */
  readonly redisPrefix: string;
  /** The rate limits' wait for their store (Redis) before failing closed. */
  readonly rateLimit: { readonly storeTimeoutMs: number };
  readonly scoring:
    | { readonly engine: "heuristic" }
    | { readonly engine: "llm"; readonly apiKey: string; readonly baseUrl: string | undefined; readonly model: string };
  /** Chat replies: the OpenAI client when OPENAI_API_KEY is set, else the deterministic engine over the stored scores. */
  readonly chat:
    | { readonly engine: "deterministic" }
    | { readonly engine: "llm"; readonly apiKey: string; readonly baseUrl: string | undefined; readonly model: string };
  readonly session: {
    readonly jwksUrl: string | undefined;
    readonly publicKey: string | undefined;
    readonly issuer: string | undefined;
    readonly authorizedParties: readonly string[];
    /** Empty: any `aud`, or none. */
    readonly audiences: readonly string[];
  };
  /** Where people reach the service (links in checkout URLs and share pages); no trailing slash. */
  readonly publicBaseUrl: string;
  /** The `X-Operator-Token` that shows health's provider modes, hosts and models in production. */
  readonly operatorToken: string | undefined;
  readonly graphql: { readonly introspection: boolean };
  readonly billing: {
    readonly stripeApiUrl: string | undefined;
    readonly stripeSecretKey: string | undefined;
    readonly stripeWebhookSecret: string | undefined;
  };
  readonly crawl: {
    readonly maxPages: number;
    readonly ssrfAllowlist: readonly string[];
    /** Headless Chromium for sites that build their pages in the browser (docs/api.md §12); undefined: none found, shell sites fail. */
    readonly browser?: BrowserLocation | undefined;
  };
  /** Scoring jobs this process runs at once; 0 = none (an API-only process beside `npm run worker`). */
  readonly scoringWorkers: number;
  /** How long the scoring POSTs (and mutations) wait for the result before answering 202 with the job. */
  readonly scoreWaitMs: number;
  /**
   * How often the jobs followed in this process (subscribers, waiting calls) are read
   * from Postgres: pub/sub loses what is published while Redis is away, the stored job
   * does not, so no follower outlives its job by much more than this.
   */
  readonly progressRecheckMs: number;
  /** How often this process claims due monitored products (docs/operations.md); 0: it runs no scheduler. */
  readonly monitorTickMs: number;
  /**
   * The drain budget: from SIGTERM to exit. Waiting callers are answered and jobs
   * released early in it; what is still open at its end is cut and the process exits 1.
   */
  readonly shutdownDrainMs: number;
  readonly webhooks: {
    /** Deliveries of one account in flight at once, across every process. */
    readonly perAccount: number;
    /** Deliveries in a row that got no answer before a webhook's circuit breaker opens. */
    readonly breakerFailures: number;
    /** The breaker's first cool-down; each reopening without an answer between doubles it (at most an hour). */
    readonly breakerCooldownMs: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

function packageVersion(): string {
  const file = new URL("../package.json", import.meta.url);
  // dist/src/config.js sits one level deeper than src/config.ts.
  for (const candidate of [file, new URL("../../package.json", import.meta.url)]) {
    try {
      const parsed = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (parsed.name === "product-maturity-scoring-service" && parsed.version) return parsed.version;
    } catch {
      // try the next candidate
    }
  }
  return "0.0.0";
}

/** Parses and validates an environment; throws ConfigError naming every bad variable. */
export function loadConfig(source: Readonly<Record<string, string | undefined>>): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      const shown = name in source && !/KEY|SECRET|PASSWORD|URL/.test(name) ? ` (got "${source[name]}")` : "";
      return `${name} ${issue.message}${shown}`;
    });
    throw new ConfigError(problems);
  }
  const env = parsed.data;
  let browser: BrowserLocation | undefined;
  try {
    browser = locateBrowser(source);
  } catch (error) {
    if (error instanceof BrowserPathError) throw new ConfigError([`CHROMIUM_PATH ${error.message}`]);
    throw error;
  }
  const config: Config = {
    env: env.NODE_ENV,
    isProduction: env.NODE_ENV === "production",
    version: packageVersion(),
    http: { port: env.PORT, host: env.HOST, trustProxy: env.TRUST_PROXY, corsOrigins: env.CORS_ORIGINS },
    metrics: env.METRICS_PORT >= 0 ? { port: env.METRICS_PORT, host: env.METRICS_HOST } : undefined,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === "test" ? "warn" : "info"),
    logFormat: env.LOG_FORMAT,
    database: env.DATABASE_URL
      ? {
          kind: "external",
          url: env.DATABASE_URL,
          poolSize: env.DATABASE_POOL_SIZE,
          poolWaitMs: env.DATABASE_POOL_WAIT_MS,
        }
      : {
          kind: "embedded",
          dataDir: path.join(env.DATA_DIR, "postgres"),
          poolSize: env.DATABASE_POOL_SIZE,
          poolWaitMs: env.DATABASE_POOL_WAIT_MS,
        },
    dataDir: env.DATA_DIR,
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX,
    rateLimit: { storeTimeoutMs: env.RATE_LIMIT_STORE_TIMEOUT_MS },
    scoring: env.OPENAI_API_KEY
      ? { engine: "llm", apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL, model: env.SCORING_MODEL }
      : { engine: "heuristic" },
    chat: env.OPENAI_API_KEY
      ? { engine: "llm", apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL, model: env.CHAT_MODEL }
      : { engine: "deterministic" },
    session: {
      jwksUrl: env.SESSION_JWKS_URL,
      publicKey: env.SESSION_PUBLIC_KEY,
      issuer: env.SESSION_ISSUER,
      authorizedParties: env.SESSION_AUTHORIZED_PARTIES,
      audiences: env.SESSION_AUDIENCE,
    },
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ""),
    operatorToken: env.OPERATOR_TOKEN,
    graphql: {
      introspection:
        env.GRAPHQL_INTROSPECTION === undefined ? env.NODE_ENV !== "production" : env.GRAPHQL_INTROSPECTION === "true",
    },
    billing: {
      stripeApiUrl: env.STRIPE_API_URL,
      stripeSecretKey: env.STRIPE_SECRET_KEY,
      stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET,
    },
    crawl: { maxPages: env.CRAWL_MAX_PAGES, ssrfAllowlist: env.SSRF_ALLOWLIST, browser },
    scoringWorkers: env.SCORE_WORKERS,
    scoreWaitMs: env.SCORE_WAIT_SECONDS * 1000,
    progressRecheckMs: env.PROGRESS_RECHECK_MS,
    monitorTickMs: env.MONITOR_TICK_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    webhooks: {
      perAccount: env.WEBHOOK_ACCOUNT_SHARE,
      breakerFailures: env.WEBHOOK_BREAKER_FAILURES,
      breakerCooldownMs: env.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000,
    },
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The composition root's entry: the only read of `process.env` in the codebase. */
export function loadConfigFromProcess(): Config {
  return loadConfig(process.env);
}
