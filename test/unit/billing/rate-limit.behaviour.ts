import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import type { AnonymousCap } from "../../../src/modules/billing/rate-limit/anonymous-cap.js";
import { anonymousSubject, RateLimiter } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import type { SlidingWindowStore } from "../../../src/modules/billing/rate-limit/sliding-window.js";
import { rejectionOf } from "../../support/app-error.js";

/**
 * The behaviour every store must give the rate limiter, written once and run against
 * the in-memory store (unit) and Redis (integration). Each factory call returns a
 * store that shares no key with any other test.
 */

/** The first instant of a calendar minute: where a fixed per-minute window would reset. */
const minute = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (seconds: number) => minute + seconds * 1000;

function manualClock(startMs: number) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    set: (ms: number) => {
      nowMs = ms;
    },
  };
}

export function describeRateLimiterBehaviour(storeName: string, createStore: () => SlidingWindowStore): void {
  describe(`rate limits over the ${storeName} store`, () => {
    it("peeks at a subject's state without spending a slot", async () => {
      const clock = manualClock(at(0));
      const limiter = new RateLimiter(createStore(), { clock: clock.now });
      expect(await limiter.peek("score", "peeker")).toEqual({
        "RateLimit-Policy": '"score";q=5;w=60',
        RateLimit: '"score";r=5;t=0',
      });
      await limiter.check("score", "peeker");
      clock.set(at(10));
      for (let i = 0; i < 3; i += 1) {
        expect(await limiter.peek("score", "peeker")).toEqual({
          "RateLimit-Policy": '"score";q=5;w=60',
          RateLimit: '"score";r=4;t=50',
        });
      }
      // Peeks spent nothing: four more requests are allowed, the sixth is not.
      for (let i = 0; i < 4; i += 1) expect((await limiter.check("score", "peeker")).allowed).toBe(true);
      expect((await limiter.check("score", "peeker")).allowed).toBe(false);
    });

    it("lets five score requests through in 60 s and refuses the sixth with Retry-After: 60", async () => {
      const clock = manualClock(at(0));
      const limiter = new RateLimiter(createStore(), { clock: clock.now });

      for (let second = 0; second < 5; second += 1) {
        clock.set(at(second));
        const decision = await limiter.check("score", "user-1");
        expect(decision).toMatchObject({
          allowed: true,
          limit: 5,
          remaining: 4 - second,
          retryAfterSeconds: undefined,
        });
        // The oldest hit (second 0) frees the first slot at second 60.
        expect(decision.headers).toEqual({
          "RateLimit-Policy": '"score";q=5;w=60',
          RateLimit: `"score";r=${4 - second};t=${60 - second}`,
        });
      }

      clock.set(at(5));
      const sixth = await limiter.check("score", "user-1");
      expect(sixth).toMatchObject({
        allowed: false,
        outcome: "limited",
        remaining: 0,
        resetSeconds: 55,
        retryAfterSeconds: 60,
      });
      expect(sixth.headers).toEqual({
        "RateLimit-Policy": '"score";q=5;w=60',
        RateLimit: '"score";r=0;t=55',
        "Retry-After": "60",
      });

      const error = sixth.toError();
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: "SCORING_RATE_LIMITED",
        status: 429,
        retryable: true,
        headers: sixth.headers,
      });
      expect(error.message).toMatch(/at most 5 every 60 seconds/);
    });

    it("refuses a burst straddling a minute boundary, which a fixed window would let through", async () => {
      const clock = manualClock(at(59));
      const limiter = new RateLimiter(createStore(), { clock: clock.now });
      for (let request = 0; request < 5; request += 1) {
        expect((await limiter.check("score", "user-1")).allowed).toBe(true);
      }

      // Second 61 lies in the next calendar minute, but the five hits of second 59 are 2 s old.
      clock.set(at(61));
      const nextMinute = await limiter.check("score", "user-1");
      expect(nextMinute.allowed).toBe(false);
      expect(nextMinute.headers.RateLimit).toBe('"score";r=0;t=58');

      clock.set(at(59 + 60) - 1);
      expect((await limiter.check("score", "user-1")).allowed).toBe(false);

      clock.set(at(59 + 60));
      expect(await limiter.check("score", "user-1")).toMatchObject({ allowed: true, remaining: 4 });
    });

    it("charges nothing for refused requests, so retrying during a block does not prolong it", async () => {
      const clock = manualClock(at(0));
      const limiter = new RateLimiter(createStore(), { clock: clock.now });
      for (let second = 0; second < 5; second += 1) {
        clock.set(at(second));
        await limiter.check("score", "user-1");
      }
      for (let second = 10; second < 60; second += 2) {
        clock.set(at(second));
        expect((await limiter.check("score", "user-1")).allowed).toBe(false);
      }

      // Each earlier hit frees its slot exactly 60 s later, however often the caller knocked meanwhile.
      clock.set(at(60));
      expect(await limiter.check("score", "user-1")).toMatchObject({ allowed: true, remaining: 0 });
      clock.set(at(60.5));
      expect((await limiter.check("score", "user-1")).allowed).toBe(false);
      clock.set(at(61));
      expect((await limiter.check("score", "user-1")).allowed).toBe(true);
    });

    it("allows exactly five of 50 concurrent score requests from one user", async () => {
      const limiter = new RateLimiter(createStore(), { timeoutMs: 2_000 });
      const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.check("score", "user-burst")));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      expect(decisions.filter((decision) => decision.outcome === "limited")).toHaveLength(45);
    });

    it("keeps users, anonymous addresses and actions apart", async () => {
      const limiter = new RateLimiter(createStore(), { clock: () => at(0) });
      for (let request = 0; request < 5; request += 1) await limiter.check("score", "user-a");
      expect((await limiter.check("score", "user-a")).allowed).toBe(false);

      expect((await limiter.check("score", "user-b")).allowed).toBe(true);
      expect((await limiter.check("score", anonymousSubject("user-a"))).allowed).toBe(true);
      expect((await limiter.check("chat", "user-a")).allowed).toBe(true);
    });

    it("allows 30 chat messages in 60 s and refuses the 31st", async () => {
      const limiter = new RateLimiter(createStore(), { clock: () => at(0) });
      for (let message = 0; message < 30; message += 1) {
        expect((await limiter.check("chat", "user-1")).allowed).toBe(true);
      }
      const refused = await limiter.check("chat", "user-1");
      expect(refused.allowed).toBe(false);
      expect(refused.headers).toEqual({
        "RateLimit-Policy": '"chat";q=30;w=60',
        RateLimit: '"chat";r=0;t=60',
        "Retry-After": "60",
      });
      expect(refused.toError().message).toMatch(/chat messages: at most 30 every 60 seconds/);
    });
  });
}

