import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/** Prometheus metrics on their own port, scraped after real traffic. */
let service: ScoringTestApp;

beforeAll(async () => {
  service = await startScoringApp({ env: { METRICS_PORT: "0" } });
});
afterAll(() => service?.close());

/** One sample's value from the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("GET /metrics", () => {
  it("is served on METRICS_PORT only, and counts requests, jobs, pages, credits, errors and GraphQL operations after real traffic", async () => {
    expect(service.app.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);

    const api = apiClient(service);
    const graphql = graphqlClient(service);
    const ada = await signIn(service, "ada@metrics.test");
    const scored = await api("/api/score/quick", {
      method: "POST",
      cookie: ada.cookie,
      body: { url: service.siteUrl("leader.test") },
    });
    expect(scored.status).toBe(200);
    const { id } = await scored.json();
    expect((await api(`/api/score/${id}`)).status).toBe(200);
    expect((await api("/api/score/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    await graphql(
      `
        query {
          usage {
            plan
          }
        }
      `,
      {},
      { cookie: ada.cookie },
    );
    await graphql(`
      query {
        usage {
          plan
        }
      }
    `);

    const response = await fetch(service.app.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(sample(text, "pms_http_request_duration_seconds_count", { route: "/api/score/quick", status: "200" })).toBe(
      1,
    );
    expect(sample(text, "pms_http_request_duration_seconds_count", { route: "/api/score/:id", status: "404" })).toBe(1);
    expect(sample(text, "pms_jobs_finished_total", { kind: "quick", status: "completed" })).toBe(1);
    expect(sample(text, "pms_job_duration_seconds_count", { kind: "quick", status: "completed" })).toBe(1);
    expect(sample(text, "pms_pages_crawled_total")).toBeGreaterThan(0);
    expect(sample(text, "pms_credits_spent_total", { action: "score" })).toBe(10);
    // The missing result, and /metrics asked of the API port.
    expect(sample(text, "pms_errors_total", { code: "NOT_FOUND" })).toBe(2);
    expect(sample(text, "pms_errors_total", { code: "AUTH_REQUIRED" })).toBe(1);
    expect(sample(text, "pms_graphql_operations_total", { field: "usage", outcome: "ok" })).toBe(1);
    expect(sample(text, "pms_graphql_operations_total", { field: "usage", outcome: "AUTH_REQUIRED" })).toBe(1);
    expect(sample(text, "pms_jobs", { state: "queued" })).toBe(0);
    expect(sample(text, "pms_process_resident_memory_bytes")).toBeGreaterThan(0);
    // Labels never carry what a caller typed: no raw path, no id.
    expect(text).not.toContain(id);
  });
});
