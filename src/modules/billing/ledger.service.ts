import { In, type DataSource, type EntityManager } from "typeorm";
import { AppError } from "../../errors.js";
import type { Account, PlanId } from "../accounts/account.entity.js";
import { User } from "../accounts/user.entity.js";
import { Product } from "../products/product.entity.js";
import { CreditEntry, type CreditBucket, type CreditEntryKind } from "./credit-entry.entity.js";
import { plans, scorePacks, tenthsToCredits, type BillableAction, type PackId, type Plan } from "./plans.js";

export interface BillingCycle {
  readonly start: Date;
  readonly end: Date;
}

export interface QuotaUsage {
  readonly limit: number | null;
  readonly used: number;
}

/** DESIGN.md §9. Credits are exact to the tenth; `limit: null` means unlimited. */
export interface Usage {
  readonly plan: PlanId;
  readonly period: BillingCycle;
  /** `used`/`remaining` are this cycle's plan credits; pack credits are `packBalance`. */
  readonly credits: { readonly limit: number | null; readonly used: number; readonly remaining: number | null; readonly packBalance: number };
  readonly scores: QuotaUsage;
  readonly chatMessages: QuotaUsage;
  readonly apiCalls: QuotaUsage;
  readonly products: QuotaUsage;
  readonly seats: QuotaUsage;
}

export interface LedgerOptions {
  /**
   * The EntityManager of the caller's open (READ COMMITTED) transaction, so the
   * ledger entries commit or roll back together with the action they pay for.
   */
  readonly manager?: EntityManager;
}

export interface PackPurchaseOptions extends LedgerOptions {
  /** The pack was paid for (a completed checkout): granted whatever the plan is by now. */
  readonly paid?: boolean;
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
    Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}

interface LockedAccount {
  readonly id: string;
  readonly plan: Plan;
  readonly cycle: BillingCycle;
}

/** Sums of an account's entries, in tenths; counts are spends minus refunds. */
interface Totals {
  readonly planBalance: number;
  readonly planGranted: number;
  readonly planUsed: number;
  readonly packBalance: number;
  readonly counts: Readonly<Record<BillableAction, number>>;
}

const actionNouns: Record<BillableAction, string> = { score: "scores", chat: "chat messages", api_call: "API calls" };

/**
 * The credit ledger (DESIGN.md §5). Balances are derived from append-only entries:
 * the plan bucket sums the current cycle's plan entries (a new cycle starts from its
 * own grant, so no reset entries are written), the pack bucket sums all pack entries
 * (packs never expire). Every write holds the account row's lock, so concurrent
 * spends of one account run one after another and can never overspend.
 */
