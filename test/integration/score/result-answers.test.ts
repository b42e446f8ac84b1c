import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { apiClient, signIn } from "../../support/http.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import {
  resultAnswerSchema,
  storeFinalResultAnswers,
} from "../../../rest-compat/final-answers/final-result-answers.js";
import { ResultAnswerRepository } from "../../../rest-compat/final-answers/result-answer.repository.js";
import { ResultAnswerStore } from "../../../rest-compat/final-answers/result-answer-store.js";
import { Transactions } from "../../../src/db/transaction.js";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import { ScoreResultsService } from "../../../src/modules/score/score-results.service.js";
import type { ScoreService } from "../../../src/modules/score/score.service.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Final answers of `GET /api/score/{id}` are stored once and served, on a memory
 * miss, from one primary-key read: proven with a second service on the same
 * database (its memory empty) and a stored row it could only have read.
 */
let database: TestDatabase;
let first: ScoringTestApp;
let second: ScoringTestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  first = await startScoringApp({ env: { DATABASE_URL: database.url } });
  second = await startScoringApp({ env: { DATABASE_URL: database.url } });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await database?.drop();
});

const sql = (text: string, values: unknown[] = []) => first.app.database.dataSource.query(text, values);

async function scoreOne(email: string): Promise<string> {
  const caller = await signIn(first, email);
  const response = await apiClient(first)("/api/score/quick", {
    method: "POST",
    cookie: caller.cookie,
    body: { url: first.siteUrl("leader.test") },
  });
  expect(response.status).toBe(200);
  return (await response.json()).id as string;
}

