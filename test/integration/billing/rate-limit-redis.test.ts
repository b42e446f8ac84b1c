import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { pino } from "pino";
import { TcpRelay } from "../../support/tcp-relay.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnonymousCap } from "../../../src/modules/billing/rate-limit/anonymous-cap.js";
import { RateLimiter, type RateLimitDecision } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import { RedisSlidingWindowStore } from "../../../src/modules/billing/rate-limit/sliding-window.js";
import { connectRedis, type RedisConnection } from "../../../src/redis.js";
import { describeAnonymousCapBehaviour, describeRateLimiterBehaviour } from "../../unit/billing/rate-limit.behaviour.js";
import { rejectionOf } from "../../support/app-error.js";

/**
 * The rate limits against a real Redis (127.0.0.1:6379 on these machines and in CI),
 * through the service's own connection factory (no offline queue, background retries).
 * Every test writes under its own key prefix, removed afterwards.
 */
const liveRedis = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const silent = pino({ level: "silent" });
const prefixes: string[] = [];
const testPrefix = (): string => {
  const prefix = `pms:rl:test:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
};

let redis: RedisConnection;

beforeAll(async () => {
  redis = connectRedis(liveRedis, silent);
  await once(redis.client, "ready");
});

afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await redis.client.keys(`${prefix}*`);
    if (keys.length > 0) await redis.client.del(...keys);
  }
  await redis?.close();
});

describeRateLimiterBehaviour("Redis", () => new RedisSlidingWindowStore(redis.client, { keyPrefix: testPrefix() }));
describeAnonymousCapBehaviour("Redis", () => new AnonymousCap({ redis: redis.client, keyPrefix: testPrefix() }));

describe("Redis sliding window store", () => {
  it("keeps a sorted set of accepted hits under pms:rl:, expiring with the window", async () => {
    const key = `test:${randomUUID()}`;
    prefixes.push(`pms:rl:${key}`);
    const store = new RedisSlidingWindowStore(redis.client);
    for (let attempt = 0; attempt < 8; attempt += 1) await store.hit(key, 5, 60_000, 1_000 + attempt);

    expect(await redis.client.type(`pms:rl:${key}`)).toBe("zset");
    expect(await redis.client.zcard(`pms:rl:${key}`)).toBe(5);
    const ttl = await redis.client.pttl(`pms:rl:${key}`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("answers with epoch-millisecond precision", async () => {
    const store = new RedisSlidingWindowStore(redis.client, { keyPrefix: testPrefix() });
    const now = Date.now();
    expect(await store.hit("k", 5, 60_000, now)).toEqual({ allowed: true, count: 1, oldestMs: now });
  });
});

async function pollUntilAllowed(check: () => Promise<RateLimitDecision>, boundMs = 5_000): Promise<RateLimitDecision> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const decision = await check();
    if (decision.allowed || Date.now() > deadline) return decision;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}


describe("rate limits while Redis goes away and comes back", () => {
  let link: TcpRelay;
  let relayed: RedisConnection;
  let limiter: RateLimiter;
  let cap: AnonymousCap;

  beforeAll(async () => {
    const real = new URL(liveRedis);
    link = new TcpRelay({ host: real.hostname, port: Number(real.port || 6379) });
    await link.open();
    const url = new URL(liveRedis);
    url.hostname = "127.0.0.1";
    url.port = String(link.port);
    relayed = connectRedis(url.toString(), silent);
    await once(relayed.client, "ready");
    limiter = new RateLimiter(new RedisSlidingWindowStore(relayed.client, { keyPrefix: testPrefix() }));
    cap = new AnonymousCap({ redis: relayed.client, keyPrefix: testPrefix() });
  });

  afterAll(async () => {
    await relayed?.close();
    await link?.cut();
  });

  it("refuses with 429 and Retry-After: 60 while Redis is unreachable, then recovers without a restart", async () => {
    expect((await limiter.check("score", "user-1")).allowed).toBe(true);
    await cap.consume("203.0.113.1");

    await link.cut();
    // A request already written when the link dropped is resent by ioredis on reconnect
    // (autoResendUnfulfilledCommands) and may still count; from the moment the client
    // knows Redis is gone, requests are refused at once and charged nothing.
    if (relayed.client.status === "ready") await once(relayed.client, "close");
    const started = performance.now();
    const during = await limiter.check("score", "user-1");
    expect(performance.now() - started).toBeLessThan(50); // refused at once, not after the timeout
    expect(during).toMatchObject({ allowed: false, outcome: "store-unavailable", retryAfterSeconds: 60 });
    expect(during.toError()).toMatchObject({ code: "SCORING_RATE_LIMITED", status: 429, retryable: true });
    expect(during.toError().headers["Retry-After"]).toBe("60");

    const anonymousDuring = await rejectionOf(cap.consume("203.0.113.2"));
    expect(anonymousDuring).toMatchObject({ code: "SCORING_RATE_LIMITED", status: 429, retryable: true });
    expect(anonymousDuring.headers["Retry-After"]).toBe("60");

    await link.open();
    const after = await pollUntilAllowed(() => limiter.check("score", "user-1"));
    expect(after).toMatchObject({ allowed: true, remaining: 3 }); // the refusals during the outage cost nothing
    // The address refused during the outage still has its one anonymous score.
    await expect(cap.consume("203.0.113.2")).resolves.toMatchObject({ remaining: 0 });
  });

  it("refuses when Redis is connected but answers later than ~100 ms, then recovers", async () => {
    link.stall();
    try {
      const started = performance.now();
      const during = await limiter.check("chat", "user-2");
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(95);
      expect(waited).toBeLessThan(500);
      expect(during).toMatchObject({ allowed: false, outcome: "store-unavailable", retryAfterSeconds: 60 });
      expect(during.toError().message).toMatch(/temporarily unavailable/);

      const anonymousDuring = await rejectionOf(cap.consume("203.0.113.3"));
      expect(anonymousDuring).toMatchObject({ code: "SCORING_RATE_LIMITED" });
      expect(anonymousDuring.headers["Retry-After"]).toBe("60");
    } finally {
      link.resume();
    }
    expect((await pollUntilAllowed(() => limiter.check("chat", "user-2"))).allowed).toBe(true);
  });
});
