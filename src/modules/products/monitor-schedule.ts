import { createHash } from "node:crypto";
import type { MonitorInterval } from "./product.entity.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A monitor period: a week, or a month of 30 days (a fixed length keeps every period equal and the arithmetic exact). */
export const intervalMs: Readonly<Record<MonitorInterval, number>> = Object.freeze({
  weekly: 7 * DAY_MS,
  monthly: 30 * DAY_MS,
});

/** The spread of first due times: up to a tenth of the period. */
export const JITTER_SHARE = 0.1;

/**
 * The product's offset within its period, from its id alone: products turned on
 * together (an import, a script) spread over a tenth of the period instead of all
 * falling due in one tick, and a retried PATCH computes the same time.
 */
export function jitterMs(productId: string, interval: MonitorInterval): number {
  const fraction = createHash("sha256").update(productId).digest().readUInt32BE(0) / 2 ** 32;
  return Math.floor(fraction * JITTER_SHARE * intervalMs[interval]);
}

/**
 * The first due time: one period after the latest result (the product was just
 * measured then), or after now when it has none; a latest result older than a
 * period makes it due within the jitter from now. The jitter is added once, here: later periods keep it,
 * as each advances by exactly one period from its due time.
 */
export function firstDueAt(
  productId: string,
  interval: MonitorInterval,
  latestResultAt: Date | undefined,
  now: Date,
): Date {
  const base = Math.max((latestResultAt ?? now).getTime() + intervalMs[interval], now.getTime());
  return new Date(base + jitterMs(productId, interval));
}

/**
 * The due time after `dueAt`: whole periods later, the first one after `now`. A
 * scheduler that was down for three periods runs the product once, not three times.
 */
export function nextDueAt(dueAt: Date, interval: MonitorInterval, now: Date): Date {
  const period = intervalMs[interval];
  const missed = Math.max(0, Math.floor((now.getTime() - dueAt.getTime()) / period));
  return new Date(dueAt.getTime() + (missed + 1) * period);
}
