import { describe, expect, it } from "vitest";
import { defaultRetryPolicy, parseRetryAfter, retryDelayMs } from "../../../src/client/retry.js";

const noJitter = () => 0;

describe("the retry schedule", () => {
  it("starts from Retry-After and doubles, capped, for at most 3 sends by default", () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(defaultRetryPolicy, attempt, 60, noJitter))).toEqual([
      60_000,
      120_000,
      undefined,
    ]);
    expect([1, 2].map((attempt) => retryDelayMs(defaultRetryPolicy, attempt, 5, noJitter))).toEqual([5_000, 10_000]);
    const patient = { ...defaultRetryPolicy, maxAttempts: 6 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(patient, attempt, 20, noJitter))).toEqual([
      20_000, 40_000, 80_000, 120_000, 120_000,
    ]);
  });

  it("starts from the base delay without Retry-After, and never waits out a Retry-After beyond the cap", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, undefined, noJitter)).toBe(1_000);
    expect(retryDelayMs(defaultRetryPolicy, 2, undefined, noJitter)).toBe(2_000);
    expect(retryDelayMs(defaultRetryPolicy, 1, 3_600)).toBeUndefined();
    expect(retryDelayMs({ ...defaultRetryPolicy, maxAttempts: 1 }, 1, 1)).toBeUndefined();
  });

  it("adds up to 20 % at random, never waiting less than Retry-After nor more than the cap", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, 5, () => 1)).toBe(6_000);
    expect(retryDelayMs(defaultRetryPolicy, 2, 5, () => 0.5)).toBe(11_000);
    expect(retryDelayMs(defaultRetryPolicy, 2, 60, () => 1)).toBe(120_000);
    const waits = Array.from({ length: 200 }, () => retryDelayMs(defaultRetryPolicy, 1, 10)!);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(12_000);
    expect(new Set(waits).size).toBeGreaterThan(50); // spread, not one value
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("60")).toBe(60);
    expect(parseRetryAfter(" 7 ")).toBe(7);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });
});
