import { Field, Float, ObjectType, registerEnumType } from "type-graphql";

/**
 * Enum values are spelled exactly as the REST contract's strings, so both front
 * doors answer the same bytes for the same state.
 */
export enum HealthStatus {
  pass = "pass",
  warn = "warn",
  fail = "fail",
}

registerEnumType(HealthStatus, {
  name: "HealthStatus",
  description: "Outcome of a health check, worst of its parts for the overall status.",
  valuesConfig: {
    pass: { description: "Working as configured." },
    warn: { description: "Working, but degraded or configured in a way that needs attention." },
    fail: { description: "Not working: requests that need this component will fail." },
  },
});

@ObjectType({ description: "The result of checking one component of the service." })
export class HealthCheck {
  @Field(() => HealthStatus, { description: "Whether the component works." })
  status: HealthStatus;

  @Field(() => Float, {
    nullable: true,
    description: "Round-trip time of the check in milliseconds, where one was measured.",
  })
  latencyMs?: number | null;

  @Field(() => String, { nullable: true, description: "What was checked and what was found. Never contains a secret." })
  detail?: string | null;
}

@ObjectType({ description: "One check per component the service depends on." })
export class HealthChecks {
  @Field(() => HealthCheck, { description: "A round trip to PostgreSQL." })
  database: HealthCheck;

  @Field(() => HealthCheck, { description: "Identity provider configuration used to verify session cookies." })
  auth: HealthCheck;

  @Field(() => HealthCheck, { description: "Billing provider used for checkout (Stripe or the local provider)." })
  billing: HealthCheck;

  @Field(() => HealthCheck, {
    description: "Scoring engine in use: the deterministic heuristic scorer or an LLM, with its model.",
  })
  scoring: HealthCheck;

  @Field(() => HealthCheck, {
    description:
      "Runtime mode, whether the settings it requires are present, and a round trip to Redis when REDIS_URL is set.",
  })
  environment: HealthCheck;

  @Field(() => HealthCheck, {
    description:
      "Headless Chromium for sites that build their pages in the browser: pass with the browser's version, warn when there is none (such sites then answer CRAWL_FAILED). Never fail: every other site is scored as usual.",
  })
  rendering: HealthCheck;
}

@ObjectType({ description: "Component-level health of the service. REST: GET /api/health (503 when status is fail)." })
export class Health {
  @Field(() => HealthStatus, { description: "fail if any check fails, else warn if any warns, else pass." })
  status: HealthStatus;

  @Field(() => String, { description: "Version of the running service." })
  version: string;

  @Field(() => HealthChecks, { description: "The individual checks." })
  checks: HealthChecks;
}
