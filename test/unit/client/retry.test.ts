import { describe, expect, it } from "vitest";
import { defaultRetryPolicy, parseRetryAfter, retryDelayMs } from "../../../src/client/retry.js";

describe("the retry schedule", () => {
  it("starts from Retry-After and doubles, capped, for at most 3 sends by default", () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(defaultRetryPolicy, attempt, 60))).toEqual([60_000, 120_000, undefined]);
    expect([1, 2].map((attempt) => retryDelayMs(defaultRetryPolicy, attempt, 5))).toEqual([5_000, 10_000]);
    const patient = { ...defaultRetryPolicy, maxAttempts: 6 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(patient, attempt, 20))).toEqual([20_000, 40_000, 80_000, 120_000, 120_000]);
  });

  it("starts from the base delay without Retry-After, and never waits out a Retry-After beyond the cap", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, undefined)).toBe(1_000);
    expect(retryDelayMs(defaultRetryPolicy, 2, undefined)).toBe(2_000);
    expect(retryDelayMs(defaultRetryPolicy, 1, 3_600)).toBeUndefined();
    expect(retryDelayMs({ ...defaultRetryPolicy, maxAttempts: 1 }, 1, 1)).toBeUndefined();
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
