import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { page } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/** A score that outlives the route's wait is answered 202 with its job, and keeps running. */
let service: ScoringTestApp;
beforeAll(async () => {
  service = await startScoringApp({
    waitMs: 100,
    extraSites: {
      "slow.test": {
        "/": {
          handle: (_request, response) => {
            setTimeout(
              () =>
                response
                  .writeHead(200, { "content-type": "text/html" })
                  .end(page("Slowpoke", "<h1>Slowpoke</h1><p>Analytics for teams.</p>")),
              800,
            );
          },
        },
      },
    },
  });
});
afterAll(() => service?.close());

describe("the scoring wait", () => {
  it("answers 202 with the job when scoring outlives the wait; the job completes and its result lands in history", async () => {
    const ada = await signIn(service, "ada@wait.test");
    const response = await apiClient(service)("/api/score/quick", {
      method: "POST",
      cookie: ada.cookie,
      body: { url: service.siteUrl("slow.test") },
    });
    expect(response.status).toBe(202);
    // When to look again: estimated from where the job stands, at least a second.
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    const { job } = await response.json();
    expect(job).toMatchObject({
      id: expect.any(String),
      kind: "quick",
      status: expect.stringMatching(/^(queued|crawling)$/),
    });
    expect(response.headers.get("location")).toBe(`/api/score/jobs/${job.id}`);

    const graphql = graphqlClient(service);
    let state: { status: string; resultId: string | null } | undefined;
    for (let attempt = 0; attempt < 50 && state?.status !== "completed"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (
        await graphql(
          `
            query ($id: ID!) {
              scoreJob(id: $id) {
                status
                resultId
              }
            }
          `,
          { id: job.id },
          { cookie: ada.cookie },
        )
      ).data!.scoreJob;
    }
    expect(state).toMatchObject({ status: "completed", resultId: expect.any(String) });
    const history = await (await apiClient(service)("/api/scores", { cookie: ada.cookie })).json();
    expect(history.results.map((result: { id: string }) => result.id)).toEqual([state!.resultId]);
  });
});
