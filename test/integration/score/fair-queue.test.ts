import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * The queue is fair across accounts: with one worker busy on account A's first job
 * and A's four more waiting, account B's first job runs next, before A's second.
 * Real service, one worker, a fixture site whose home page answers when the test
 * opens its gate.
 */
let service: ScoringTestApp;
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));

beforeAll(async () => {
  service = await startScoringApp({
    env: { SCORE_WORKERS: "1" },
    extraSites: {
      "gate.test": {
        "/": {
          handle: (_request, response) =>
            void gate.then(() => {
              response.writeHead(200, { "content-type": "text/html" });
              response.end(
                "<html><head><title>Gate</title></head><body><h1>Gate</h1><p>Pricing from $49 per month.</p></body></html>",
              );
            }),
        },
      },
    },
  });
});
afterAll(() => service?.close());

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);

describe("fair queue", () => {
  it("runs another account's first job before a busy account's backlog", async () => {
    const api = apiClient(service);
    const graphql = graphqlClient(service);
    const keyOf = async (email: string) => {
      const owner = await signIn(service, email);
      await sql("UPDATE accounts SET plan = 'business' WHERE id = $1", [owner.accountId]);
      return (
        (await (await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ci" } })).json()) as {
          secret: string;
        }
      ).secret;
    };
    const [busy, quiet] = [await keyOf("busy@fair.test"), await keyOf("quiet@fair.test")];
    const start = async (secret: string) => {
      const answer = await graphql(
        `
          mutation ($input: StartScoreInput!) {
            startScore(input: $input) {
              job {
                id
              }
            }
          }
        `,
        { input: { url: service.siteUrl("gate.test"), kind: "quick" } },
        { bearer: secret },
      );
      expect(answer.errors).toBeUndefined();
      return (answer.data as { startScore: { job: { id: string } } }).startScore.job.id;
    };
    const busyJobs: string[] = [];
    for (let i = 0; i < 5; i += 1) busyJobs.push(await start(busy));
    const quietJob = await start(quiet);

    const ranks = (await sql(`SELECT "id", "fair_rank" FROM "score_jobs" WHERE "id" = ANY($1) ORDER BY "created_at"`, [
      [...busyJobs, quietJob],
    ])) as Array<{
      id: string;
      fair_rank: number;
    }>;
    expect(ranks.map((row) => row.fair_rank)).toEqual([0, 1, 2, 3, 4, 0]);

    openGate();
    const deadline = Date.now() + 60_000;
    let finished: Array<{ id: string }> = [];
    while (Date.now() < deadline) {
      finished = (await sql(
        `SELECT j."id" FROM "score_jobs" j JOIN "score_results" r ON r."id" = j."result_id" WHERE j."id" = ANY($1) AND j."status" = 'completed' ORDER BY r."created_at"`,
        [[...busyJobs, quietJob]],
      )) as Array<{ id: string }>;
      if (finished.length === 6) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The busy account's first job was already running; the quiet account's first job is next.
    expect(finished.map((row) => row.id)).toEqual([busyJobs[0], quietJob, ...busyJobs.slice(1)]);
  });
});
