import { randomUUID } from "node:crypto";
import { createClient } from "graphql-ws";
import { Redis } from "ioredis";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { apiClient } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * A batch on a service with Redis: its jobs go through BullMQ and their progress
 * through Redis pub/sub, and batchProgress follows the batch to its end over that
 * bus. The service gets a Redis namespace of its own (REDIS_PREFIX), removed after.
 */
const liveRedis = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redisPrefix = `pms-batch-${randomUUID().slice(0, 8)}`;
let service: ScoringTestApp;

beforeAll(async () => {
  service = await startScoringApp({
    env: { REDIS_URL: liveRedis, REDIS_PREFIX: redisPrefix, SCORE_WORKERS: "2" },
  });
});
afterAll(async () => {
  await service?.close();
  const admin = new Redis(liveRedis, { maxRetriesPerRequest: 1 });
  const keys = await admin.keys(`${redisPrefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe("a batch over Redis", () => {
  it("runs its jobs through BullMQ and streams the batch to completed over the Redis bus", async () => {
    const member = await keyedMember(service, "redis@batch.test");
    const response = await apiClient(service)("/api/score/batch", {
      method: "POST",
      bearer: member.apiKey,
      body: { urls: [service.siteUrl("seed.test"), service.siteUrl("maker.test"), service.siteUrl("seed.test")] },
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    const ws = createClient({
      url: `${service.url.replace(/^http/, "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${member.apiKey}` },
    });
    const statuses: string[] = [];
    let last: { status: string; counts: { completed: number; total: number } } | undefined;
    const ending = await new Promise<string>((resolve) => {
      ws.subscribe<{ batchProgress: NonNullable<typeof last> }>(
        {
          query: `subscription ($id: ID!) { batchProgress(id: $id) { status counts { completed total } } }`,
          variables: { id },
        },
        {
          next: (result) => {
            if (result.errors) resolve(JSON.stringify(result.errors));
            if (result.data) {
              last = result.data.batchProgress;
              statuses.push(last.status);
            }
          },
          error: (error) => resolve(`error: ${JSON.stringify(error)}`),
          complete: () => resolve("complete"),
        },
      );
    });
    await ws.dispose();
    expect(ending).toBe("complete");
    expect(last).toEqual({ status: "completed", counts: { completed: 3, total: 3 } });
    expect(statuses.at(-1)).toBe("completed");
  });
});
