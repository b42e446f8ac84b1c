import type { Transaction, Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import type { Account } from "../accounts/account.entity.js";
import { billingCycleAt, type BillingCycle } from "./billing-cycle.js";
import { countColumns, type BalanceRow, type CreditBalanceRepository } from "./credit-balance.repository.js";
import type { CreditEntry } from "./credit-entry.entity.js";
import type { CreditEntryRepository } from "./credit-entry.repository.js";
import { debit, entryOf, planRefund } from "./ledger-entries.js";
import { usageFigures, type Usage } from "./usage-figures.js";
import { plans, scorePacks, tenthsToCredits, type BillableAction, type PackId, type Plan } from "./plans.js";

export { billingCycleAt, type BillingCycle } from "./billing-cycle.js";
export type { QuotaUsage, Usage } from "./usage-figures.js";

export interface LedgerOptions {
  /**
   * The caller's open (READ COMMITTED) transaction, so the ledger entries commit
   * or roll back together with the action they pay for.
   */
  readonly manager?: Transaction;
}

export interface PackPurchaseOptions extends LedgerOptions {
  /** The pack was paid for (a completed checkout): granted whatever the plan is by now. */
  readonly paid?: boolean;
}

interface CycleAccount {
  readonly id: string;
  readonly plan: Plan;
  /** The anchor exactly as stored (microseconds), to check it is unchanged. */
  readonly anchorText: string;
  readonly cycle: BillingCycle;
}

/** A charge written, with where the action's monthly count stands after it. */
export interface CountedSpend {
  readonly entries: CreditEntry[];
  /** The action's count in the current cycle, this charge included. */
  readonly count: number;
  /** The plan's monthly ceiling of the action, or null when it has none. */
  readonly limit: number | null;
  /** The cycle the count belongs to: it starts again at its end. */
  readonly cycle: BillingCycle;
}

const actionNouns: Record<BillableAction, string> = { score: "scores", chat: "chat messages", api_call: "API calls" };

/**
 * The credit ledger (docs/api.md §5). The append-only entries are the truth; beside
 * them, one row per account and cycle (`credit_balances`: plan credits and action
 * counts) and one per account (`credit_packs`: pack credits, which never expire)
 * hold their running sums, changed in the same transaction as each entry.
 *
 * No account-wide lock and no sum over entries on the hot path: a spend is one
 * conditional UPDATE of the cycle row (enough credits, under the ceiling) that also
 * writes its entry: on its own an autocommit statement, inside a caller's
 * transaction the caller's to commit, so the row lock is held for one statement
 * and the commit. Concurrent spends of one account queue on
 * that row only for that long, and can never overspend: the condition is checked
 * against the latest committed balance. Reading usage takes no lock at all.
 */
export class CreditLedger {
  constructor(
    private readonly entries: CreditEntryRepository,
    private readonly balances: CreditBalanceRepository,
    private readonly transactions: Transactions,
    private readonly clock: () => Date = () => new Date(),
    /** Told of each charge written (metrics); inside a caller's transaction, before it commits. */
    private readonly onSpent: (action: BillableAction, tenths: number) => void = () => undefined,
  ) {}

  currentCycle(account: Pick<Account, "billingCycleAnchor">, now: Date = this.clock()): BillingCycle {
    return billingCycleAt(account.billingCycleAnchor, now);
  }

  /**
   * Charges `costTenths` for one `action`: plan credits first, then pack credits.
   * Writes exactly one plan-bucket entry (0 when plan credits are used up: it is
   * what the monthly count ceilings count) and a pack-bucket entry for any rest.
   * Refused, with nothing written: QUOTA_EXCEEDED at a hard monthly count ceiling,
   * CREDIT_EXHAUSTED when plan plus pack credits cannot cover the cost.
   */
  async spend(
    accountId: string,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
    options: LedgerOptions = {},
  ): Promise<CreditEntry[]> {
    return (await this.spendCounted(accountId, action, costTenths, reference, options)).entries;
  }

  /**
   * `spend`, also answering the action's count after this charge, its ceiling and the
   * cycle's end (the API-call allowance's RateLimit headers): the count is the one the
   * charge's own statement wrote, so knowing it costs no further read or lock.
   */
  async spendCounted(
    accountId: string,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
    options: LedgerOptions = {},
  ): Promise<CountedSpend> {
    if (!Number.isSafeInteger(costTenths) || costTenths <= 0)
      throw new RangeError(`costTenths must be a positive integer, got ${costTenths}`);
    if (!options.manager) {
      // On its own (an API call's charge), the common case is one autocommit statement: the row lock
      // lasts for the statement and its commit inside the server, with no round trip to this process
      // in between (a busy event loop would otherwise stretch every lock hold of the account).
      const account = await this.readAccount(null, accountId);
      const charged = await this.spendFromPlan(null, account, action, costTenths, reference);
      if (charged) {
        this.onSpent(action, costTenths);
        return counted(account, action, charged);
      }
    }
    const spent = await this.inTransaction(options.manager, async (tx) => {
      const account = await this.readAccount(tx, accountId);
      const charged =
        (await this.spendFromPlan(tx, account, action, costTenths, reference)) ??
        (await this.spendSplit(tx, account, action, costTenths, reference));
      return counted(account, action, charged);
    });
    this.onSpent(action, costTenths);
    return spent;
  }

  /**
   * Charges one `action` of `costTenths` per reference, each account's references all
   * or none, in the caller's transaction and a fixed number of statements: first the
   * cycles not yet touched are opened with their grant, together; then the charges go
   * through only where `spend`'s one-statement path applies to an account's whole sum
   * (the cycle's row holds its full grant, plan credits cover every charge, the count
   * stays within a hard ceiling). Answers the accounts charged; for the others no
   * charge was written, and the caller spends one at a time, which takes every other
   * path (a top-up after an upgrade, pack credits, a refusal). A scheduler's claim and a batch charge
   * their many scores this way instead of a statement pair each.
   */
  async spendAcrossFromPlan(
    tx: Transaction,
    action: BillableAction,
    costTenths: number,
    references: ReadonlyMap<string, readonly string[]>,
  ): Promise<Set<string>> {
    if (!Number.isSafeInteger(costTenths) || costTenths <= 0)
      throw new RangeError(`costTenths must be a positive integer, got ${costTenths}`);
    const wanted = [...references].filter(([, refs]) => refs.length > 0);
    if (wanted.length === 0) return new Set();
    const accounts = await this.inTransaction(tx, (open) =>
      this.readAccounts(
        open,
        wanted.map(([accountId]) => accountId),
      ),
    );
    // Cycles not yet touched are opened (and granted) together, as each one's first `spend` would open it.
    await this.balances.createCycles(
      tx,
      accounts.map((account) => ({
        accountId: account.id,
        cycleStart: account.cycle.start,
        grantTenths: account.plan.monthlyCreditsTenths ?? 0,
      })),
    );
    const charged = await this.balances.chargePlanAcross(
      tx,
      action,
      costTenths,
      accounts.map((account) => ({
        accountId: account.id,
        cycleStart: account.cycle.start,
        grantedAtLeast: account.plan.monthlyCreditsTenths ?? 0,
        unlimited: account.plan.monthlyCreditsTenths === null,
        ceiling: account.plan.quotas[action].hard ? account.plan.quotas[action].limit : null,
        planId: account.plan.id,
        anchorText: account.anchorText,
        references: references.get(account.id)!,
      })),
    );
    for (const accountId of charged)
      for (let n = 0; n < references.get(accountId)!.length; n++) this.onSpent(action, costTenths);
    return charged;
  }

  /**
   * Reverses every not yet refunded spend entry carrying `spendReference`, each into
   * the bucket and cycle it came from: plan credits (and the action's count) go back
   * to the spend's own cycle, also when that cycle has ended, where they expire with
   * it; pack credits go back to the pack balance. Only a pack purchase adds pack
   * credits: a refund after the turn of a cycle must not turn expiring plan credits
   * into credits that never expire. Returns the refund entries written: none when
   * there is nothing (left) to refund, so a repeated refund is harmless, even
   * concurrently.
   */
  async refund(accountId: string, spendReference: string, options: LedgerOptions = {}): Promise<CreditEntry[]> {
    return this.inTransaction(options.manager, (tx) => this.reverse(tx, accountId, spendReference, false));
  }

  /**
   * Gives a spend's credits back but leaves its action counted (its real cost was
   * incurred), at most `perHour` times per account for spends of `action` in any
   * rolling hour; past that the spend stands and nothing is written ("limited").
   * The decisions of one account are taken one at a time, so concurrent refunds
   * never get past the limit. Full refunds (`refund`) are not counted against it.
   */
  async refundCreditsWithinHourlyLimit(
    accountId: string,
    spendReference: string,
    limit: { readonly action: BillableAction; readonly perHour: number },
    options: LedgerOptions = {},
  ): Promise<CreditEntry[] | "limited"> {
    return this.inTransaction(options.manager, async (tx) => {
      // One decision of the account at a time, until this transaction ends.
      await this.entries.lockRefundDecisions(tx, accountId);
      const recent = await this.entries.creditRefundsInLastHour(tx, accountId, limit.action, limit.perHour);
      if (recent.count >= limit.perHour) return "limited";
      return this.reverse(tx, accountId, spendReference, true);
    });
  }

  /**
   * How many spends of `action` had their credits refunded with the count kept in
   * the last hour, and in how many seconds one of `perHour` slots is free again (0
   * while one is free). Read without a lock: a check in front of the work;
   * `refundCreditsWithinHourlyLimit` is the exact one.
   */
  async creditRefundsInLastHour(
    accountId: string,
    action: BillableAction,
    perHour: number,
  ): Promise<{ count: number; retryAfterSeconds: number }> {
    return this.entries.creditRefundsInLastHour(null, accountId, action, perHour);
  }

  /** The refund itself, in the caller's transaction: see `refund`. */
  private async reverse(
    tx: Transaction,
    accountId: string,
    spendReference: string,
    keepCount: boolean,
  ): Promise<CreditEntry[]> {
    // Only for its checks (the account exists, READ COMMITTED): a refund goes to the spend's cycle, not the current one.
    await this.readAccount(tx, accountId);
    // Locks the spend entries: refunds of one spend are taken one at a time.
    const spends = await this.entries.lockSpends(tx, accountId, spendReference);
    if (spends.length === 0) return [];
    const done = await this.entries.refundedSpendIds(
      tx,
      spends.map((spend) => spend.id),
    );
    const { refunds, cycles, toPack } = planRefund(accountId, spends, done, keepCount);
    if (refunds.length === 0) return [];
    // Cycle rows in time order, then the pack row: the order spends lock them in.
    for (const cycle of cycles) {
      await this.balances.returnToCycle(tx, accountId, cycle.start, cycle.tenths, cycle.uncounted);
    }
    if (toPack > 0) await this.balances.addPackCredits(tx, accountId, toPack);
    return this.entries.append(tx, refunds);
  }

  /**
   * Adds a score pack's credits to the pack bucket (paid plans only). `reference`
   * is the checkout id: a completion applied twice adds the pack once (returns []).
   */
  async purchasePack(
    accountId: string,
    packId: PackId,
    reference: string,
    options: PackPurchaseOptions = {},
  ): Promise<CreditEntry[]> {
    return this.inTransaction(options.manager, async (tx) => {
      const account = await this.readAccount(tx, accountId);
      if (!account.plan.packs && !options.paid) {
        throw new AppError(
          "PLAN_LIMIT_REACHED",
          `Score packs are for paid plans; the ${account.plan.name} plan cannot buy them.`,
        );
      }
      const pack = scorePacks[packId];
      const inserted = await this.entries.appendPackPurchase(tx, {
        accountId,
        packId: pack.id,
        tenths: pack.creditsTenths,
        reference,
        cycleStart: account.cycle.start,
      });
      if (!inserted) return [];
      await this.balances.addPackCredits(tx, accountId, pack.creditsTenths);
      return [inserted];
    });
  }

  /**
   * The live figures of docs/api.md §9, read without any lock or write: a cycle not
   * yet touched shows the credits its first charge will grant.
   */
  async usage(accountId: string, options: LedgerOptions = {}): Promise<Usage> {
    // In a caller's transaction (a scheduler's claim), the figures include its own uncommitted charges.
    const found = await this.balances.readUsage(accountId, options.manager);
    if (!found) throw new AppError("NOT_FOUND", "Account not found.");
    const cycle = billingCycleAt(found.billing_cycle_anchor, this.clock());
    let row: Partial<BalanceRow> | undefined =
      found.cycle_start?.getTime() === cycle.start.getTime() ? found : undefined;
    // The newest row is a later cycle's: only an anchor moved back (a provider period) leaves the current one behind it.
    if (!row && found.cycle_start && found.cycle_start > cycle.start) {
      row = await this.balances.readCycle(accountId, cycle.start, options.manager);
    }
    return usageFigures(plans[found.plan], cycle, row, found);
  }

  private inTransaction<T>(tx: Transaction | undefined, work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (!tx) return this.transactions.run(work);
    if (!this.balances.isOpen(tx)) {
      throw new Error("CreditLedger: pass the Transaction of an open transaction (transactions.run(tx => …)).");
    }
    return work(tx);
  }

  /**
   * The account's plan and current cycle, read without a lock (`tx` null: on its
   * own). Writes need READ COMMITTED: each conditional UPDATE then re-checks the
   * latest committed row; a REPEATABLE READ snapshot would fail them with
   * serialization errors instead.
   */
  private async readAccount(tx: Transaction | null, accountId: string): Promise<CycleAccount> {
    const row = await this.balances.readAccount(tx, accountId);
    if (!row) throw new AppError("NOT_FOUND", "Account not found.");
    if (row.isolation !== "read committed") {
      throw new Error(
        `CreditLedger needs a READ COMMITTED transaction, got ${row.isolation}: a snapshot could overspend.`,
      );
    }
    return {
      id: accountId,
      plan: plans[row.plan],
      anchorText: row.anchorText,
      cycle: billingCycleAt(row.anchor, this.clock()),
    };
  }

  /** `readAccount` for many accounts in one statement (unknown ones left out). */
  private async readAccounts(tx: Transaction, accountIds: readonly string[]): Promise<CycleAccount[]> {
    const rows = await this.balances.readAccounts(tx, accountIds);
    return rows.map((row) => {
      if (row.isolation !== "read committed")
        throw new Error(
          `CreditLedger needs a READ COMMITTED transaction, got ${row.isolation}: a snapshot could overspend.`,
        );
      return {
        id: row.id,
        plan: plans[row.plan],
        anchorText: row.anchorText,
        cycle: billingCycleAt(row.anchor, this.clock()),
      };
    });
  }

  /**
   * The common case in one statement: the cycle's row exists with its full grant,
   * the count is under a hard ceiling and plan credits cover the whole cost (or the
   * plan has no credit limit). Decrements the row and writes the entry; undefined
   * (nothing written) when any condition fails, for `spendSplit` to sort out.
   */
  private async spendFromPlan(
    tx: Transaction | null,
    account: CycleAccount,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
  ): Promise<{ entries: CreditEntry[]; count: number } | undefined> {
    const { plan, cycle } = account;
    const quota = plan.quotas[action];
    const charged = await this.balances.chargePlan(tx, {
      accountId: account.id,
      cycleStart: cycle.start,
      action,
      costTenths,
      reference,
      grantedAtLeast: plan.monthlyCreditsTenths ?? 0,
      unlimited: plan.monthlyCreditsTenths === null,
      ceiling: quota.hard ? quota.limit : null,
      planId: plan.id,
      anchorText: account.anchorText,
    });
    return charged.entries.length > 0 && charged.count !== undefined
      ? { entries: charged.entries, count: charged.count }
      : undefined;
  }

  /**
   * Everything `spendFromPlan` does not cover: the cycle's first charge (its grant),
   * a top-up after an upgrade, a refusal, and a cost split between plan and pack
   * credits. Locks the cycle row, then the pack row (always in this order).
   */
  private async spendSplit(
    tx: Transaction,
    account: CycleAccount,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
  ): Promise<{ entries: CreditEntry[]; count: number }> {
    const { plan, cycle } = account;
    const row = await this.openCycle(tx, account);
    const quota = plan.quotas[action];
    const count = row[countColumns[action] as keyof BalanceRow] as number;
    if (quota.hard && quota.limit !== null && count >= quota.limit) {
      const included =
        quota.limit === 0
          ? `no ${actionNouns[action]}`
          : `${quota.limit} ${actionNouns[action]} per billing cycle, all used`;
      throw new AppError(
        "QUOTA_EXCEEDED",
        `The ${plan.name} plan includes ${included}; the next cycle starts ${cycle.end.toISOString()}.`,
      );
    }
    const unlimited = plan.monthlyCreditsTenths === null;
    const planBalance = Number(row.plan_balance);
    const fromPlan = unlimited ? costTenths : Math.min(costTenths, Math.max(planBalance, 0));
    const fromPack = costTenths - fromPlan;
    if (fromPack > 0) {
      const packBalance = await this.balances.lockPackBalance(tx, account.id);
      if (fromPack > packBalance) {
        const [cost, planLeft, packLeft] = [costTenths, fromPlan, packBalance].map(tenthsToCredits);
        throw new AppError(
          "CREDIT_EXHAUSTED",
          `This costs ${cost} credits; ${planLeft} plan credits and ${packLeft} pack credits remain.`,
        );
      }
      await this.balances.takeFromPack(tx, account.id, fromPack);
    }
    await this.balances.chargeCycle(tx, account.id, cycle.start, action, fromPlan);
    const entries = [entryOf(account.id, cycle.start, "spend", "plan", debit(fromPlan), action, reference)];
    if (fromPack > 0)
      entries.push(entryOf(account.id, cycle.start, "spend", "pack", debit(fromPack), action, reference));
    return { entries: await this.entries.append(tx, entries), count: count + 1 };
  }

  /**
   * The cycle's row, locked, after granting its plan credits: on the cycle's first
   * touch (concurrent first touches grant once: the second insert waits for the
   * first and then finds the row), and topped up to the plan's monthly credits when
   * the plan grew during the cycle (a downgrade takes nothing back).
   */
  private async openCycle(tx: Transaction, account: CycleAccount): Promise<BalanceRow> {
    const monthly = account.plan.monthlyCreditsTenths ?? 0;
    const created = await this.balances.createCycle(tx, account.id, account.cycle.start, monthly);
    if (created && monthly > 0)
      await this.entries.append(tx, [entryOf(account.id, account.cycle.start, "grant", "plan", monthly, null, null)]);
    const row = await this.balances.lockCycle(tx, account.id, account.cycle.start);
    if (!row) throw new Error(`credit_balances row of ${account.id} vanished`);
    const missing = monthly - Number(row.plan_granted);
    if (missing <= 0) return row;
    await this.balances.grantToCycle(tx, account.id, account.cycle.start, missing);
    await this.entries.append(tx, [entryOf(account.id, account.cycle.start, "grant", "plan", missing, null, null)]);
    return { ...row, plan_granted: String(monthly), plan_balance: String(Number(row.plan_balance) + missing) };
  }
}

function counted(
  account: CycleAccount,
  action: BillableAction,
  charged: { entries: CreditEntry[]; count: number },
): CountedSpend {
  return { ...charged, limit: account.plan.quotas[action].limit, cycle: account.cycle };
}
