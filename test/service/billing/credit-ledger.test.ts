import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions } from "../../../src/db/transaction.js";
import { AppError } from "../../../src/errors.js";
import { CreditBalanceRepository } from "../../../src/modules/billing/credit-balance.repository.js";
import { CreditEntryRepository } from "../../../src/modules/billing/credit-entry.repository.js";
import { CreditLedger } from "../../../src/modules/billing/ledger.service.js";
import { actionCostTenths, plans } from "../../../src/modules/billing/plans.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase } from "../../support/database.js";
import { createAccount } from "./support.js";

/**
 * CreditLedger over its real repositories on a cloned database: the money rules of
 * docs/api.md §5 without HTTP or an app.
 */
let dataSource: DataSource;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ dataSource, close } = await openClonedDatabase());
});
afterAll(async () => {
  await close?.();
});

function ledgerAt(clock: () => Date = () => new Date()): CreditLedger {
  return new CreditLedger(
    new CreditEntryRepository(dataSource),
    new CreditBalanceRepository(dataSource),
    new Transactions(dataSource),
    clock,
  );
}

async function planBalanceOf(accountId: string): Promise<number | undefined> {
  const [row] = (await dataSource.query(
    `SELECT "plan_balance" FROM "credit_balances" WHERE "account_id" = $1 ORDER BY "cycle_start" DESC LIMIT 1`,
    [accountId],
  )) as Array<{
    plan_balance: string;
  }>;
  return row && Number(row.plan_balance);
}

async function entriesOf(accountId: string): Promise<Array<{ kind: string; amount: number; cycle_start: Date }>> {
  return (await dataSource.query(
    `SELECT "kind", "amount_tenths" AS "amount", "cycle_start" FROM "credit_entries" WHERE "account_id" = $1 ORDER BY "created_at", "kind"`,
    [accountId],
  )) as Array<{ kind: string; amount: number; cycle_start: Date }>;
}

