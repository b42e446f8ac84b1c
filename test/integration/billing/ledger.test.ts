import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceFor } from "../../../src/db/database.js";
import { AppError } from "../../../src/errors.js";
import type { PlanId } from "../../../src/modules/accounts/account.entity.js";
import type { CreditEntry } from "../../../src/modules/billing/credit-entry.entity.js";
import { billingCycleAt, type CreditLedger } from "../../../src/modules/billing/ledger.service.js";
import { actionCostTenths, type BillableAction } from "../../../src/modules/billing/plans.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { rejectionOf } from "../../support/app-error.js";
import { creditLedgerOn } from "../../support/ledger.js";

const { score: SCORE, chat: CHAT, api_call: API_CALL } = actionCostTenths;

let database: TestDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 10);
  await dataSource.initialize();
});
afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

/** A ledger whose clock the test moves. */
function ledgerAt(iso: string) {
  let now = new Date(iso);
  return { ledger: creditLedgerOn(dataSource, () => now), moveTo: (next: string) => void (now = new Date(next)) };
}

async function createAccount(plan: PlanId, anchor: string, members = 0): Promise<string> {
  const [account] = (await dataSource.query(
    `INSERT INTO "accounts" ("name", "plan", "billing_cycle_anchor") VALUES ($1, $2, $3) RETURNING "id"`,
    [`${plan} customer`, plan, anchor],
  )) as Array<{ id: string }>;
  if (!account) throw new Error("account not created");
  for (let i = 0; i < members; i += 1) {
    await dataSource.query(`INSERT INTO "users" ("account_id", "subject", "email") VALUES ($1, $2, $3)`, [
      account.id,
      randomUUID(),
      `m${i}@example.com`,
    ]);
  }
  return account.id;
}

/** n actions one after another, referenced `<action>-<i>`. */
async function spendTimes(ledger: CreditLedger, accountId: string, action: BillableAction, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await ledger.spend(accountId, action, actionCostTenths[action], `${action}-${i}`);
}

const amounts = (entries: CreditEntry[]) => entries.map((entry) => [entry.bucket, entry.amountTenths]);

async function entryCount(accountId: string): Promise<number> {
  const [row] = (await dataSource.query(`SELECT COUNT(*)::int AS "n" FROM "credit_entries" WHERE "account_id" = $1`, [
    accountId,
  ])) as Array<{ n: number }>;
  return row?.n ?? -1;
}

/**
 * The running totals (credit_balances per cycle, credit_packs) recomputed from the
 * append-only entries, which are the truth: they must agree to the tenth.
 */
async function expectTotalsMatchLedger(accountId: string): Promise<void> {
  const count = (action: BillableAction) =>
    `COALESCE(SUM(CASE "kind" WHEN 'spend' THEN 1 WHEN 'refund' THEN -1 ELSE 0 END) FILTER (WHERE "bucket" = 'plan' AND "action" = '${action}'), 0)::int`;
  const fromLedger = await dataSource.query(
    `SELECT "cycle_start",
       COALESCE(SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" = 'grant'), 0)::int AS "granted",
       COALESCE(SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan'), 0)::bigint AS "balance",
       COALESCE(-SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" IN ('spend', 'refund')), 0)::bigint AS "used",
       ${count("score")} AS "scores", ${count("chat")} AS "chats", ${count("api_call")} AS "apiCalls"
     FROM "credit_entries" WHERE "account_id" = $1 AND "bucket" = 'plan' GROUP BY "cycle_start" ORDER BY "cycle_start"`,
    [accountId],
  );
  const kept = await dataSource.query(
    `SELECT "cycle_start", "plan_granted"::int AS "granted", "plan_balance" AS "balance", "plan_used" AS "used",
            "score_count" AS "scores", "chat_count" AS "chats", "api_call_count" AS "apiCalls"
       FROM "credit_balances" WHERE "account_id" = $1 ORDER BY "cycle_start"`,
    [accountId],
  );
  expect(kept).toEqual(fromLedger);
  const [packs] = (await dataSource.query(
    `SELECT COALESCE((SELECT SUM("amount_tenths") FROM "credit_entries" WHERE "account_id" = $1 AND "bucket" = 'pack'), 0)::bigint AS "ledger",
            COALESCE((SELECT "balance_tenths" FROM "credit_packs" WHERE "account_id" = $1), 0)::bigint AS "kept"`,
    [accountId],
  )) as Array<{ ledger: string; kept: string }>;
  expect(packs?.kept).toBe(packs?.ledger);
}

