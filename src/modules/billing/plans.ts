import type { PlanId } from "../accounts/account.entity.js";

/**
 * The contract's Limits section as data. Everything money-like is an integer
 * number of TENTHS of a credit (an API call costs 0.1 credit = 1 tenth), so sums
 * stay exact; credits become a decimal number only at the edge (`tenthsToCredits`).
 * `null` means unlimited.
 */
export const TENTHS_PER_CREDIT = 10;

export const billableActions = ["score", "chat", "api_call"] as const;
export type BillableAction = (typeof billableActions)[number];

/** URL score 10 credits, chat message 1 credit, API call 0.1 credit. */
export const actionCostTenths: Readonly<Record<BillableAction, number>> = Object.freeze({
  score: 100,
  chat: 10,
  api_call: 1,
});

/**
 * A monthly count of one action. `hard` ceilings refuse the next action with
 * QUOTA_EXCEEDED (Free's 3 scores and 30 chats, every plan's API-call allowance).
 * The contract's "up to N" figures of Pro and Business are not ceilings: N is what
 * the plan's monthly credits buy, packs extend it, and credits alone bound it
 * (a hard 100 would make a Pro customer's score pack useless).
 */
export interface CountQuota {
  readonly limit: number | null;
  readonly hard: boolean;
}

export interface Plan {
  readonly id: PlanId;
  readonly name: string;
  readonly monthlyCreditsTenths: number | null;
  readonly quotas: Readonly<Record<BillableAction, CountQuota>>;
  readonly products: number | null;
  /** Products re-scored on a schedule (docs/api.md §13); each run is charged as a score. */
  readonly monitoredProducts: number | null;
  /**
   * Enterprise seats are "Custom" (negotiated per contract). There is no
   * per-account override yet, so the service does not bound them: `null`.
   */
  readonly seats: number | null;
  /** Score packs are one-time top-ups for paid plans only. */
  readonly packs: boolean;
}

const hard = (limit: number | null): CountQuota => ({ limit, hard: true });
const upTo = (limit: number): CountQuota => ({ limit, hard: false });

export const plans: Readonly<Record<PlanId, Plan>> = Object.freeze({
  free: {
    id: "free",
    name: "Free",
    monthlyCreditsTenths: 80 * TENTHS_PER_CREDIT,
    quotas: { score: hard(3), chat: hard(30), api_call: hard(0) },
    products: 1,
    monitoredProducts: 0,
    seats: 1,
    packs: false,
  },
  pro: {
    id: "pro",
    name: "Pro",
    monthlyCreditsTenths: 1_000 * TENTHS_PER_CREDIT,
    quotas: { score: upTo(100), chat: upTo(1_000), api_call: hard(0) },
    products: 5,
    monitoredProducts: 5,
    seats: 3,
    packs: true,
  },
  business: {
    id: "business",
    name: "Business",
    monthlyCreditsTenths: 2_000 * TENTHS_PER_CREDIT,
    quotas: { score: upTo(200), chat: upTo(2_000), api_call: hard(25_000) },
    products: 25,
    monitoredProducts: 25,
    seats: 10,
    packs: true,
  },
  enterprise: {
    id: "enterprise",
    name: "Enterprise",
    monthlyCreditsTenths: null,
    quotas: { score: hard(null), chat: hard(null), api_call: hard(100_000) },
    products: null,
    monitoredProducts: null,
    seats: null,
    packs: true,
  },
});

export const packIds = ["small", "medium", "large"] as const;
export type PackId = (typeof packIds)[number];

export interface ScorePack {
  readonly id: PackId;
  readonly name: string;
  readonly scores: number;
  readonly priceUsdCents: number;
  /** A pack of N scores grants N × 10 credits; they never expire. */
  readonly creditsTenths: number;
}

const pack = (id: PackId, name: string, scores: number, priceUsdCents: number): ScorePack => ({
  id,
  name,
  scores,
  priceUsdCents,
  creditsTenths: scores * actionCostTenths.score,
});

export const scorePacks: Readonly<Record<PackId, ScorePack>> = Object.freeze({
  small: pack("small", "Small", 20, 29_00),
  medium: pack("medium", "Medium", 50, 49_00),
  large: pack("large", "Large", 150, 99_00),
});

/** The one place tenths become credits: one division of an exact integer. */
export const tenthsToCredits = (tenths: number): number => tenths / TENTHS_PER_CREDIT;

export const isPackId = (value: unknown): value is PackId =>
  typeof value === "string" && (packIds as readonly string[]).includes(value);
