import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember, drainCredits } from "../../support/api-key.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Score a list (docs/api.md §13) through both doors, on a real service scoring
 * local fixture sites: money moves in one transaction, refused addresses cost
 * nothing, a failed job is refunded, duplicates are scored once.
 */
let service: ScoringTestApp;

beforeAll(async () => {
  service = await startScoringApp({ env: { SCORE_WORKERS: "2" } });
});
afterAll(() => service?.close());

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);

interface BatchItem {
  position: number;
  url: string;
  normalizedUrl: string | null;
  status: string;
  jobId: string | null;
  resultId: string | null;
  duplicateOf: number | null;
  totalScore: number | null;
  stageName: string | null;
  error: { code: string; message: string } | null;
}
interface Batch {
  id: string;
  status: string;
  items: BatchItem[];
  counts: Record<string, number>;
}

/** The account's score credits spent, net of refunds, in tenths. */
async function scoreSpend(accountId: string): Promise<number> {
  const [row] = (await sql(
    `SELECT COALESCE(-SUM("amount_tenths"), 0)::int AS "spent" FROM "credit_entries" WHERE "account_id" = $1 AND "action" = 'score'`,
    [accountId],
  )) as Array<{ spent: number }>;
  return row!.spent;
}

/** Refused, or accepted (queued, or already taken by a worker). */
const outcome = (status: string) => (status === "refused" ? "refused" : "accepted");