describe("credit ledger", () => {
  it("spends plan credits before pack credits; a new cycle restores the plan's credits and carries packs over", async () => {
    const { ledger, moveTo } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("pro", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "score", 99);
    await spendTimes(ledger, id, "chat", 5);
    expect((await ledger.usage(id)).credits).toEqual({ limit: 1_000, used: 995, remaining: 5, packBalance: 0 });

    expect(amounts(await ledger.purchasePack(id, "small", "checkout-1"))).toEqual([["pack", 2_000]]);
    expect(amounts(await ledger.spend(id, "score", SCORE, "split"))).toEqual([
      ["plan", -50],
      ["pack", -50],
    ]);
    expect(amounts(await ledger.spend(id, "score", SCORE, "from-pack"))).toEqual([
      ["plan", 0],
      ["pack", -100],
    ]);
    moveTo("2025-02-14T23:59:59.999Z");
    const january = await ledger.usage(id);
    expect(january.credits).toEqual({ limit: 1_000, used: 1_000, remaining: 0, packBalance: 185 });
    expect(january.scores).toEqual({ limit: 100, used: 101 });

    moveTo("2025-02-15T00:00:00Z");
    const february = await ledger.usage(id);
    expect(february.period).toEqual({ start: new Date("2025-02-15T00:00:00Z"), end: new Date("2025-03-15T00:00:00Z") });
    expect(february.credits).toEqual({ limit: 1_000, used: 0, remaining: 1_000, packBalance: 185 });
    expect([february.scores.used, february.chatMessages.used]).toEqual([0, 0]);
    expect(amounts(await ledger.spend(id, "score", SCORE, "february"))).toEqual([["plan", -100]]);
    await expectTotalsMatchLedger(id);
    expect((await ledger.usage(id)).credits).toEqual({ limit: 1_000, used: 10, remaining: 990, packBalance: 185 });
  });

  it("keeps tenths exact: ten API calls cost exactly one credit", async () => {
    const { ledger } = ledgerAt("2025-03-01T00:00:00Z");
    const id = await createAccount("business", "2025-02-01T00:00:00Z");
    await spendTimes(ledger, id, "api_call", 10);
    let usage = await ledger.usage(id);
    expect([usage.credits.used, usage.credits.remaining, usage.apiCalls.used]).toEqual([1, 1_999, 10]);
    await spendTimes(ledger, id, "api_call", 3);
    usage = await ledger.usage(id);
    expect([usage.credits.used, usage.credits.remaining, usage.apiCalls.used]).toEqual([1.3, 1_998.7, 13]);
  });

  it("charges exactly 3 of 50 concurrent score requests when credits cover 3, and ends at a balance of exactly 0", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("pro", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "score", 97);

    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => ledger.spend(id, "score", SCORE, `concurrent-${i}`)),
    );
    const refusedWith = results.flatMap((result) =>
      result.status === "rejected" ? [(result.reason as AppError).code] : [],
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(3);
    expect(refusedWith).toEqual(Array.from({ length: 47 }, () => "CREDIT_EXHAUSTED"));

    const [ledgerSum] = (await dataSource.query(
      `SELECT SUM("amount_tenths")::int AS "balance", (COUNT(*) FILTER (WHERE "kind" = 'spend'))::int AS "spends"
         FROM "credit_entries" WHERE "account_id" = $1`,
      [id],
    )) as Array<{ balance: number; spends: number }>;
    expect(ledgerSum).toEqual({ balance: 0, spends: 100 });
    expect((await ledger.usage(id)).credits).toEqual({ limit: 1_000, used: 1_000, remaining: 0, packBalance: 0 });
    await expectTotalsMatchLedger(id);
  });

  it("keeps its running totals equal to the ledger under concurrent spends, splits, refunds (the same one twice at once) and purchases", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("business", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "score", 190);
    await ledger.purchasePack(id, "small", "checkout-mix");
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i += 1) work.push(ledger.spend(id, "api_call", API_CALL, `call-${i}`));
    const scores = Array.from({ length: 15 }, (_, i) =>
      ledger.spend(id, "score", SCORE, `mixed-${i}`).then(
        () => "charged",
        (error: AppError) => error.code,
      ),
    );
    work.push(...scores);
    for (let i = 0; i < 10; i += 1) work.push(ledger.refund(id, `score-${i}`), ledger.refund(id, `score-${i}`));
    work.push(ledger.purchasePack(id, "small", "checkout-mix-2"), ledger.purchasePack(id, "small", "checkout-mix-2"));
    await Promise.all(work);
    await expectTotalsMatchLedger(id);
    const usage = await ledger.usage(id);
    expect(usage.apiCalls.used).toBe(60);
    // Business allows 200 scores: some of the 15 may meet the ceiling before the refunds free room.
    const outcomes = await Promise.all(scores);
    const charged = outcomes.filter((outcome) => outcome === "charged").length;
    expect(outcomes.filter((outcome) => outcome !== "charged").every((code) => code === "QUOTA_EXCEEDED")).toBe(true);
    expect(charged).toBeGreaterThanOrEqual(10);
    expect(usage.scores.used).toBe(190 + charged - 10);
    const [refunds] = (await dataSource.query(
      `SELECT COUNT(*)::int AS "n" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'refund'`,
      [id],
    )) as Array<{ n: number }>;
    expect(refunds?.n).toBe(10);
  });

  it("reads the current cycle's figures even when a later cycle's row exists (an anchor moved back by the provider)", async () => {
    const { ledger } = ledgerAt("2025-02-05T00:00:00Z");
    const id = await createAccount("pro", "2025-01-29T00:00:00Z");
    await spendTimes(ledger, id, "score", 2);
    await dataSource.query(`UPDATE accounts SET billing_cycle_anchor = '2025-01-28T00:00:00Z' WHERE id = $1`, [id]);
    expect((await ledger.usage(id)).credits).toMatchObject({ used: 0, remaining: 1_000 });
    await ledger.spend(id, "chat", CHAT, "in-the-earlier-cycle");
    const usage = await ledger.usage(id);
    expect(usage.period.start).toEqual(new Date("2025-01-28T00:00:00Z"));
    expect([usage.credits.used, usage.scores.used, usage.chatMessages.used]).toEqual([1, 0, 1]);
  });

  it("grants a cycle's plan credits once, even when its first touches race", async () => {
    const { ledger } = ledgerAt("2025-06-10T00:00:00Z");
    const id = await createAccount("pro", "2025-05-20T00:00:00Z");
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? ledger.usage(id) : ledger.spend(id, "chat", CHAT, `chat-${i}`))),
    );
    const grants = (await dataSource.query(
      `SELECT "amount_tenths" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'grant'`,
      [id],
    )) as Array<{ amount_tenths: number }>;
    expect(grants).toEqual([{ amount_tenths: 10_000 }]);
    expect((await ledger.usage(id)).credits).toEqual({ limit: 1_000, used: 10, remaining: 990, packBalance: 0 });
  });

  it("refuses Free's 4th score with QUOTA_EXCEEDED while credits remain, writing nothing; a refunded score does not count", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("free", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "score", 3);
    const before = await entryCount(id);

    const refused = await rejectionOf(ledger.spend(id, "score", SCORE, "fourth"));
    expect([refused.code, refused.status, refused.retryable]).toEqual(["QUOTA_EXCEEDED", 429, false]);
    expect(await entryCount(id)).toBe(before);
    expect(await ledger.usage(id)).toMatchObject({
      credits: { limit: 80, used: 30, remaining: 50 },
      scores: { limit: 3, used: 3 },
    });

    await ledger.refund(id, "score-1");
    expect(amounts(await ledger.spend(id, "score", SCORE, "fourth"))).toEqual([["plan", -100]]);
  });

  it("keeps Free out of API calls and score packs", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("free", "2025-01-15T00:00:00Z");
    expect((await rejectionOf(ledger.spend(id, "api_call", API_CALL, null))).code).toBe("QUOTA_EXCEEDED");
    expect((await rejectionOf(ledger.purchasePack(id, "small", "checkout-free"))).code).toBe("PLAN_LIMIT_REACHED");
    expect((await rejectionOf(ledger.usage(randomUUID()))).code).toBe("NOT_FOUND");
  });

  it("refunds a spend into the buckets it took from, once", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("pro", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "score", 99);
    await spendTimes(ledger, id, "chat", 5);
    await ledger.purchasePack(id, "small", "checkout-2");
    const [fromPlan, fromPack] = await ledger.spend(id, "score", SCORE, "result-1");

    const refunds = await ledger.refund(id, "result-1");
    expect(refunds.map((entry) => [entry.kind, entry.bucket, entry.amountTenths, entry.reference])).toEqual([
      ["refund", "plan", 50, fromPlan?.id],
      ["refund", "pack", 50, fromPack?.id],
    ]);
    const restored = await ledger.usage(id);
    expect([restored.credits.remaining, restored.credits.packBalance, restored.scores.used]).toEqual([5, 200, 99]);

    expect(await ledger.refund(id, "result-1")).toEqual([]);
    expect(await ledger.usage(id)).toEqual(restored);
    await expectTotalsMatchLedger(id);
    // The database refuses a second refund of one spend entry whoever writes it.
    await expect(
      dataSource.query(
        `INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
         VALUES ($1, 'refund', 'plan', 50, 'score', $2, $3)`,
        [id, fromPlan?.id, restored.period.start],
      ),
    ).rejects.toThrow(/IDX_credit_entries_refund/);
  });

  it("refunds a spend of an ended cycle to that cycle, where its credits expire with it: a refund never makes pack credits, on Pro or on Free", async () => {
    for (const plan of ["pro", "free"] as const) {
      const { ledger, moveTo } = ledgerAt("2025-01-31T23:00:00Z");
      const id = await createAccount(plan, "2025-01-01T00:00:00Z");
      await ledger.spend(id, "score", SCORE, "late-january");
      moveTo("2025-02-01T00:30:00Z");
      await ledger.spend(id, "score", SCORE, "early-february");
      const [refund, ...more] = await ledger.refund(id, "late-january");
      expect(more).toEqual([]);
      expect([refund?.bucket, refund?.amountTenths, refund?.action, refund?.cycleStart]).toEqual([
        "plan",
        SCORE,
        "score",
        new Date("2025-01-01T00:00:00Z"),
      ]);
      const february = await ledger.usage(id);
      expect(february.credits, plan).toMatchObject({ used: 10, packBalance: 0 });
      expect(february.scores.used).toBe(1);
      // January's figures read as if the refunded score had never been charged.
      const [january] = (await dataSource.query(
        `SELECT "plan_used"::int AS "used", "score_count" AS "scores" FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2`,
        [id, "2025-01-01T00:00:00Z"],
      )) as Array<{ used: number; scores: number }>;
      expect(january).toEqual({ used: 0, scores: 0 });
      expect(await ledger.refund(id, "late-january")).toEqual([]);
      await expectTotalsMatchLedger(id);
    }
  });

  it("gives the credits back but keeps the action counted (refundCreditsWithinHourlyLimit), and the running totals still match the entries", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("free", "2025-01-15T00:00:00Z");
    await spendTimes(ledger, id, "chat", 2);
    const outcome = await ledger.refundCreditsWithinHourlyLimit(id, "chat-0", { action: "chat", perHour: 10 });
    if (outcome === "limited") throw new Error("the first refund of the hour was limited");
    const [refund, ...more] = outcome;
    expect(more).toEqual([]);
    expect([refund?.bucket, refund?.amountTenths, refund?.action]).toEqual(["plan", CHAT, null]);
    expect(await ledger.usage(id)).toMatchObject({ credits: { used: 1 }, chatMessages: { used: 2 } });
    expect(await ledger.refund(id, "chat-0")).toEqual([]);
    await expectTotalsMatchLedger(id);
  });

  it("refunds the credits (count kept) of exactly N spends of an action per account in any hour, however many race; full refunds are not counted", async () => {
    const { ledger } = ledgerAt(new Date().toISOString());
    const id = await createAccount("pro", new Date(Date.now() - 86_400_000).toISOString());
    await spendTimes(ledger, id, "chat", 25);
    await spendTimes(ledger, id, "score", 2);
    const limit = { action: "chat", perHour: 10 } as const;
    const outcomes = await Promise.all(
      Array.from({ length: 25 }, (_, i) => ledger.refundCreditsWithinHourlyLimit(id, `chat-${i}`, limit)),
    );
    expect(outcomes.filter((outcome) => outcome !== "limited")).toHaveLength(10);
    expect(await ledger.creditRefundsInLastHour(id, "chat", 10)).toMatchObject({
      count: 10,
      retryAfterSeconds: expect.any(Number),
    });
    expect((await ledger.creditRefundsInLastHour(id, "chat", 10)).retryAfterSeconds).toBeGreaterThan(3_000);
    // Another action's refunds are not counted against chat's.
    expect(await ledger.refundCreditsWithinHourlyLimit(id, "score-0", { action: "score", perHour: 10 })).toHaveLength(
      1,
    );
    // The credits came back, the counts stayed; a full refund does not take a slot.
    // 45 credits spent (25 chats, 2 scores); 10 chats and 1 score refunded.
    expect(await ledger.usage(id)).toMatchObject({ credits: { used: 25 }, chatMessages: { used: 25 } });
    expect(await ledger.refund(id, "chat-24")).not.toHaveLength(0);
    expect((await ledger.creditRefundsInLastHour(id, "chat", 10)).count).toBe(10);
    await expectTotalsMatchLedger(id);

    // An hour later (the refunds' times moved back) the slots are free again.
    await dataSource.query(
      `UPDATE "credit_entries" SET "created_at" = "created_at" - interval '61 minutes' WHERE "account_id" = $1 AND "kind" = 'refund'`,
      [id],
    );
    expect(await ledger.creditRefundsInLastHour(id, "chat", 10)).toEqual({ count: 0, retryAfterSeconds: 0 });
    const [chat] = outcomes.flatMap((outcome, i) => (outcome === "limited" ? [`chat-${i}`] : []));
    expect(await ledger.refundCreditsWithinHourlyLimit(id, chat!, limit)).toHaveLength(1);
  });

  it("anchors cycles on the 31st to the last day of shorter months, and back to the 31st after", async () => {
    const cycle = (anchor: string, now: string) => {
      const { start, end } = billingCycleAt(new Date(anchor), new Date(now));
      return [start.toISOString(), end.toISOString()];
    };
    const anchor = "2025-01-31T10:00:00Z";
    expect(cycle(anchor, "2025-02-15T00:00:00Z")).toEqual(["2025-01-31T10:00:00.000Z", "2025-02-28T10:00:00.000Z"]);
    expect(cycle(anchor, "2025-02-28T10:00:00Z")).toEqual(["2025-02-28T10:00:00.000Z", "2025-03-31T10:00:00.000Z"]);
    expect(cycle(anchor, "2025-04-30T09:59:59.999Z")).toEqual(["2025-03-31T10:00:00.000Z", "2025-04-30T10:00:00.000Z"]);
    expect(cycle(anchor, "2025-12-31T10:00:00Z")).toEqual(["2025-12-31T10:00:00.000Z", "2026-01-31T10:00:00.000Z"]);
    expect(cycle("2024-01-31T10:00:00Z", "2024-03-01T00:00:00Z")).toEqual([
      "2024-02-29T10:00:00.000Z",
      "2024-03-31T10:00:00.000Z",
    ]);

    const { ledger } = ledgerAt("2025-02-28T10:00:00Z");
    const id = await createAccount("pro", anchor);
    expect((await ledger.usage(id)).period).toEqual({
      start: new Date("2025-02-28T10:00:00Z"),
      end: new Date("2025-03-31T10:00:00Z"),
    });
    expect(
      ledger.currentCycle({ billingCycleAnchor: new Date(anchor) }, new Date("2025-03-30T00:00:00Z")).start,
    ).toEqual(new Date("2025-02-28T10:00:00Z"));
  });

  it("never refuses Enterprise for credits, but holds it to its 100,000 API calls", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("enterprise", "2025-01-15T00:00:00Z");
    await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.spend(id, "score", SCORE, `enterprise-${i}`)));
    await ledger.spend(id, "chat", 1_000_000_000, "a very long conversation");
    const usage = await ledger.usage(id);
    expect(usage.credits).toEqual({ limit: null, used: 100_000_200, remaining: null, packBalance: 0 });
    expect([usage.scores, usage.chatMessages, usage.products, usage.seats]).toEqual([
      { limit: null, used: 20 },
      { limit: null, used: 1 },
      { limit: null, used: 0 },
      { limit: null, used: 0 },
    ]);

    await dataSource.query(
      `INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "cycle_start")
       SELECT $1, 'spend', 'plan', -1, 'api_call', $2 FROM generate_series(1, 99999)`,
      [id, usage.period.start],
    );
    // The running totals are kept by the ledger's own writes; a bulk insert updates them by hand.
    await dataSource.query(
      `UPDATE "credit_balances" SET "api_call_count" = 99999, "plan_used" = "plan_used" + 99999, "plan_balance" = "plan_balance" - 99999
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [id, usage.period.start],
    );
    await expectTotalsMatchLedger(id);
    await ledger.spend(id, "api_call", API_CALL, null);
    expect((await rejectionOf(ledger.spend(id, "api_call", API_CALL, null))).code).toBe("QUOTA_EXCEEDED");
  });

  it("reports the live usage figures of docs/api.md §9", async () => {
    const { ledger } = ledgerAt("2025-03-20T00:00:00Z");
    const id = await createAccount("business", "2024-11-05T08:30:00Z", 2);
    await spendTimes(ledger, id, "score", 2);
    await spendTimes(ledger, id, "chat", 3);
    await spendTimes(ledger, id, "api_call", 4);
    await ledger.purchasePack(id, "medium", "checkout-3");
    expect(await ledger.purchasePack(id, "medium", "checkout-3")).toEqual([]);

    expect(await ledger.usage(id)).toEqual({
      plan: "business",
      period: { start: new Date("2025-03-05T08:30:00Z"), end: new Date("2025-04-05T08:30:00Z") },
      credits: { limit: 2_000, used: 23.4, remaining: 1_976.6, packBalance: 500 },
      scores: { limit: 200, used: 2 },
      chatMessages: { limit: 2_000, used: 3 },
      apiCalls: { limit: 25_000, used: 4 },
      products: { limit: 25, used: 0 },
      seats: { limit: 10, used: 2 },
    });
  });

  it("commits or rolls back a spend with the caller's transaction", async () => {
    const { ledger } = ledgerAt("2025-01-20T12:00:00Z");
    const id = await createAccount("pro", "2025-01-15T00:00:00Z");
    await expect(
      dataSource.transaction(async (manager) => {
        await ledger.spend(id, "score", SCORE, "failed-score", { manager });
        throw new Error("the score failed");
      }),
    ).rejects.toThrow("the score failed");
    expect((await ledger.usage(id)).credits.used).toBe(0);

    await dataSource.transaction((manager) => ledger.spend(id, "score", SCORE, "stored-score", { manager }));
    expect((await ledger.usage(id)).credits.used).toBe(10);

    await expect(ledger.spend(id, "score", SCORE, "no-transaction", { manager: dataSource.manager })).rejects.toThrow(
      /open transaction/,
    );
    await expect(
      dataSource.transaction("REPEATABLE READ", (manager) => ledger.spend(id, "score", SCORE, "snapshot", { manager })),
    ).rejects.toThrow(/READ COMMITTED/);
  });
});
