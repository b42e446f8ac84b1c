import { describe, expect, it } from "vitest";
import { MemorySlidingWindowStore } from "../../../src/modules/billing/rate-limit/sliding-window.js";
import { describeRateLimiterBehaviour } from "./rate-limit.behaviour.js";

describeRateLimiterBehaviour("in-memory", () => new MemorySlidingWindowStore());

describe("in-memory sliding window store", () => {
  it("records only allowed hits", async () => {
    const store = new MemorySlidingWindowStore();
    expect(await store.hit("k", 2, 60_000, 1_000)).toEqual({ allowed: true, count: 1, oldestMs: 1_000 });
    expect(await store.hit("k", 2, 60_000, 2_000)).toEqual({ allowed: true, count: 2, oldestMs: 1_000 });
    expect(await store.hit("k", 2, 60_000, 3_000)).toEqual({ allowed: false, count: 2, oldestMs: 1_000 });
    // The window is (now − 60 s, now]: the hit at 1 000 ms is out at exactly 61 000 ms.
    expect(await store.hit("k", 2, 60_000, 61_000)).toEqual({ allowed: true, count: 2, oldestMs: 2_000 });
  });

  it("forgets keys whose newest hit has left the window", async () => {
    const store = new MemorySlidingWindowStore();
    await store.hit("a", 5, 60_000, 0);
    await store.hit("b", 5, 60_000, 30_000);
    expect(store.size).toBe(2);

    await store.hit("c", 5, 60_000, 60_000);
    expect(store.size).toBe(2); // "a" went; "b" is still inside its window
    await store.hit("c", 5, 60_000, 90_000);
    expect(store.size).toBe(1);
  });

  it("stays within its key cap by evicting the least recently hit key", async () => {
    const store = new MemorySlidingWindowStore({ maxKeys: 2 });
    await store.hit("a", 1, 60_000, 0);
    await store.hit("b", 1, 60_000, 1);
    expect((await store.hit("a", 1, 60_000, 2)).allowed).toBe(false); // refused, but "a" is now the most recent
    await store.hit("c", 1, 60_000, 3);

    expect(store.size).toBe(2);
    expect((await store.hit("a", 1, 60_000, 4)).allowed).toBe(false);
    expect((await store.hit("b", 1, 60_000, 5)).allowed).toBe(true); // "b" was evicted, so forgotten
  });

  it("keeps counting correctly when the clock steps backwards", async () => {
    const store = new MemorySlidingWindowStore();
    await store.hit("k", 5, 60_000, 10_000);
    await store.hit("k", 5, 60_000, 5_000);
    expect(await store.hit("k", 5, 60_000, 20_000)).toEqual({ allowed: true, count: 3, oldestMs: 5_000 });
    expect(await store.hit("k", 5, 60_000, 65_000)).toMatchObject({ count: 3, oldestMs: 10_000 });
  });
});
