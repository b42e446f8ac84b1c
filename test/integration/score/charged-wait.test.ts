import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signIn } from "../../support/http.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import type { Site } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * Once a scoring request is charged, the job exists: whatever goes wrong while the
 * caller waits (here Postgres going away through a cut TCP link), the answer is 202
 * with the job and where to follow it, never an error that invites a retry (each
 * retry would be a new job and a new charge).
 */
let database: TestDatabase;
let link: TcpRelay;
let service: ScoringTestApp;
let release: () => void = () => undefined;

/** A site whose home page answers only when the test says so. */
function heldSite(): Site {
  const gate = new Promise<void>((resolve) => (release = resolve));
  const page =
    "<html><head><title>Held</title></head><body><h1>Held</h1><p>A site that answers late.</p></body></html>";
  return {
    "/": {
      handle: (_request, response) => {
        void gate.then(() => {
          if (!response.destroyed) response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
        });
      },
    },
  };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const real = new URL(database.url);
  link = new TcpRelay({ host: real.hostname, port: Number(real.port || 5432) });
  await link.open();
  const relayed = new URL(database.url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(link.port);
  service = await startScoringApp({
    env: { DATABASE_URL: relayed.toString() },
    waitMs: 1_500,
    extraSites: { "held.test": heldSite() },
  });
});
afterAll(async () => {
  release();
  await service?.close();
  await link?.cut();
  await database?.drop();
});

describe("a charged scoring request whose wait breaks", () => {
  it("answers 202 with the job and its Location (not a retryable error) when Postgres goes away during the wait, and the job can be followed afterwards", async () => {
    const api = apiClient(service);
    const ada = await signIn(service, "ada@charged-wait.test");
    const pending = api("/api/score/quick", {
      method: "POST",
      cookie: ada.cookie,
      body: { url: service.siteUrl("held.test") },
    });
    // The job is created and charged, and its crawl waits on the site; then the database link drops.
    for (
      let waited = 0;
      service.sites.requestsTo("held.test").filter((request) => request.path === "/").length === 0;
      waited += 25
    ) {
      if (waited > 10_000) throw new Error("the crawl never reached the site");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await link.cut();

    const answer = await pending;
    const body = await answer.json();
    expect(answer.status, JSON.stringify(body)).toBe(202);
    expect(body.job).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), kind: "quick" });
    expect(answer.headers.get("location")).toBe(`/api/score/jobs/${body.job.id}`);

    // Postgres returns: the job finishes and is followed where the 202 said, charged once.
    await link.open();
    release();
    let job: { status: string; resultId: string | null } | undefined;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const followed = await api(`/api/score/jobs/${body.job.id}`, { cookie: ada.cookie });
      if (followed.status === 200) {
        job = await followed.json();
        if (job!.status === "completed" || job!.status === "failed") break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(job).toMatchObject({ status: "completed", resultId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((await (await api(`/api/score/${job!.resultId}`)).json()).dimensions).toHaveLength(27);
    expect((await (await api("/api/usage", { cookie: ada.cookie })).json()).scores.used).toBe(1);

    // Nobody else may follow it.
    const bob = await signIn(service, "bob@charged-wait.test");
    expect((await api(`/api/score/jobs/${body.job.id}`, { cookie: bob.cookie })).status).toBe(404);
  }, 60_000);
});