describe("stored final answers", () => {
  it("stores a result's final answer when its job completes, before anyone reads it: the bytes every read then serves", async () => {
    const id = await scoreOne("di@answers.test");
    // The scoring call answered after the completion was announced, and the answer is stored before that.
    const [stored] = (await sql(`SELECT body FROM score_result_answers WHERE result_id = $1`, [id])) as Array<{
      body: string;
    }>;
    expect(stored).toBeDefined();
    const fromMemory = await (await apiClient(first)(`/api/score/${id}`)).text();
    const fromStore = await (await apiClient(second)(`/api/score/${id}`)).text();
    expect(fromMemory).toBe(stored!.body);
    expect(fromStore).toBe(stored!.body);
    // Without it (a result completed before this was built, or a failed write) the first read stores it.
    await sql(`DELETE FROM score_result_answers WHERE result_id = $1`, [id]);
    const third = await startScoringApp({ env: { DATABASE_URL: database.url } });
    try {
      expect(await (await apiClient(third)(`/api/score/${id}`)).text()).toBe(stored!.body);
    } finally {
      await third.close();
    }
    await expect
      .poll(async () => (await sql(`SELECT body FROM score_result_answers WHERE result_id = $1`, [id]))[0]?.body)
      .toBe(stored!.body);
  });

  it("builds the same answer in a worker process's schema (the scoring resolver alone behind the whole contract)", async () => {
    const id = await scoreOne("ed@answers.test");
    const [before] = (await sql(`SELECT body FROM score_result_answers WHERE result_id = $1`, [id])) as Array<{
      body: string;
    }>;
    await sql(`DELETE FROM score_result_answers WHERE result_id = $1`, [id]);
    const dataSource = first.app.database.dataSource;
    const schema = resultAnswerSchema(
      undefined as unknown as ScoreService,
      new ScoreResultsService(new ScoreResultRepository(dataSource), new Transactions(dataSource)),
      0,
    );
    const events = new DomainEvents(pino({ level: "silent" }));
    storeFinalResultAnswers({
      schema,
      store: new ResultAnswerStore(new ResultAnswerRepository(dataSource)),
      events,
      logger: pino({ level: "silent" }),
    });
    await events.publish([
      {
        id: "evt",
        type: "score.completed",
        accountId: "acct",
        occurredAt: new Date(),
        data: {
          accountId: "acct",
          resultId: id,
          jobId: "job",
          url: "u",
          totalScore: 1,
          stageName: "s",
          framework: "maturity",
          productId: null,
        },
      },
    ]);
    const [after] = (await sql(`SELECT body FROM score_result_answers WHERE result_id = $1`, [id])) as Array<{
      body: string;
    }>;
    expect(after?.body).toBe(before!.body);
  });

  it("stores a final answer once when first served, and a service whose memory misses serves it with one read", async () => {
    const id = await scoreOne("ada@answers.test");
    const served = await (await apiClient(first)(`/api/score/${id}`)).text();
    await expect
      .poll(async () => (await sql(`SELECT body FROM score_result_answers WHERE result_id = $1`, [id]))[0]?.body)
      .toBe(served);

    // Only the stored row can give the second service this body.
    // (A well-formed answer, so the contract check of every /api answer holds: only its company name differs.)
    const marked = { ...(JSON.parse(served) as Record<string, unknown>), companyName: "From the stored answer" };
    await sql(`UPDATE score_result_answers SET body = $2 WHERE result_id = $1`, [id, JSON.stringify(marked)]);
    const fromStore = await apiClient(second)(`/api/score/${id}`);
    expect(fromStore.status).toBe(200);
    expect(await fromStore.json()).toEqual(marked);
    expect(fromStore.headers.get("etag")).toBeTruthy();
  });

  it("revalidates a final answer with 304 however it is found: built afresh, read from the store, or from memory", async () => {
    const id = await scoreOne("fay@answers.test");
    const etag = (await apiClient(first)(`/api/score/${id}`)).headers.get("etag")!;
    await sql(`DELETE FROM score_result_answers WHERE result_id = $1`, [id]);
    // The second service has never read it and nothing is stored: the operation runs, and finds it final.
    const built = await apiClient(second)(`/api/score/${id}`, { headers: { "if-none-match": etag } });
    expect(built.status).toBe(304);
    expect(built.headers.get("etag")).toBe(etag);
    await expect
      .poll(async () => (await sql(`SELECT 1 FROM score_result_answers WHERE result_id = $1`, [id])).length)
      .toBe(1);
    const third = await startScoringApp({ env: { DATABASE_URL: database.url } });
    try {
      const fromStore = await apiClient(third)(`/api/score/${id}`, { headers: { "if-none-match": `W/${etag}` } });
      expect(fromStore.status).toBe(304);
      expect(fromStore.headers.get("cache-control")).toBe("public, max-age=300");
      expect((await apiClient(third)(`/api/score/${id}`, { headers: { "if-none-match": etag } })).status).toBe(304);
    } finally {
      await third.close();
    }
  });

  it("does not serve an answer stored for another shape of the operation; it answers afresh and replaces it", async () => {
    const id = await scoreOne("bo@answers.test");
    await expect.poll(async () => (await apiClient(first)(`/api/score/${id}`)).status).toBe(200);
    await expect
      .poll(async () => (await sql(`SELECT shape FROM score_result_answers WHERE result_id = $1`, [id])).length)
      .toBe(1);
    const [{ shape }] = await sql(`SELECT shape FROM score_result_answers WHERE result_id = $1`, [id]);
    await sql(
      `UPDATE score_result_answers SET shape = 'an-older-deploy', body = '{"stale":true}' WHERE result_id = $1`,
      [id],
    );
    const fresh = await (await apiClient(second)(`/api/score/${id}`)).json();
    expect(fresh.id).toBe(id);
    await expect
      .poll(async () => (await sql(`SELECT shape FROM score_result_answers WHERE result_id = $1`, [id]))[0]?.shape)
      .toBe(shape);
  });

  it("never stores a held anonymous result, and a deleted result's answer goes with it", async () => {
    const anonymous = await apiClient(first)("/api/score/quick", {
      method: "POST",
      body: { url: first.siteUrl("leader.test") },
    });
    expect(anonymous.status).toBe(200);
    const held = (await anonymous.json()).id as string;
    expect((await apiClient(first)(`/api/score/${held}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sql(`SELECT 1 FROM score_result_answers WHERE result_id = $1`, [held])).toEqual([]);

    const id = await scoreOne("cy@answers.test");
    await apiClient(first)(`/api/score/${id}`);
    await expect
      .poll(async () => (await sql(`SELECT 1 FROM score_result_answers WHERE result_id = $1`, [id])).length)
      .toBe(1);
    await sql(`DELETE FROM score_results WHERE id = $1`, [id]);
    expect(await sql(`SELECT 1 FROM score_result_answers WHERE result_id = $1`, [id])).toEqual([]);
  });
});
