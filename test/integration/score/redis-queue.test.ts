import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BullJobQueue, startBullWorker, type BullWorkerHandle } from "../../../src/modules/score/bullmq-queue.js";
import { RedisProgressBus } from "../../../src/modules/score/redis-progress-bus.js";
import type { ScoreProgress } from "../../../src/modules/score/score-progress.js";

/**
 * The Redis twins of the in-process queue and progress bus, against a real Redis
 * (127.0.0.1:6379 on these machines and in CI). Every test uses its own prefix,
 * whose keys are removed afterwards.
 */
const liveRedis = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const silent = pino({ level: "silent" });
const prefixes: string[] = [];
const testPrefix = (): string => {
  const prefix = `pms-test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
};

let admin: Redis;
const toClose: Array<{ close(): Promise<void> }> = [];

beforeAll(() => {
  admin = new Redis(liveRedis, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  for (const resource of toClose.reverse()) await resource.close().catch(() => undefined);
  for (const prefix of prefixes) {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  await admin.quit();
});

async function until(condition: () => boolean, boundMs = 8_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const crawling = (jobId: string, page: number): ScoreProgress => ({
  jobId,
  status: "crawling",
  page,
  pages: 5,
  url: `https://example.com/${page}`,
});

describe("RedisProgressBus", () => {
  it("delivers a job's progress published by another process, in order, and nothing else", async () => {
    const keyPrefix = `${testPrefix()}:`;
    const busA = new RedisProgressBus({ url: liveRedis, keyPrefix, logger: silent });
    const busB = new RedisProgressBus({ url: liveRedis, keyPrefix, logger: silent });
    toClose.push(busA, busB);
    const jobId = randomUUID();
    const other = randomUUID();

    const heard: ScoreProgress[] = [];
    const heardTwice: ScoreProgress[] = [];
    const stop = await busB.subscribe(jobId, (progress) => heard.push(progress));
    const stopSecond = await busB.subscribe(jobId, (progress) => heardTwice.push(progress));

    // Published at once after subscribe resolved: nothing may be missed.
    const sent: ScoreProgress[] = [{ jobId, status: "queued" }];
    for (let page = 1; page <= 5; page += 1) sent.push(crawling(jobId, page));
    sent.push({ jobId, status: "scoring", dimension: 1, dimensions: 27, dimensionId: "security_posture" });
    sent.push({ jobId, status: "completed", resultId: randomUUID() });
    const publishes: Array<Promise<void>> = [];
    for (const progress of sent) {
      publishes.push(busA.publish(progress));
      publishes.push(busA.publish(crawling(other, 1)));
    }
    await Promise.all(publishes);
    // Malformed messages on the job's channel are ignored.
    await admin.publish(`${keyPrefix}progress:${jobId}`, "not json");
    await admin.publish(`${keyPrefix}progress:${jobId}`, JSON.stringify({ jobId, status: "exploded" }));
    await admin.publish(`${keyPrefix}progress:${jobId}`, JSON.stringify(crawling(other, 2)));
    const marker: ScoreProgress = { jobId, status: "failed", error: { code: "INTERNAL", message: "marker" } };
    await busA.publish(marker);

    await until(() => heard.length >= sent.length + 1 && heardTwice.length >= sent.length + 1);
    expect(heard).toEqual([...sent, marker]);
    expect(heardTwice).toEqual([...sent, marker]);

    // One listener leaving keeps the channel for the other; the last leaving unsubscribes.
    await stopSecond();
    await busA.publish(crawling(jobId, 9));
    await until(() => heard.length === sent.length + 2);
    expect(heardTwice).toHaveLength(sent.length + 1);
    await stop();
    const subscribers = (await admin.pubsub("NUMSUB", `${keyPrefix}progress:${jobId}`)) as [string, number];
    expect(Number(subscribers[1])).toBe(0);
    await busA.publish(crawling(jobId, 10));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(heard).toHaveLength(sent.length + 2);

    // Subscribing again after the last listener left works (and stop is idempotent).
    const again: ScoreProgress[] = [];
    const stopAgain = await busB.subscribe(jobId, (progress) => again.push(progress));
    await stop();
    await busA.publish(crawling(jobId, 11));
    await until(() => again.length === 1);
    await stopAgain();
  });
});

describe("BullJobQueue with startBullWorker", () => {
  it("runs each enqueued id once, never more than `concurrency` at a time", async () => {
    const prefix = testPrefix();
    const queue = new BullJobQueue({ url: liveRedis, prefix, logger: silent });
    toClose.push(queue);
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const first = ids[0]!;
    // Enqueued before any worker runs, one of them twice while it waits.
    for (const id of ids) await queue.enqueue(id);
    await queue.enqueue(first);

    const seen: string[] = [];
    let running = 0;
    let most = 0;
    const worker = startBullWorker(
      async (jobId) => {
        running += 1;
        most = Math.max(most, running);
        seen.push(jobId);
        await new Promise((resolve) => setTimeout(resolve, 100));
        running -= 1;
      },
      { url: liveRedis, concurrency: 2, prefix, logger: silent },
    );
    toClose.push(worker);
    await worker.waitUntilReady();
    await until(() => seen.length === ids.length && running === 0);
    await new Promise((resolve) => setTimeout(resolve, 200)); // nothing more arrives
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(most).toBe(2);

    // A completed id is removed, so it can be enqueued again (the maintenance sweep relies on it).
    await queue.enqueue(first);
    await until(() => seen.length === ids.length + 1);
    expect(seen.at(-1)).toBe(first);
    await worker.close();
    await queue.close();
  });

  it("runs a job again on another worker when its worker dies mid-job", async () => {
    const prefix = testPrefix();
    const queue = new BullJobQueue({ url: liveRedis, prefix, logger: silent });
    toClose.push(queue);
    const fast = {
      url: liveRedis,
      concurrency: 1,
      prefix,
      logger: silent,
      lockDurationMs: 1_000,
      stalledIntervalMs: 300,
    };

    let started: (jobId: string) => void = () => undefined;
    const startedOnFirst = new Promise<string>((resolve) => (started = resolve));
    const dying: BullWorkerHandle = startBullWorker(async (jobId) => {
      started(jobId);
      await new Promise<never>(() => undefined); // hangs: this worker never finishes the job
    }, fast);
    toClose.push(dying);
    const jobId = randomUUID();
    await queue.enqueue(jobId);
    expect(await startedOnFirst).toBe(jobId);
    await dying.close({ force: true }); // dies: no completion, no more lock renewals

    const rerun: Array<{ jobId: string; attempt: number }> = [];
    const survivor = startBullWorker(async (id, attempt) => {
      rerun.push({ jobId: id, attempt });
    }, fast);
    toClose.push(survivor);
    await until(() => rerun.length === 1);
    expect(rerun).toEqual([{ jobId, attempt: 0 }]);
    await survivor.close();
    await queue.close();
  });
});