async function waitForBatch(apiKey: string, id: string): Promise<Batch> {
  const api = apiClient(service);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const batch = (await (await api(`/api/score/batches/${id}`, { bearer: apiKey })).json()) as Batch;
    if (batch.status === "completed" || Date.now() > deadline) return batch;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("POST /api/score/batch", () => {
  it("scores the accepted addresses, refuses the bad ones for nothing, scores duplicates once and refunds a failure", async () => {
    const member = await keyedMember(service, "batch@batch.test");
    const api = apiClient(service);
    const urls = [
      service.siteUrl("seed.test"),
      "not an address",
      service.siteUrl("leader.test"),
      `${service.siteUrl("seed.test")}#again`,
      "http://10.0.0.1/",
      "http://nowhere.test/",
    ];
    const response = await api("/api/score/batch", { method: "POST", bearer: member.apiKey, body: { urls } });
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as Batch;
    expect(response.headers.get("location")).toBe(`/api/score/batches/${accepted.id}`);
    // Queued, unless a worker already took the job (the in-process workers start at once).
    expect(accepted.items.map((item) => outcome(item.status))).toEqual([
      "accepted",
      "refused",
      "accepted",
      "accepted",
      "refused",
      "accepted",
    ]);
    expect(accepted.items[1]!.error?.code).toBe("INVALID_URL");
    expect(accepted.items[4]!.error?.code).toBe("INVALID_URL");
    // The fragment is dropped by normalization: the same address, scored once.
    expect(accepted.items[3]!.duplicateOf).toBe(0);
    expect(accepted.items[3]!.jobId).toBe(accepted.items[0]!.jobId);
    expect(accepted.counts).toMatchObject({ total: 6, refused: 2 });
    // Three distinct addresses, three scores charged at once: 10 credits each.
    expect(await scoreSpend(member.accountId)).toBe(300);

    const done = await waitForBatch(member.apiKey, accepted.id);
    expect(done.status).toBe("completed");
    expect(done.items.map((item) => item.status)).toEqual([
      "completed",
      "refused",
      "completed",
      "completed",
      "refused",
      "failed",
    ]);
    expect(done.items[0]!.resultId).toBe(done.items[3]!.resultId);
    expect(done.items[2]!.totalScore).toBeGreaterThan(done.items[0]!.totalScore!);
    expect(done.items[5]!.error?.code).toBeTruthy();
    expect(done.counts).toMatchObject({ total: 6, refused: 2, completed: 3, failed: 1, queued: 0, running: 0 });
    // The failed job was refunded by the runner: two scores stand.
    expect(await scoreSpend(member.accountId)).toBe(200);
  });

  it("takes a text/csv body and answers the batch as CSV, injection-safe", async () => {
    const member = await keyedMember(service, "csv@batch.test");
    const api = apiClient(service);
    const csv = `url\r\n"${service.siteUrl("bare.test")}",first\r\n\r\n=HYPERLINK("x")\r\n`;
    const response = await fetch(`${service.url}/api/score/batch`, {
      method: "POST",
      headers: { "content-type": "text/csv", authorization: `Bearer ${member.apiKey}` },
      body: csv,
    });
    expect(response.status).toBe(202);
    const batch = (await response.json()) as Batch;
    expect(batch.items.map((item) => [item.url, outcome(item.status)])).toEqual([
      [service.siteUrl("bare.test"), "accepted"],
      ['=HYPERLINK("x")', "refused"],
    ]);
    await waitForBatch(member.apiKey, batch.id);
    const answer = await api(`/api/score/batches/${batch.id}`, {
      bearer: member.apiKey,
      headers: { accept: "text/csv" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await answer.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("url,status,result_id,total_score,stage,error_code,error_message");
    expect(lines[1]).toMatch(new RegExp(`^${service.siteUrl("bare.test")},completed,[0-9a-f-]{36},\\d+,\\w+,,$`));
    expect(lines[2]!.startsWith(`"'=HYPERLINK(""x"")",refused,,,,INVALID_URL,`)).toBe(true);
  });

  it("reads text/csv on this route only: another route answers it 415, an open quote is 400", async () => {
    const member = await keyedMember(service, "media@batch.test");
    const post = (path: string, body: string) =>
      fetch(`${service.url}${path}`, {
        method: "POST",
        headers: { "content-type": "text/csv", authorization: `Bearer ${member.apiKey}` },
        body,
      });
    const elsewhere = await post("/api/score", service.siteUrl("seed.test"));
    expect(elsewhere.status).toBe(415);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const open = await post("/api/score/batch", `"${service.siteUrl("seed.test")}\n`);
    expect(open.status).toBe(400);
    expect(((await open.json()) as { error: { message: string } }).error.message).toMatch(/line 1/);
    expect(await scoreSpend(member.accountId)).toBe(0);
  });

  it("answers two concurrent sends of one Idempotency-Key with one batch, charged once", async () => {
    const member = await keyedMember(service, "twice@batch.test");
    const send = () =>
      apiClient(service)("/api/score/batch", {
        method: "POST",
        bearer: member.apiKey,
        headers: { "idempotency-key": "same-list" },
        body: { urls: ["http://nowhere.test/once"] },
      });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
    const [a, b] = (await Promise.all(answers.map((answer) => answer.json()))) as Batch[];
    expect(a!.id).toBe(b!.id);
    const [batches] = (await sql(`SELECT COUNT(*)::int AS "n" FROM "score_batches" WHERE "account_id" = $1`, [
      member.accountId,
    ])) as Array<{ n: number }>;
    expect(batches!.n).toBe(1);
  });

  it("refuses the whole batch with 402 when the credits cannot cover every address, charging nothing", async () => {
    const member = await keyedMember(service, "poor@batch.test");
    await drainCredits(service, member, 150);
    const before = await sql(`SELECT * FROM "credit_entries" WHERE "account_id" = $1 ORDER BY "id"`, [
      member.accountId,
    ]);
    const response = await apiClient(service)("/api/score/batch", {
      method: "POST",
      bearer: member.apiKey,
      body: { urls: [service.siteUrl("seed.test"), service.siteUrl("maker.test")] },
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("CREDIT_EXHAUSTED");
    expect(
      await sql(`SELECT * FROM "credit_entries" WHERE "account_id" = $1 ORDER BY "id"`, [member.accountId]),
    ).toEqual(before);
    expect(await sql(`SELECT 1 FROM "score_jobs" WHERE "account_id" = $1`, [member.accountId])).toEqual([]);
    expect(await sql(`SELECT 1 FROM "score_batches" WHERE "account_id" = $1`, [member.accountId])).toEqual([]);
  });

  it("is for Business and Enterprise: Pro is refused 402 PLAN_LIMIT_REACHED; an empty or over-long list is 400", async () => {
    const pro = await signIn(service, "pro@batch.test");
    await sql("UPDATE accounts SET plan = 'pro' WHERE id = $1", [pro.accountId]);
    const api = apiClient(service);
    const refused = await api("/api/score/batch", {
      method: "POST",
      cookie: pro.cookie,
      body: { urls: [service.siteUrl("seed.test")] },
    });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PLAN_LIMIT_REACHED");

    const member = await keyedMember(service, "limits@batch.test");
    const empty = await api("/api/score/batch", { method: "POST", bearer: member.apiKey, body: { urls: [] } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { param: string } }).error.param).toBe("urls");
    const many = await api("/api/score/batch", {
      method: "POST",
      bearer: member.apiKey,
      body: { urls: Array.from({ length: 101 }, (_, i) => `https://site${i}.test/`) },
    });
    expect(many.status).toBe(400);
    const anonymous = await api("/api/score/batch", { method: "POST", body: { urls: ["https://a.test/"] } });
    expect(anonymous.status).toBe(401);
    expect(await scoreSpend(member.accountId)).toBe(0);
  });

  it("counts a batch as one request: one short-window slot and one API call, whatever its length", async () => {
    const member = await keyedMember(service, "slots@batch.test");
    const apiCalls = async () =>
      (
        (await sql(
          `SELECT COUNT(*)::int AS "n" FROM "credit_entries" WHERE "account_id" = $1 AND "action" = 'api_call'`,
          [member.accountId],
        )) as Array<{ n: number }>
      )[0]!.n;
    const before = await apiCalls();
    const send = (round: number) =>
      apiClient(service)("/api/score/batch", {
        method: "POST",
        bearer: member.apiKey,
        // Three addresses that do not resolve: three jobs each, failing fast (and refunded).
        body: { urls: [1, 2, 3].map((i) => `http://nowhere.test/${round}/${i}`) },
      });
    for (let round = 0; round < 5; round += 1) expect((await send(round)).status).toBe(202);
    expect(await apiCalls()).toBe(before + 5);
    const refused = await send(5);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("SCORING_RATE_LIMITED");
    expect(await apiCalls()).toBe(before + 5);
    const [jobs] = (await sql(`SELECT COUNT(*)::int AS "n" FROM "score_jobs" WHERE "account_id" = $1`, [
      member.accountId,
    ])) as Array<{ n: number }>;
    expect(jobs!.n).toBe(15);
  });

  it("replays an Idempotency-Key, and hides another account's batch (404)", async () => {
    const member = await keyedMember(service, "again@batch.test");
    const api = apiClient(service);
    const send = () =>
      api("/api/score/batch", {
        method: "POST",
        bearer: member.apiKey,
        headers: { "idempotency-key": "list-1" },
        body: { urls: [service.siteUrl("early.test")] },
      });
    const first = (await (await send()).json()) as Batch;
    const second = await send();
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(((await second.json()) as Batch).id).toBe(first.id);
    expect(await scoreSpend(member.accountId)).toBe(100);

    const stranger = await keyedMember(service, "stranger@batch.test");
    expect((await api(`/api/score/batches/${first.id}`, { bearer: stranger.apiKey })).status).toBe(404);
    expect((await api(`/api/score/batches/not-a-uuid`, { bearer: stranger.apiKey })).status).toBe(404);
    await waitForBatch(member.apiKey, first.id);
  });

  it("is the same operation over GraphQL: scoreBatch mutation and query", async () => {
    const member = await keyedMember(service, "graphql@batch.test");
    const graphql = graphqlClient(service);
    const started = await graphql(
      `
        mutation ($input: ScoreBatchInput!) {
          scoreBatch(input: $input) {
            id
            status
            items {
              url
              status
              jobId
            }
            counts {
              total
            }
          }
        }
      `,
      { input: { urls: [service.siteUrl("growing.test"), "mailto:x@y.test"] } },
      { bearer: member.apiKey },
    );
    expect(started.errors).toBeUndefined();
    const batch = started.data!.scoreBatch as Batch;
    expect(batch.items.map((item) => outcome(item.status))).toEqual(["accepted", "refused"]);
    await waitForBatch(member.apiKey, batch.id);
    const read = await graphql(
      `
        query ($id: ID!) {
          scoreBatch(id: $id) {
            status
            items {
              status
              resultId
            }
          }
        }
      `,
      { id: batch.id },
      { bearer: member.apiKey },
    );
    expect(read.data!.scoreBatch.status).toBe("completed");
    expect(read.data!.scoreBatch.items[0].resultId).toBeTruthy();
  });
});
