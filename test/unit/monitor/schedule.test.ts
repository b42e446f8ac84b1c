import { describe, expect, it } from "vitest";
import { firstDueAt, intervalMs, jitterMs, nextDueAt } from "../../../src/modules/products/monitor-schedule.js";
import { scoreChange } from "../../../src/modules/score/score-job.runner.js";

const DAY = 24 * 60 * 60 * 1000;
const now = new Date("2026-11-26T12:00:00Z");

describe("monitor schedule", () => {
  it("jitters by product id: the same id the same offset, under a tenth of the period, spread across ids", () => {
    const id = "7d0c6a52-9a7e-4f7e-8a55-0c1f4b7a2d10";
    expect(jitterMs(id, "weekly")).toBe(jitterMs(id, "weekly"));
    const offsets = Array.from({ length: 200 }, (_, i) => jitterMs(`product-${i}`, "weekly"));
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(0.1 * intervalMs.weekly);
    }
    expect(new Set(offsets.map((offset) => Math.floor(offset / (DAY / 24)))).size).toBeGreaterThan(12);
  });

  it("first due: a period after the latest result, or after now; a stale result makes it due now (plus the jitter)", () => {
    const id = "p";
    const jitter = jitterMs(id, "weekly");
    expect(firstDueAt(id, "weekly", undefined, now).getTime()).toBe(now.getTime() + 7 * DAY + jitter);
    const recent = new Date(now.getTime() - 2 * DAY);
    expect(firstDueAt(id, "weekly", recent, now).getTime()).toBe(recent.getTime() + 7 * DAY + jitter);
    const stale = new Date(now.getTime() - 40 * DAY);
    expect(firstDueAt(id, "weekly", stale, now).getTime()).toBe(now.getTime() + jitter);
  });

  it("next due: whole periods from the due time, the first after now (an outage gives one run, not a burst)", () => {
    const due = new Date(now.getTime() - 60_000);
    expect(nextDueAt(due, "weekly", now).getTime()).toBe(due.getTime() + 7 * DAY);
    const long = new Date(now.getTime() - 3 * 7 * DAY - 60_000);
    expect(nextDueAt(long, "weekly", now).getTime()).toBe(long.getTime() + 4 * 7 * DAY);
    expect(nextDueAt(long, "weekly", now).getTime()).toBeGreaterThan(now.getTime());
    expect(nextDueAt(due, "monthly", now).getTime()).toBe(due.getTime() + 30 * DAY);
  });
});

describe("score.changed", () => {
  const previous = { resultId: "r1", total: 60, stage: "Scaling", createdAt: now };
  it("fires at 5 points either way, or on a change of stage, and not below", () => {
    expect(scoreChange(previous, "r2", { totalScore: 65, stageName: "Scaling" })).toMatchObject({ totalDelta: 5 });
    expect(scoreChange(previous, "r2", { totalScore: 55, stageName: "Scaling" })).toMatchObject({ totalDelta: -5 });
    expect(scoreChange(previous, "r2", { totalScore: 64, stageName: "Scaling" })).toBeUndefined();
    expect(scoreChange(previous, "r2", { totalScore: 56, stageName: "Scaling" })).toBeUndefined();
    expect(scoreChange(previous, "r2", { totalScore: 61, stageName: "Compounding" })).toEqual({
      previousResultId: "r1",
      resultId: "r2",
      previousTotal: 60,
      total: 61,
      totalDelta: 1,
      previousStage: "Scaling",
      stage: "Compounding",
    });
  });
});
