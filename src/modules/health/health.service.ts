import type { Config } from "../../config.js";
import type { RendererStatus } from "../crawl/render/renderer.js";
import { HealthStatus, type Health, type HealthCheck, type HealthChecks } from "./health.types.js";

/** The one side effect the health check needs: a timed database round trip. */
export interface DatabaseProbe {
  readonly kind: "external" | "embedded";
  ping(timeoutMs: number): Promise<number>;
}

const DATABASE_TIMEOUT_MS = 2_000;
const SLOW_DATABASE_MS = 500;

/** Redis, when REDIS_URL is set: rate limits and queues depend on it. */
export interface CacheProbe {
  ping(timeoutMs: number): Promise<number>;
}

const REDIS_TIMEOUT_MS = 500;

/** The browser that renders shell pages: found or not, and its version. */
export interface RenderingProbe {
  status(): Promise<RendererStatus>;
}

export class HealthService {
  constructor(
    private readonly config: Config,
    private readonly database: DatabaseProbe,
    private readonly redis?: CacheProbe,
    private readonly rendering?: RenderingProbe,
  ) {}

  /**
   * Every component's status is public. Its detail (provider modes, hosts, model
   * names, what is missing) is shown outside production, and in production only to
   * an operator (`detailed`); everyone else reads a generic word per status.
   */
  async check(options: { detailed?: boolean } = {}): Promise<Health> {
    const checks: HealthChecks = {
      database: await this.checkDatabase(),
      auth: this.checkAuth(),
      billing: this.checkBilling(),
      scoring: this.checkScoring(),
      environment: await this.checkEnvironment(),
      rendering: await this.checkRendering(),
    };
    const shown = !this.config.isProduction || options.detailed === true ? checks : redacted(checks);
    return { status: worstOf(Object.values(checks)), version: this.config.version, checks: shown };
  }

  private async checkDatabase(): Promise<HealthCheck> {
    const where = this.database.kind === "embedded" ? "embedded PostgreSQL" : "PostgreSQL";
    try {
      const latencyMs = await this.database.ping(DATABASE_TIMEOUT_MS);
      if (latencyMs > SLOW_DATABASE_MS) {
        return { status: HealthStatus.warn, latencyMs, detail: `${where} answered slowly` };
      }
      return { status: HealthStatus.pass, latencyMs, detail: `${where} answered` };
    } catch (error) {
      return { status: HealthStatus.fail, latencyMs: null, detail: `${where} unreachable: ${describe(error)}` };
    }
  }

  private checkAuth(): HealthCheck {
    const { session } = this.config;
    if (session.jwksUrl) {
      return {
        status: HealthStatus.pass,
        detail: `session JWTs verified against the JWKS at ${new URL(session.jwksUrl).host}`,
      };
    }
    if (session.publicKey)
      return { status: HealthStatus.pass, detail: "session JWTs verified with a configured public key" };
    return { status: HealthStatus.pass, detail: "local development identity provider (not available in production)" };
  }

  private checkBilling(): HealthCheck {
    const key = this.config.billing.stripeSecretKey;
    if (key) {
      const mode = key.includes("_live_") ? "live" : "test";
      return { status: HealthStatus.pass, detail: `Stripe (${mode} mode)` };
    }
    if (this.config.isProduction) {
      return {
        status: HealthStatus.warn,
        detail: "no billing provider configured: checkouts cannot complete in production",
      };
    }
    return { status: HealthStatus.pass, detail: "local checkout provider" };
  }

  private checkScoring(): HealthCheck {
    const { scoring } = this.config;
    if (scoring.engine === "llm") {
      const where = scoring.baseUrl ? new URL(scoring.baseUrl).host : "api.openai.com";
      return { status: HealthStatus.pass, detail: `LLM scorer: model ${scoring.model} via ${where}` };
    }
    return { status: HealthStatus.pass, detail: "deterministic heuristic scorer" };
  }

  private async checkRendering(): Promise<HealthCheck> {
    // An API-only process (beside `npm run worker`) reads no site: the workers' browsers are theirs to report.
    if (this.config.scoringWorkers === 0)
      return {
        status: HealthStatus.pass,
        detail: "not used here: this process runs no scoring jobs, worker processes render",
      };
    const status = await this.rendering?.status();
    if (!status?.available) {
      return {
        status: HealthStatus.warn,
        detail:
          "no browser: sites that build their pages in the browser answer CRAWL_FAILED (install chromium or set CHROMIUM_PATH)",
      };
    }
    const version = status.version ?? "a Chromium that did not report its version";
    return {
      status: HealthStatus.pass,
      detail: `${version} (${status.source === "CHROMIUM_PATH" ? "CHROMIUM_PATH" : `found on ${status.source}`}), for sites built in the browser`,
    };
  }

  private async checkEnvironment(): Promise<HealthCheck> {
    const { config } = this;
    const parts = [
      `mode ${config.env}`,
      config.database.kind === "embedded" ? "embedded database" : "external database",
    ];
    const missing: string[] = [];
    if (config.isProduction && config.database.kind === "embedded") missing.push("DATABASE_URL");
    if (config.isProduction && !config.redisUrl) missing.push("REDIS_URL");
    let latencyMs: number | null = null;
    let redisDown = false;
    if (this.redis) {
      try {
        latencyMs = await this.redis.ping(REDIS_TIMEOUT_MS);
        parts.push(`Redis answered`);
      } catch (error) {
        redisDown = true;
        parts.push(`Redis unreachable (${describe(error)}): rate-limited requests are refused until it returns`);
      }
    } else {
      parts.push("in-memory rate limits and queue");
    }
    const advice = missing.length > 0 ? `; recommended in production: ${missing.join(", ")}` : "";
    const status = redisDown || missing.length > 0 ? HealthStatus.warn : HealthStatus.pass;
    return { status, latencyMs, detail: `${parts.join(", ")}${advice}` };
  }
}

const genericDetail: Record<HealthStatus, string> = {
  [HealthStatus.pass]: "available",
  [HealthStatus.warn]: "degraded",
  [HealthStatus.fail]: "unavailable",
};

function redacted(checks: HealthChecks): HealthChecks {
  const hide = (check: HealthCheck): HealthCheck => ({ ...check, detail: genericDetail[check.status] });
  return {
    database: hide(checks.database),
    auth: hide(checks.auth),
    billing: hide(checks.billing),
    scoring: hide(checks.scoring),
    environment: hide(checks.environment),
    rendering: hide(checks.rendering),
  };
}

function worstOf(checks: readonly HealthCheck[]): HealthStatus {
  if (checks.some((check) => check.status === HealthStatus.fail)) return HealthStatus.fail;
  if (checks.some((check) => check.status === HealthStatus.warn)) return HealthStatus.warn;
  return HealthStatus.pass;
}

/** A short, secret-free reason: driver codes, never connection strings. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code === "ETIMEDOUT" ? "timed out" : code;
  const message = error instanceof Error ? error.message : "";
  if (/timeout/i.test(message)) return "timed out";
  if (/terminated|closed|ended/i.test(message)) return "connection lost";
  return "connection failed";
}