export function describeAnonymousCapBehaviour(storeName: string, createCap: () => AnonymousCap): void {
  describe(`anonymous scoring cap over the ${storeName} store`, () => {
    it("allows one score per address per hour and refuses the second until the hour frees", async () => {
      const cap = createCap();
      const first = await cap.consume("198.51.100.7");
      expect(first.remaining).toBe(0);
      expect(first.headers["RateLimit-Policy"]).toBe('"anonymous";q=1;w=3600');

      const refusal = await rejectionOf(cap.consume("198.51.100.7"));
      expect(refusal).toMatchObject({ code: "ANON_RATE_LIMIT", status: 429, retryable: true });
      const retryAfter = Number(refusal.headers["Retry-After"]);
      expect(retryAfter).toBeGreaterThanOrEqual(3590);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(refusal.headers.RateLimit).toBe(`"anonymous";r=0;t=${retryAfter}`);
    });

    it("peeks at an address's state without taking its score", async () => {
      const cap = createCap();
      expect(await cap.peek("198.51.100.9")).toEqual({
        "RateLimit-Policy": '"anonymous";q=1;w=3600',
        RateLimit: '"anonymous";r=1;t=0',
      });
      expect(await cap.peek("198.51.100.9")).toMatchObject({ RateLimit: '"anonymous";r=1;t=0' });
      await expect(cap.consume("198.51.100.9")).resolves.toMatchObject({ remaining: 0 });
      expect((await cap.peek("198.51.100.9"))?.RateLimit).toMatch(/^"anonymous";r=0;t=(359\d|3600)$/);
    });

    it("counts each address on its own", async () => {
      const cap = createCap();
      await cap.consume("198.51.100.7");
      await expect(cap.consume("198.51.100.8")).resolves.toMatchObject({ remaining: 0 });
      await expect(cap.consume("2001:db8::1")).resolves.toMatchObject({ remaining: 0 });
    });
  });
}
