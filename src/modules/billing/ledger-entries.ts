import { CreditEntry, type CreditBucket, type CreditEntryKind } from "./credit-entry.entity.js";
import type { BillableAction } from "./plans.js";

/** What a refund gives back to one cycle row. */
export interface CycleRefund {
  readonly start: Date;
  tenths: number;
  readonly uncounted: BillableAction[];
}

/** A debit of n tenths as a signed amount, never -0. */
export const debit = (tenths: number): number => (tenths === 0 ? 0 : -tenths);

/** A new entry, for the ledger to append. */
export function entryOf(
  accountId: string,
  cycleStart: Date,
  kind: CreditEntryKind,
  bucket: CreditBucket,
  amountTenths: number,
  action: string | null,
  reference: string | null,
): CreditEntry {
  return Object.assign(new CreditEntry(), { accountId, kind, bucket, amountTenths, action, reference, cycleStart });
}

/**
 * The refund of a spend's entries not yet refunded (`done`: spend entry ids that
 * have their refund): the refund entries, what goes back to each cycle row (in
 * time order) and to the pack balance.
 */
export function planRefund(
  accountId: string,
  spends: readonly CreditEntry[],
  done: ReadonlySet<string | null>,
  keepCount: boolean,
): { refunds: CreditEntry[]; cycles: CycleRefund[]; toPack: number } {
  const refunds: CreditEntry[] = [];
  const cycles = new Map<number, CycleRefund>();
  let toPack = 0;
  for (const spend of spends) {
    if (done.has(spend.id)) continue;
    const amount = -spend.amountTenths;
    if (spend.bucket === "pack") {
      toPack += amount;
      refunds.push(
        entryOf(accountId, spend.cycleStart, "refund", "pack", amount, keepCount ? null : spend.action, spend.id),
      );
      continue;
    }
    // A refund that keeps the action counted names no action: the counts are spends minus refunds of each action.
    if (keepCount && amount === 0) continue;
    const uncounted = keepCount ? null : (spend.action as BillableAction);
    const cycle = cycles.get(spend.cycleStart.getTime()) ?? { start: spend.cycleStart, tenths: 0, uncounted: [] };
    cycle.tenths += amount;
    if (uncounted) cycle.uncounted.push(uncounted);
    cycles.set(spend.cycleStart.getTime(), cycle);
    refunds.push(entryOf(accountId, spend.cycleStart, "refund", "plan", amount, uncounted, spend.id));
  }
  return { refunds, cycles: [...cycles.values()].sort((a, b) => a.start.getTime() - b.start.getTime()), toPack };
}
