import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { apiClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * What an answer tells a caller about waiting (docs/api.md §6, §14): a GraphQL refusal
 * with a wait carries `extensions.retryAfter` and the HTTP answer `Retry-After`, with
 * advice that names no header; every answer to an API key carries the monthly
 * API-call allowance as a RateLimit policy beside any short window.
 */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  service = await startScoringApp();
  api = apiClient(service);
});
afterAll(() => service?.close());

/** A GraphQL request over HTTP, keeping the HTTP answer's headers. */
async function graphqlHttp(query: string, variables: Record<string, unknown>, init: { bearer?: string } = {}) {
  const response = await api("/graphql", { method: "POST", body: { query, variables }, ...init });
  const body = (await response.json()) as {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
  };
  return { headers: response.headers, body };
}

/** The RateLimit items of an answer, by policy name. */
function policies(headers: Headers): Record<string, { policy: string; state: string }> {
  const items = (value: string | null) => (value ?? "").split(",").map((item) => item.trim());
  const byName: Record<string, { policy: string; state: string }> = {};
  for (const policy of items(headers.get("ratelimit-policy"))) {
    const name = /^"([^"]+)"/.exec(policy)?.[1];
    if (name) byName[name] = { policy, state: "" };
  }
  for (const state of items(headers.get("ratelimit"))) {
    const name = /^"([^"]+)"/.exec(state)?.[1];
    if (name && byName[name]) byName[name].state = state;
  }
  return byName;
}

const START_SCORE = `
  mutation ($input: StartScoreInput!) {
    startScore(input: $input) {
      job {
        id
      }
    }
  }
`;

describe("GraphQL refusals with a wait", () => {
  it("answers an anonymous caller's second startScore within the hour with extensions.retryAfter and a Retry-After header", async () => {
    const input = { kind: "quick", url: service.siteUrl("leader.test") };
    const first = await graphqlHttp(START_SCORE, { input });
    expect(first.body.errors).toBeUndefined();

    const second = await graphqlHttp(START_SCORE, { input });
    const error = second.body.errors?.[0];
    expect(error?.extensions).toMatchObject({ code: "ANON_RATE_LIMIT", retryable: true });
    const retryAfter = error!.extensions.retryAfter as number;
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(second.headers.get("retry-after")).toBe(String(retryAfter));
    expect(policies(second.headers).anonymous?.state).toBe(`"anonymous";r=0;t=${retryAfter}`);
    // The advice is the caller's to follow whatever the transport: no header it never gets.
    expect(error!.extensions.action).toBe(`Sign up to score more, or retry after ${retryAfter} seconds.`);
  });
});

describe("the monthly API-call allowance", () => {
  it("comes with every answer to an API key, beside a route's short window, over REST and GraphQL", async () => {
    const ida = await keyedMember(service, "ida@hints.test");
    const usage = await api("/api/usage", { bearer: ida.apiKey });
    expect(usage.status).toBe(200);
    const used = ((await usage.json()) as { apiCalls: { used: number; limit: number } }).apiCalls.used;
    const allowance = policies(usage.headers)["api-calls"];
    expect(allowance?.policy).toMatch(/^"api-calls";q=25000;w=\d+$/);
    // The count the charge of this very request wrote.
    expect(allowance?.state).toMatch(new RegExp(`^"api-calls";r=${25000 - used};t=\\d+$`));

    // A limited route carries both policies.
    const scored = await api("/api/score/quick", {
      method: "POST",
      bearer: ida.apiKey,
      body: { url: service.siteUrl("leader.test") },
    });
    expect(scored.status).toBe(200);
    const both = policies(scored.headers);
    expect(both.score?.policy).toBe('"score";q=5;w=60');
    expect(both.score?.state).toMatch(/^"score";r=4;t=\d+$/);
    expect(both["api-calls"]?.state).toMatch(new RegExp(`^"api-calls";r=${25000 - used - 1};t=\\d+$`));

    const overGraphQL = await graphqlHttp("{ usage { apiCalls { used } } }", {}, { bearer: ida.apiKey });
    expect(overGraphQL.body.errors).toBeUndefined();
    expect(policies(overGraphQL.headers)["api-calls"]?.state).toMatch(
      new RegExp(`^"api-calls";r=${25000 - used - 2};t=\\d+$`),
    );
  });

  it("is not sent to a session, which makes no API calls", async () => {
    const jo = await signIn(service, "jo@hints.test");
    const usage = await api("/api/usage", { cookie: jo.cookie });
    expect(usage.status).toBe(200);
    expect(usage.headers.get("ratelimit")).toBeNull();
  });
});
