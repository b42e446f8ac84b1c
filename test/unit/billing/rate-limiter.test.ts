import { describe, expect, it, vi } from "vitest";
import { RateLimiter } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import {
  MemorySlidingWindowStore,
  type SlidingWindowStore,
} from "../../../src/modules/billing/rate-limit/sliding-window.js";

/** A store that works, throws, or never answers, as the test says. */
class UnreliableStore implements SlidingWindowStore {
  mode: "working" | "throwing" | "hanging" = "working";
  private readonly inner = new MemorySlidingWindowStore();

  hit(key: string, limit: number, windowMs: number, nowMs: number) {
    if (this.mode === "throwing")
      throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:6379"), { code: "ECONNREFUSED" });
    if (this.mode === "hanging") return new Promise<never>(() => undefined);
    return this.inner.hit(key, limit, windowMs, nowMs);
  }
}

function expectFailClosed(decision: Awaited<ReturnType<RateLimiter["check"]>>) {
  expect(decision).toMatchObject({ allowed: false, outcome: "store-unavailable", remaining: 0, retryAfterSeconds: 60 });
  expect(decision.headers["Retry-After"]).toBe("60");
  const error = decision.toError();
  expect(error).toMatchObject({ code: "SCORING_RATE_LIMITED", status: 429, retryable: true });
  expect(error.headers["Retry-After"]).toBe("60");
  expect(error.message).toMatch(/rate limiting is temporarily unavailable/i);
  // What reaches the caller says nothing about the store's address or error.
  expect(JSON.stringify(error.toEnvelope())).not.toMatch(/ECONNREFUSED|10\.0\.0\.7|timed out|did not answer/);
}

describe("rate limiter when its store fails (fail closed)", () => {
  it("refuses while the store throws, and recovers by itself when it works again", async () => {
    const store = new UnreliableStore();
    const limiter = new RateLimiter(store);
    store.mode = "throwing";
    const decision = await limiter.check("score", "user-1");
    expectFailClosed(decision);
    expect(decision.cause).toMatchObject({ code: "ECONNREFUSED" });

    store.mode = "working";
    // Nothing was charged during the outage: the full five are still there.
    for (let request = 0; request < 5; request += 1) {
      expect((await limiter.check("score", "user-1")).allowed).toBe(true);
    }
    expect((await limiter.check("score", "user-1")).outcome).toBe("limited");
  });

  it("refuses when the store does not answer within the deadline, and recovers when it does", async () => {
    const store = new UnreliableStore();
    const limiter = new RateLimiter(store, { timeoutMs: 50 });
    store.mode = "hanging";
    const decision = await limiter.check("chat", "user-1");
    expectFailClosed(decision);
    expect(decision.cause).toMatchObject({ code: "ETIMEDOUT" });

    store.mode = "working";
    expect((await limiter.check("chat", "user-1")).allowed).toBe(true);
  });

  it("honours a configured timeout: not a moment before it, refused once it has passed", async () => {
    // The clock is faked, so the test reads the limiter's deadline, not how busy the machine is.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const store = new UnreliableStore();
      store.mode = "hanging";
      let settled = false;
      const pending = new RateLimiter(store, { timeoutMs: 20 })
        .check("score", "user-1")
        .finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(19);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await pending).outcome).toBe("store-unavailable");
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses to turn an allowed decision into an error", async () => {
    const decision = await new RateLimiter(new MemorySlidingWindowStore()).check("score", "user-1");
    expect(() => decision.toError()).toThrow(/allowed/);
  });
});
