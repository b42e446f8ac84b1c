import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { apiClient, graphqlClient } from "../../support/http.js";
import { createClient } from "graphql-ws";
import { WebSocket } from "ws";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * A batch shares the fair queue: its jobs take consecutive places in its account's
 * backlog, so another account's single score sent after a 20-address batch runs
 * before the batch's last job. One worker, and gated fixture sites: nothing runs
 * until the test opens the gate, so the order is decided by the queue alone. The
 * batchProgress subscription follows the same batch to its end.
 */
let service: ScoringTestApp;
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));
const page = (name: string) =>
  `<html><head><title>${name}</title></head><body><h1>${name}</h1><p>Pricing from $49 per month.</p></body></html>`;

beforeAll(async () => {
  service = await startScoringApp({
    env: { SCORE_WORKERS: "1" },
    extraSites: Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [
        `gate${i}.test`,
        {
          "/": {
            handle: (_request, response) =>
              void gate.then(() => {
                response.writeHead(200, { "content-type": "text/html" });
                response.end(page(`Gate ${i}`));
              }),
          },
        },
      ]),
    ),
  });
});
afterAll(() => service?.close());

/** A graphql-ws client with an API key where the service reads it on a socket: connectionParams. */
const wsClient = (apiKey: string) =>
  createClient({
    url: `${service.url.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${apiKey}` },
  });

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);

interface BatchMessage {
  status: string;
  counts: { completed: number; total: number };
}

describe("a batch in the fair queue", () => {
  it("lets another account's single score run before the batch's last job, and streams the batch to its end", async () => {
    const [busy, quiet] = [
      await keyedMember(service, "busy@queue.test"),
      await keyedMember(service, "quiet@queue.test"),
    ];
    const urls = Array.from({ length: 20 }, (_, i) => service.siteUrl(`gate${i}.test`));
    const response = await apiClient(service)("/api/score/batch", {
      method: "POST",
      bearer: busy.apiKey,
      body: { urls },
    });
    expect(response.status).toBe(202);
    const batch = (await response.json()) as { id: string; items: Array<{ jobId: string }> };
    const batchJobs = batch.items.map((item) => item.jobId);

    // Follow it over graphql-ws before anything moves.
    const messages: BatchMessage[] = [];
    const ws = wsClient(busy.apiKey);
    const ended = new Promise<string>((resolve) => {
      ws.subscribe<{ batchProgress: BatchMessage }>(
        {
          query: `subscription ($id: ID!) { batchProgress(id: $id) { status counts { completed total } } }`,
          variables: { id: batch.id },
        },
        {
          next: (result) => {
            if (result.data) messages.push(result.data.batchProgress);
            if (result.errors) resolve(`errors: ${JSON.stringify(result.errors)}`);
          },
          error: (error) => resolve(`error: ${JSON.stringify(error)}`),
          complete: () => resolve("complete"),
        },
      );
    });

    const started = await graphqlClient(service)(
      `mutation ($input: StartScoreInput!) { startScore(input: $input) { job { id } } }`,
      { input: { url: service.siteUrl("gate20.test"), kind: "score" } },
      { bearer: quiet.apiKey },
    );
    expect(started.errors).toBeUndefined();
    const single = started.data!.startScore.job.id as string;

    const ranks = (await sql(`SELECT "id", "fair_rank" FROM "score_jobs" WHERE "id" = ANY($1)`, [
      [...batchJobs, single],
    ])) as Array<{ id: string; fair_rank: number }>;
    const rankOf = new Map(ranks.map((row) => [row.id, row.fair_rank]));
    expect(batchJobs.map((id) => rankOf.get(id))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(rankOf.get(single)).toBe(0);

    openGate();
    const deadline = Date.now() + 120_000;
    let finished: Array<{ id: string }> = [];
    while (Date.now() < deadline) {
      finished = (await sql(
        `SELECT j."id" FROM "score_jobs" j JOIN "score_results" r ON r."id" = j."result_id" WHERE j."id" = ANY($1) AND j."status" = 'completed' ORDER BY r."created_at"`,
        [[...batchJobs, single]],
      )) as Array<{ id: string }>;
      if (finished.length === 21) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const order = finished.map((row) => row.id);
    expect(order).toHaveLength(21);
    // The batch's first job was already running when the single score came; the single one is next.
    expect(order.indexOf(single)).toBeLessThan(order.indexOf(batchJobs[19]!));
    expect(order.indexOf(single)).toBeLessThanOrEqual(2);

    expect(await ended).toBe("complete");
    await ws.dispose();
    expect(["queued", "running"]).toContain(messages[0]!.status);
    expect(messages.at(-1)).toEqual({ status: "completed", counts: { completed: 20, total: 20 } });
    // One message per change of an item, never the same batch twice in a row.
    const completedCounts = messages.map((message) => message.counts.completed);
    expect(completedCounts).toEqual([...completedCounts].sort((a, b) => a - b));
    expect(messages.length).toBeGreaterThan(2);
  });

  it("refuses to stream another account's batch", async () => {
    const owner = await keyedMember(service, "owner@queue.test");
    const stranger = await keyedMember(service, "stranger@queue.test");
    const response = await apiClient(service)("/api/score/batch", {
      method: "POST",
      bearer: owner.apiKey,
      body: { urls: ["http://10.0.0.1/"] },
    });
    const batch = (await response.json()) as { id: string; status: string };
    expect(batch.status).toBe("completed");
    const ws = wsClient(stranger.apiKey);
    const outcome = await new Promise<unknown>((resolve) => {
      ws.subscribe(
        { query: `subscription ($id: ID!) { batchProgress(id: $id) { status } }`, variables: { id: batch.id } },
        { next: (result) => resolve(result), error: (error) => resolve(error), complete: () => resolve("complete") },
      );
    });
    await ws.dispose();
    expect(JSON.stringify(outcome)).toContain("NOT_FOUND");
  });
});