export class CreditLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: () => Date = () => new Date(),
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
    if (!Number.isSafeInteger(costTenths) || costTenths <= 0) throw new RangeError(`costTenths must be a positive integer, got ${costTenths}`);
    return this.inTransaction(options.manager, async (manager) => {
      const account = await this.lockAccount(manager, accountId);
      const totals = await this.openCycle(manager, account);
      const { plan, cycle } = account;

      const quota = plan.quotas[action];
      if (quota.hard && quota.limit !== null && totals.counts[action] >= quota.limit) {
        const included = quota.limit === 0 ? `no ${actionNouns[action]}` : `${quota.limit} ${actionNouns[action]} per billing cycle, all used`;
        throw new AppError("QUOTA_EXCEEDED", `The ${plan.name} plan includes ${included}; the next cycle starts ${cycle.end.toISOString()}.`);
      }

      const unlimited = plan.monthlyCreditsTenths === null;
      const fromPlan = unlimited ? costTenths : Math.min(costTenths, Math.max(totals.planBalance, 0));
      const fromPack = costTenths - fromPlan;
      if (fromPack > totals.packBalance) {
        const [cost, planLeft, packLeft] = [costTenths, fromPlan, totals.packBalance].map(tenthsToCredits);
        throw new AppError("CREDIT_EXHAUSTED", `This costs ${cost} credits; ${planLeft} plan credits and ${packLeft} pack credits remain.`);
      }

      const entries = [entryOf(accountId, cycle, "spend", "plan", debit(fromPlan), action, reference)];
      if (fromPack > 0) entries.push(entryOf(accountId, cycle, "spend", "pack", debit(fromPack), action, reference));
      return manager.save(entries);
    });
  }

  /**
   * Reverses every not yet refunded spend entry carrying `spendReference`, into the
   * bucket and cycle it came from. Returns the refund entries written: none when
   * there is nothing (left) to refund, so a repeated refund is harmless.
   */
  async refund(accountId: string, spendReference: string, options: LedgerOptions = {}): Promise<CreditEntry[]> {
    return this.inTransaction(options.manager, async (manager) => {
      await this.lockAccount(manager, accountId);
      const spends = await manager.find(CreditEntry, {
        where: { accountId, kind: "spend", reference: spendReference },
        order: { createdAt: "ASC" },
      });
      if (spends.length === 0) return [];
      const refunded = await manager.find(CreditEntry, {
        select: { reference: true },
        where: { kind: "refund", reference: In(spends.map((spend) => spend.id)) },
      });
      const done = new Set(refunded.map((refund) => refund.reference));
      const refunds = spends
        .filter((spend) => !done.has(spend.id))
        .map((spend) =>
          entryOf(accountId, { start: spend.cycleStart }, "refund", spend.bucket, debit(spend.amountTenths), spend.action, spend.id),
        );
      return refunds.length > 0 ? manager.save(refunds) : [];
    });
  }

  /**
   * Adds a score pack's credits to the pack bucket (paid plans only). `reference`
   * is the checkout id: a completion applied twice adds the pack once (returns []).
   */
  async purchasePack(accountId: string, packId: PackId, reference: string, options: PackPurchaseOptions = {}): Promise<CreditEntry[]> {
    return this.inTransaction(options.manager, async (manager) => {
      const account = await this.lockAccount(manager, accountId);
      if (!account.plan.packs && !options.paid) {
        throw new AppError("PLAN_LIMIT_REACHED", `Score packs are for paid plans; the ${account.plan.name} plan cannot buy them.`);
      }
      if (await manager.exists(CreditEntry, { where: { accountId, kind: "pack_purchase", reference } })) return [];
      const pack = scorePacks[packId];
      return manager.save([entryOf(accountId, account.cycle, "pack_purchase", "pack", pack.creditsTenths, pack.id, reference)]);
    });
  }

  /** The live figures of DESIGN.md §9 (grants the cycle's credits on its first touch). */
  async usage(accountId: string): Promise<Usage> {
    return this.dataSource.transaction(async (manager) => {
      const account = await this.lockAccount(manager, accountId);
      const totals = await this.openCycle(manager, account);
      const members = await manager.count(User, { where: { accountId } });
      const products = await manager.count(Product, { where: { accountId } });
      const { plan } = account;
      const monthly = plan.monthlyCreditsTenths;
      return {
        plan: plan.id,
        period: account.cycle,
        credits: {
          limit: monthly === null ? null : tenthsToCredits(monthly),
          used: tenthsToCredits(totals.planUsed),
          remaining: monthly === null ? null : tenthsToCredits(Math.max(totals.planBalance, 0)),
          packBalance: tenthsToCredits(totals.packBalance),
        },
        scores: { limit: plan.quotas.score.limit, used: totals.counts.score },
        chatMessages: { limit: plan.quotas.chat.limit, used: totals.counts.chat },
        apiCalls: { limit: plan.quotas.api_call.limit, used: totals.counts.api_call },
        products: { limit: plan.products, used: products },
        seats: { limit: plan.seats, used: members },
      };
    });
  }

  private inTransaction<T>(manager: EntityManager | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!manager) return this.dataSource.transaction(work);
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error("CreditLedger: pass the EntityManager of an open transaction (dataSource.transaction(manager => …)).");
    }
    return work(manager);
  }

  /**
   * Locks the account row: every ledger write of one account is serialized here.
   * Under READ COMMITTED each later statement sees what the previous lock holder
   * committed; a REPEATABLE READ snapshot taken earlier would not, hence the guard.
   */
  private async lockAccount(manager: EntityManager, accountId: string): Promise<LockedAccount> {
    const rows: Array<{ plan: PlanId; billing_cycle_anchor: Date; isolation: string }> = await manager.query(
      `SELECT "plan", "billing_cycle_anchor", current_setting('transaction_isolation') AS "isolation"
         FROM "accounts" WHERE "id" = $1 FOR UPDATE`,
      [accountId],
    );
    const row = rows[0];
    if (!row) throw new AppError("NOT_FOUND", "Account not found.");
    if (row.isolation !== "read committed") {
      throw new Error(`CreditLedger needs a READ COMMITTED transaction, got ${row.isolation}: a snapshot could overspend.`);
    }
    return { id: accountId, plan: plans[row.plan], cycle: billingCycleAt(row.billing_cycle_anchor, this.clock()) };
  }

  /**
   * The totals of the current cycle, after granting its plan credits on first touch.
   * A grant tops the cycle up to the plan's monthly credits, so an upgrade during a
   * cycle grants the difference and a downgrade takes nothing back.
   */
  private async openCycle(manager: EntityManager, account: LockedAccount): Promise<Totals> {
    const totals = await this.totals(manager, account);
    const missing = (account.plan.monthlyCreditsTenths ?? 0) - totals.planGranted;
    if (missing <= 0) return totals;
    await manager.save(entryOf(account.id, account.cycle, "grant", "plan", missing, null, null));
    return { ...totals, planBalance: totals.planBalance + missing, planGranted: totals.planGranted + missing };
  }

  private async totals(manager: EntityManager, account: LockedAccount): Promise<Totals> {
    // Every spend has exactly one plan-bucket entry, so counting those counts spends.
    const count = (action: BillableAction) =>
      `SUM(CASE "kind" WHEN 'spend' THEN 1 WHEN 'refund' THEN -1 ELSE 0 END) FILTER (WHERE "bucket" = 'plan' AND "action" = '${action}')`;
    const rows: Array<Record<string, string | null>> = await manager.query(
      `SELECT
         SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan') AS "planBalance",
         SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" = 'grant') AS "planGranted",
         -SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" IN ('spend', 'refund')) AS "planUsed",
         ${count("score")} AS "score", ${count("chat")} AS "chat", ${count("api_call")} AS "api_call",
         (SELECT SUM("amount_tenths") FROM "credit_entries" WHERE "account_id" = $1 AND "bucket" = 'pack') AS "packBalance"
       FROM "credit_entries" WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [account.id, account.cycle.start],
    );
    // SUM over bigint arrives as a string (or null over no rows); the values are exact integers.
    const row = rows[0] ?? {};
    const int = (key: string) => Number(row[key] ?? 0);
    return {
      planBalance: int("planBalance"),
      planGranted: int("planGranted"),
      planUsed: int("planUsed"),
      packBalance: int("packBalance"),
      counts: { score: int("score"), chat: int("chat"), api_call: int("api_call") },
    };
  }
}

/** A debit of n tenths as a signed amount, never -0. */
const debit = (tenths: number): number => (tenths === 0 ? 0 : -tenths);

function entryOf(
  accountId: string,
  cycle: Pick<BillingCycle, "start">,
  kind: CreditEntryKind,
  bucket: CreditBucket,
  amountTenths: number,
  action: string | null,
  reference: string | null,
): CreditEntry {
  return Object.assign(new CreditEntry(), { accountId, kind, bucket, amountTenths, action, reference, cycleStart: cycle.start });
}