describe("CreditLedger", () => {
  it("refuses a spend that plan and pack credits cannot cover, and writes nothing", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "free", new Date(Date.now() - 86_400_000));
    // Free grants 80 credits (800 tenths): 90 credits cannot be paid.
    const refused = await rejectionOf(ledger.spend(accountId, "chat", 900, "too-dear"));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.code).toBe("CREDIT_EXHAUSTED");
    expect(await entriesOf(accountId)).toEqual([]);
    expect((await ledger.usage(accountId)).credits).toEqual({ limit: 80, used: 0, remaining: 80, packBalance: 0 });

    // Inside a caller's transaction the refusal rolls that transaction's work back with it.
    const transactions = new Transactions(dataSource);
    await ledger.spend(accountId, "chat", 700, "most");
    const inside = await rejectionOf(
      transactions.run((tx) => ledger.spend(accountId, "chat", 200, "rest", { manager: tx })),
    );
    expect(inside.code).toBe("CREDIT_EXHAUSTED");
    expect((await ledger.usage(accountId)).credits).toMatchObject({ used: 70, remaining: 10 });
  });

  it("charges exactly as many of 20 concurrent spends as the balance covers (10), and the balance never goes below zero", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    // Pro grants 1,000 credits: ten spends of 100 credits each.
    const cost = 1_000;
    let running = true;
    let lowest = Number.POSITIVE_INFINITY;
    const watcher = (async () => {
      while (running) {
        const balance = await planBalanceOf(accountId);
        if (balance !== undefined) lowest = Math.min(lowest, balance);
      }
    })();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => ledger.spend(accountId, "score", cost, `concurrent-${i}`)),
    );
    running = false;
    await watcher;

    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(10);
    const refusals = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [(outcome.reason as AppError).code] : [],
    );
    expect(refusals).toEqual(Array.from({ length: 10 }, () => "CREDIT_EXHAUSTED"));
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(await planBalanceOf(accountId)).toBe(0);
    const spends = (await entriesOf(accountId)).filter((entry) => entry.kind === "spend");
    expect(spends.map((entry) => entry.amount)).toEqual(Array.from({ length: 10 }, () => -cost));
    expect((await ledger.usage(accountId)).credits).toEqual({
      limit: 1_000,
      used: 1_000,
      remaining: 0,
      packBalance: 0,
    });
  });

  it("refunds a spend into the cycle it was spent in, not the current one", async () => {
    let now = new Date("2025-01-30T12:00:00Z");
    const ledger = ledgerAt(() => now);
    const { accountId } = await createAccount(dataSource, "pro", new Date("2025-01-01T00:00:00Z"));
    await ledger.spend(accountId, "score", actionCostTenths.score, "january");
    now = new Date("2025-02-02T12:00:00Z");
    await ledger.spend(accountId, "score", actionCostTenths.score, "february");

    const [refund, ...more] = await ledger.refund(accountId, "january");
    expect(more).toEqual([]);
    expect(refund).toMatchObject({
      kind: "refund",
      bucket: "plan",
      amountTenths: actionCostTenths.score,
      action: "score",
    });
    expect(refund!.cycleStart).toEqual(new Date("2025-01-01T00:00:00Z"));
    // February's figures are untouched: the credits went back to January's row, where they expire with it.
    expect(await ledger.usage(accountId)).toMatchObject({ credits: { used: 10, remaining: 990 }, scores: { used: 1 } });
    const [january] = (await dataSource.query(
      `SELECT "plan_balance", "plan_used", "score_count" FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, new Date("2025-01-01T00:00:00Z")],
    )) as Array<{ plan_balance: string; plan_used: string; score_count: number }>;
    expect(january).toEqual({ plan_balance: "10000", plan_used: "0", score_count: 0 });
    // A second refund of the same spend finds nothing left to give back.
    expect(await ledger.refund(accountId, "january")).toEqual([]);
  });

  it("refunds credits (count kept) up to its hourly limit, then answers limited and writes nothing", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    for (let i = 0; i < 5; i += 1) await ledger.spend(accountId, "chat", actionCostTenths.chat, `chat-${i}`);
    const limit = { action: "chat", perHour: 3 } as const;

    const outcomes = [];
    for (let i = 0; i < 5; i += 1)
      outcomes.push(await ledger.refundCreditsWithinHourlyLimit(accountId, `chat-${i}`, limit));
    expect(outcomes.map((outcome) => (outcome === "limited" ? outcome : outcome.length))).toEqual([
      1,
      1,
      1,
      "limited",
      "limited",
    ]);
    expect(await ledger.creditRefundsInLastHour(accountId, "chat", 3)).toMatchObject({ count: 3 });
    expect((await ledger.creditRefundsInLastHour(accountId, "chat", 3)).retryAfterSeconds).toBeGreaterThan(3_000);
    // Three chats' credits came back; all five stay counted.
    expect(await ledger.usage(accountId)).toMatchObject({ credits: { used: 2 }, chatMessages: { used: 5 } });
  });

  it("refuses a Transaction that is not open, and a snapshot transaction", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    await expect(
      ledger.spend(accountId, "score", actionCostTenths.score, "closed", { manager: dataSource.manager }),
    ).rejects.toThrow(/open transaction/);
    await expect(
      dataSource.transaction("REPEATABLE READ", (tx) =>
        ledger.spend(accountId, "score", actionCostTenths.score, "snapshot", { manager: tx }),
      ),
    ).rejects.toThrow(/READ COMMITTED/);
    expect(await entriesOf(accountId)).toEqual([]);
  });
});

describe("CreditLedger.spendAcrossFromPlan (a scheduler's claim or a batch charging many scores at once)", () => {
  const transactions = () => new Transactions(dataSource);
  const many = (ledger: CreditLedger, accountId: string, references: readonly string[]) =>
    transactions().run(async (tx) =>
      (await ledger.spendAcrossFromPlan(tx, "score", actionCostTenths.score, new Map([[accountId, references]]))).has(
        accountId,
      ),
    );
  const refs = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}:${i}`);
  const spendsOf = async (accountId: string) =>
    (await entriesOf(accountId)).filter((entry) => entry.kind === "spend").length;

  it("charges every reference in one go when plan credits cover the sum, one entry each", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    // Nothing charged yet this cycle: the claim opens the cycle with its grant, once, and charges in the same go.
    expect(await many(ledger, accountId, refs("early", 2))).toBe(true);
    const grants = (await entriesOf(accountId)).filter((entry) => entry.kind === "grant");
    expect(grants.map((entry) => entry.amount)).toEqual([plans.pro.monthlyCreditsTenths]);
    expect(await planBalanceOf(accountId)).toBe(plans.pro.monthlyCreditsTenths! - 2 * actionCostTenths.score);
    await ledger.spend(accountId, "score", actionCostTenths.score, "first");
    const before = (await planBalanceOf(accountId))!;
    expect(await many(ledger, accountId, refs("run", 5))).toBe(true);
    expect(await planBalanceOf(accountId)).toBe(before - 5 * actionCostTenths.score);
    const references = (await dataSource.query(
      `SELECT "reference" FROM "credit_entries" WHERE "account_id" = $1 AND "reference" LIKE 'run:%' ORDER BY "reference"`,
      [accountId],
    )) as Array<{ reference: string }>;
    expect(references.map((row) => row.reference)).toEqual(refs("run", 5));
    const [counts] = (await dataSource.query(`SELECT "score_count" FROM "credit_balances" WHERE "account_id" = $1`, [
      accountId,
    ])) as Array<{ score_count: number }>;
    expect(counts!.score_count).toBe(8);
  });

  it("opens untouched cycles of many accounts at once, each once, when claims race over them in any order", async () => {
    const ledger = ledgerAt();
    const anchor = new Date(Date.now() - 86_400_000);
    const accounts = await Promise.all(
      Array.from({ length: 6 }, async () => (await createAccount(dataSource, "pro", anchor)).accountId),
    );
    const claim = (order: readonly string[], prefix: string) =>
      transactions().run((tx) =>
        ledger.spendAcrossFromPlan(
          tx,
          "score",
          actionCostTenths.score,
          new Map(order.map((accountId) => [accountId, refs(`${prefix}:${accountId}`, 2)])),
        ),
      );
    // Opposite orders: without one locking order the two claims would deadlock on each other's new rows.
    const [first, second] = await Promise.all([claim(accounts, "a"), claim([...accounts].reverse(), "b")]);
    expect(first.size).toBe(6);
    expect(second.size).toBe(6);
    for (const accountId of accounts) {
      const entries = await entriesOf(accountId);
      expect(entries.filter((entry) => entry.kind === "grant")).toHaveLength(1);
      expect(entries.filter((entry) => entry.kind === "spend")).toHaveLength(4);
      expect(await planBalanceOf(accountId)).toBe(plans.pro.monthlyCreditsTenths! - 4 * actionCostTenths.score);
    }
  });

  it("a refused claim leaves an opened cycle showing what an untouched one showed", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    const untouched = await ledger.usage(accountId);
    const tooMany = plans.pro.monthlyCreditsTenths! / actionCostTenths.score + 1;
    expect(await many(ledger, accountId, refs("dear", tooMany))).toBe(false);
    expect(await spendsOf(accountId)).toBe(0);
    expect(await ledger.usage(accountId)).toEqual(untouched);
  });

  it("writes nothing when the sum is not covered, or would pass a hard ceiling", async () => {
    const ledger = ledgerAt();
    const pro = (await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000))).accountId;
    await ledger.spend(pro, "score", actionCostTenths.score, "first");
    const balance = (await planBalanceOf(pro))!;
    const tooMany = balance / actionCostTenths.score + 1;
    expect(await many(ledger, pro, refs("dear", tooMany))).toBe(false);
    expect(await planBalanceOf(pro)).toBe(balance);
    expect(await spendsOf(pro)).toBe(1);

    // Free: 3 scores a cycle, hard. One spent: three more would be four.
    const free = (await createAccount(dataSource, "free", new Date(Date.now() - 86_400_000))).accountId;
    await ledger.spend(free, "score", actionCostTenths.score, "first");
    expect(await many(ledger, free, refs("past", 3))).toBe(false);
    expect(await spendsOf(free)).toBe(1);
    expect(await many(ledger, free, refs("within", 2))).toBe(true);
    expect(await spendsOf(free)).toBe(3);
  });

  it("never overspends when two claims charge one account at once", async () => {
    const ledger = ledgerAt();
    const { accountId } = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    await ledger.spend(accountId, "score", actionCostTenths.score, "first");
    const balance = (await planBalanceOf(accountId))!;
    // Each claim alone fits; both together do not.
    const each = Math.floor(balance / actionCostTenths.score / 2) + 1;
    const outcomes = await Promise.all([
      many(ledger, accountId, refs("a", each)),
      many(ledger, accountId, refs("b", each)),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await planBalanceOf(accountId)).toBe(balance - each * actionCostTenths.score);
    expect(await spendsOf(accountId)).toBe(1 + each);
  });

  it("charges the accounts that can pay and writes nothing for the others, in one call", async () => {
    const ledger = ledgerAt();
    const anchor = new Date(Date.now() - 86_400_000);
    const rich = (await createAccount(dataSource, "pro", anchor)).accountId;
    const capped = (await createAccount(dataSource, "free", anchor)).accountId;
    const fresh = (await createAccount(dataSource, "pro", anchor)).accountId;
    await ledger.spend(rich, "score", actionCostTenths.score, "first");
    await ledger.spend(capped, "score", actionCostTenths.score, "first");
    const charged = await transactions().run((tx) =>
      ledger.spendAcrossFromPlan(
        tx,
        "score",
        actionCostTenths.score,
        new Map([
          [rich, refs("r", 4)],
          [capped, refs("c", 3)], // 1 + 3 passes Free's 3
          [fresh, refs("f", 1)], // no cycle row yet: opened with its grant, then charged
        ]),
      ),
    );
    expect([...charged].sort()).toEqual([rich, fresh].sort());
    expect(await spendsOf(rich)).toBe(5);
    expect(await spendsOf(capped)).toBe(1);
    expect(await spendsOf(fresh)).toBe(1);
  });
});
