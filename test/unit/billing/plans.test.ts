import { describe, expect, it } from "vitest";
import { planIds } from "../../../src/modules/accounts/account.entity.js";
import {
  actionCostTenths,
  billableActions,
  isPackId,
  plans,
  scorePacks,
  tenthsToCredits,
  TENTHS_PER_CREDIT,
} from "../../../src/modules/billing/plans.js";

describe("plan table", () => {
  it("holds the contract's plan quotas, with null for unlimited", () => {
    const row = (id: keyof typeof plans) => {
      const plan = plans[id];
      const credits = plan.monthlyCreditsTenths === null ? null : plan.monthlyCreditsTenths / TENTHS_PER_CREDIT;
      return [
        credits,
        plan.quotas.score.limit,
        plan.quotas.chat.limit,
        plan.quotas.api_call.limit,
        plan.products,
        plan.seats,
      ];
    };
    expect(row("free")).toEqual([80, 3, 30, 0, 1, 1]);
    expect(row("pro")).toEqual([1_000, 100, 1_000, 0, 5, 3]);
    expect(row("business")).toEqual([2_000, 200, 2_000, 25_000, 25, 10]);
    // Enterprise seats are "Custom": negotiated, not bounded by the service.
    expect(row("enterprise")).toEqual([null, null, null, 100_000, null, null]);
    expect(Object.keys(plans).sort()).toEqual([...planIds].sort());
  });

  it("refuses at Free's score and chat counts and at every API-call allowance", () => {
    for (const plan of Object.values(plans)) expect(plan.quotas.api_call.hard).toBe(true);
    expect(plans.free.quotas.score.hard).toBe(true);
    expect(plans.free.quotas.chat.hard).toBe(true);
  });

  it("reads Pro's and Business's 'up to' counts as what their monthly credits buy, so packs can extend them", () => {
    for (const plan of [plans.pro, plans.business]) {
      for (const action of ["score", "chat"] as const) {
        const quota = plan.quotas[action];
        expect(quota.hard).toBe(false);
        expect(quota.limit).toBe((plan.monthlyCreditsTenths ?? 0) / actionCostTenths[action]);
      }
    }
  });

  it("sells score packs to paid plans only", () => {
    expect(plans.free.packs).toBe(false);
    expect([plans.pro.packs, plans.business.packs, plans.enterprise.packs]).toEqual([true, true, true]);
  });
});

describe("costs and packs", () => {
  it("costs a URL score 10 credits, a chat message 1, an API call 0.1, in integer tenths", () => {
    expect(actionCostTenths).toEqual({ score: 100, chat: 10, api_call: 1 });
    for (const action of billableActions) expect(Number.isInteger(actionCostTenths[action])).toBe(true);
    expect(tenthsToCredits(actionCostTenths.api_call)).toBe(0.1);
    expect(tenthsToCredits(actionCostTenths.score)).toBe(10);
  });

  it("grants N × 10 credits for a pack of N scores, priced as the contract says", () => {
    expect(
      Object.values(scorePacks).map((pack) => [
        pack.id,
        pack.scores,
        pack.priceUsdCents / 100,
        tenthsToCredits(pack.creditsTenths),
      ]),
    ).toEqual([
      ["small", 20, 29, 200],
      ["medium", 50, 49, 500],
      ["large", 150, 99, 1_500],
    ]);
    expect(isPackId("medium")).toBe(true);
    expect(isPackId("huge")).toBe(false);
  });

  it("keeps sums exact: ten API calls are exactly one credit, unlike adding 0.1 ten times", () => {
    const tenths = Array.from({ length: 10 }, () => actionCostTenths.api_call).reduce((sum, cost) => sum + cost, 0);
    expect(tenthsToCredits(tenths)).toBe(1);
    expect(tenthsToCredits(13)).toBe(1.3);
    expect(Array.from({ length: 10 }, () => 0.1).reduce((sum, cost) => sum + cost, 0)).not.toBe(1);
  });
});
