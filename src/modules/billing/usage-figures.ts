import type { PlanId } from "../accounts/account.entity.js";
import type { BillingCycle } from "./billing-cycle.js";
import type { BalanceRow } from "./credit-balance.repository.js";
import { tenthsToCredits, type Plan } from "./plans.js";

export interface QuotaUsage {
  readonly limit: number | null;
  readonly used: number;
}

/** docs/api.md §9. Credits are exact to the tenth; `limit: null` means unlimited. */
export interface Usage {
  readonly plan: PlanId;
  readonly period: BillingCycle;
  /** `used`/`remaining` are this cycle's plan credits; pack credits are `packBalance`. */
  readonly credits: {
    readonly limit: number | null;
    readonly used: number;
    readonly remaining: number | null;
    readonly packBalance: number;
  };
  readonly scores: QuotaUsage;
  readonly chatMessages: QuotaUsage;
  readonly apiCalls: QuotaUsage;
  readonly products: QuotaUsage;
  readonly seats: QuotaUsage;
}

/**
 * The figures of `Usage` from the cycle's row (undefined: the cycle is not charged
 * yet, and shows the credits its first charge will grant), the pack balance and the
 * two counts.
 */
export function usageFigures(
  plan: Plan,
  cycle: BillingCycle,
  row: Partial<BalanceRow> | undefined,
  account: { readonly balance_tenths: string | null; readonly members: number; readonly products: number },
): Usage {
  const monthly = plan.monthlyCreditsTenths;
  const granted = Number(row?.plan_granted ?? 0);
  // A pending top-up (the plan grew since the cycle's grant) is shown as it will be granted.
  const balance = Number(row?.plan_balance ?? 0) + Math.max((monthly ?? 0) - granted, 0);
  return {
    plan: plan.id,
    period: cycle,
    credits: {
      limit: monthly === null ? null : tenthsToCredits(monthly),
      used: tenthsToCredits(Number(row?.plan_used ?? 0)),
      remaining: monthly === null ? null : tenthsToCredits(Math.max(balance, 0)),
      packBalance: tenthsToCredits(Number(account.balance_tenths ?? 0)),
    },
    scores: { limit: plan.quotas.score.limit, used: row?.score_count ?? 0 },
    chatMessages: { limit: plan.quotas.chat.limit, used: row?.chat_count ?? 0 },
    apiCalls: { limit: plan.quotas.api_call.limit, used: row?.api_call_count ?? 0 },
    products: { limit: plan.products, used: account.products },
    seats: { limit: plan.seats, used: account.members },
  };
}
