import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { pino } from "pino";
import { TcpRelay } from "../../support/tcp-relay.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnonymousCap } from "../../../src/modules/billing/rate-limit/anonymous-cap.js";
import { RateLimiter, type RateLimitDecision } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import { StoreTimeoutError } from "../../../src/modules/billing/rate-limit/fail-closed.js";
import { HitNotSentError, RedisSlidingWindowStore } from "../../../src/modules/billing/rate-limit/sliding-window.js";
import { connectRedis, type RedisConnection } from "../../../src/redis.js";
import {
  describeAnonymousCapBehaviour,
  describeRateLimiterBehaviour,
} from "../../unit/billing/rate-limit.behaviour.js";
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

  /** Back to a relay that passes everything at once, and a client that is connected through it. */
  async function healLink(): Promise<void> {
    link.resume();
    link.delay(0);
    if (!link.listening) await link.open();
    if (relayed.client.status !== "ready") await once(relayed.client, "ready");
  }

  it("refuses with 429 and Retry-After: 60 while Redis is unreachable, then recovers without a restart", async () => {
    expect((await limiter.check("score", "user-1")).allowed).toBe(true);
    await cap.consume("203.0.113.1");

    await link.cut();
    if (relayed.client.status === "ready") await once(relayed.client, "close");
    const during = await limiter.check("score", "user-1");
    // Refused because the client knows the link is down, not by waiting out the deadline.
    expect(during.cause).toBeInstanceOf(HitNotSentError);
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

  it("is not reported unavailable when a healthy Redis answers 300 ms late", async () => {
    const slow = new RateLimiter(new RedisSlidingWindowStore(relayed.client, { keyPrefix: testPrefix() }));
    link.delay(300);
    try {
      const decisions = [await slow.check("chat", "user-slow"), await slow.check("chat", "user-slow")];
      expect(decisions.map((decision) => decision.outcome)).toEqual(["allowed", "allowed"]);
      expect(decisions[1]).toMatchObject({ remaining: 28 });
      await expect(cap.peek("203.0.113.9")).resolves.toMatchObject({ RateLimit: expect.stringContaining("r=1") });
    } finally {
      await healLink();
    }
  });

  it("refuses when Redis is connected but does not answer within the deadline, and the refused hit is taken back", async () => {
    const keyPrefix = testPrefix();
    const stuck = new RateLimiter(new RedisSlidingWindowStore(relayed.client, { keyPrefix }));
    expect((await stuck.check("chat", "user-2")).allowed).toBe(true);
    link.stall();
    try {
      const during = await stuck.check("chat", "user-2");
      expect(during).toMatchObject({ allowed: false, outcome: "store-unavailable", retryAfterSeconds: 60 });
      expect(during.cause).toBeInstanceOf(StoreTimeoutError);
      expect(during.toError().message).toMatch(/temporarily unavailable/);
    } finally {
      await healLink();
    }
    // The stalled hit reached Redis and ran there; it was removed after it, on the same connection.
    const after = await pollUntilAllowed(() => stuck.check("chat", "user-2"));
    expect(after).toMatchObject({ allowed: true, remaining: 28 });
    expect(await redis.client.zcard(`${keyPrefix}chat:user-2`)).toBe(2);
  });

  it("fails closed at once when the link is cut under a hit in flight, and once Redis is back the window holds only admitted hits", async () => {
    const keyPrefix = testPrefix();
    // A deadline far away: the refusal must come from the dropped link, not from waiting.
    const cutOff = new RateLimiter(new RedisSlidingWindowStore(relayed.client, { keyPrefix }), { timeoutMs: 60_000 });
    expect((await cutOff.check("chat", "user-3")).allowed).toBe(true);
    link.stall();
    const inFlight = cutOff.check("chat", "user-3");
    // The relay passes requests and holds only answers: wait until Redis has run the hit, then drop the link.
    while ((await redis.client.zcard(`${keyPrefix}chat:user-3`)) < 2)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await link.cut();
    try {
      const refused = await inFlight;
      expect(refused).toMatchObject({ allowed: false, outcome: "store-unavailable", retryAfterSeconds: 60 });
      expect(refused.cause).not.toBeInstanceOf(StoreTimeoutError);
      expect(refused.toError()).toMatchObject({ code: "SCORING_RATE_LIMITED", status: 429 });
      const whileDown = await cutOff.check("chat", "user-3");
      expect(whileDown).toMatchObject({ allowed: false, outcome: "store-unavailable" });
    } finally {
      await healLink();
    }
    const after = await pollUntilAllowed(() => cutOff.check("chat", "user-3"));
    expect(after).toMatchObject({ allowed: true, remaining: 28 });
    expect(await redis.client.zcard(`${keyPrefix}chat:user-3`)).toBe(2);
  });

  it("gives an address its anonymous score back when the consume lands after the address was refused", async () => {
    const late = new AnonymousCap({ redis: relayed.client, keyPrefix: testPrefix() });
    link.stall();
    try {
      const refused = await rejectionOf(late.consume("203.0.113.4"));
      expect(refused).toMatchObject({ code: "SCORING_RATE_LIMITED" });
      expect(refused.headers["Retry-After"]).toBe("60");
    } finally {
      await healLink();
    }
    // The held consume lands now, and is rewarded right after it.
    const deadline = Date.now() + 5_000;
    let headers = await late.peek("203.0.113.4");
    while (!headers?.RateLimit?.includes("r=1") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      headers = await late.peek("203.0.113.4");
    }
    await expect(late.consume("203.0.113.4")).resolves.toMatchObject({ remaining: 0 });
  });
});

describe("the deadline and a busy event loop", () => {
  it("takes an answer that arrived while the event loop was blocked past the deadline", async () => {
    // A 100 ms deadline, and the loop blocked for 300 ms right after the hit is sent:
    // the timer fires late, with the answer already waiting in the socket.
    const busy = new RateLimiter(new RedisSlidingWindowStore(redis.client, { keyPrefix: testPrefix() }), {
      timeoutMs: 100,
    });
    const decision = busy.check("chat", "user-busy");
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // busy: this process's CPU is taken, as under load
    }
    await expect(decision).resolves.toMatchObject({ allowed: true, outcome: "allowed", remaining: 29 });
  });
});
