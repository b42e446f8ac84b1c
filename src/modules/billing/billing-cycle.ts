export interface BillingCycle {
  readonly start: Date;
  readonly end: Date;
}

/**
 * Monthly cycles from the anchor: the anchor's day of month (clamped to the end of
 * shorter months, always computed from the anchor, so Jan 31 → Feb 28 → Mar 31)
 * and its time of day, in UTC.
 */
export function billingCycleAt(anchor: Date, now: Date): BillingCycle {
  let months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth();
  if (cycleStart(anchor, months) > now) months -= 1;
  return { start: cycleStart(anchor, months), end: cycleStart(anchor, months + 1) };
}

function cycleStart(anchor: Date, monthsAfter: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + monthsAfter;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}
