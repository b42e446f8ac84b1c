import { In, type DataSource, type EntityManager } from "typeorm";
import { AppError } from "../../errors.js";
import type { Account, PlanId } from "../accounts/account.entity.js";
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

interface CycleAccount {
  readonly id: string;
  readonly plan: Plan;
  /** The anchor exactly as stored (microseconds), to check it is unchanged. */
  readonly anchorText: string;
  readonly cycle: BillingCycle;
}

/** One `credit_balances` row as the ledger reads it (bigint columns arrive as strings). */
interface BalanceRow {
  readonly plan_granted: string;
  readonly plan_balance: string;
  readonly plan_used: string;
  readonly score_count: number;
  readonly chat_count: number;
  readonly api_call_count: number;
}

/** What a refund gives back to one cycle row. */
interface CycleRefund {
  readonly start: Date;
  tenths: number;
  readonly uncounted: BillableAction[];
}

const countColumns: Record<BillableAction, string> = { score: "score_count", chat: "chat_count", api_call: "api_call_count" };

/** A charge of $3 tenths of plan credits and one action on a cycle row (both charge paths). */
const chargeSet = (column: string) => `"plan_balance" = "plan_balance" - $3, "plan_used" = "plan_used" + $3, "${column}" = "${column}" + 1, "updated_at" = now()`;

const actionNouns: Record<BillableAction, string> = { score: "scores", chat: "chat messages", api_call: "API calls" };

const ENTRY_COLUMNS = `"id", "account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start", "created_at"`;

/**
 * The credit ledger (DESIGN.md §5). The append-only entries are the truth; beside
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
    private readonly dataSource: DataSource,
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
    if (!Number.isSafeInteger(costTenths) || costTenths <= 0) throw new RangeError(`costTenths must be a positive integer, got ${costTenths}`);
    if (!options.manager) {
      // On its own (an API call's charge), the common case is one autocommit statement: the row lock
      // lasts for the statement and its commit inside the server, with no round trip to this process
      // in between (a busy event loop would otherwise stretch every lock hold of the account).
      const manager = this.dataSource.manager;
      const charged = await this.spendFromPlan(manager, await this.readAccount(manager, accountId), action, costTenths, reference);
      if (charged) {
        this.onSpent(action, costTenths);
        return charged;
      }
    }
    const entries = await this.inTransaction(options.manager, async (manager) => {
      const account = await this.readAccount(manager, accountId);
      const charged = await this.spendFromPlan(manager, account, action, costTenths, reference);
      return charged ?? this.spendSplit(manager, account, action, costTenths, reference);
    });
    this.onSpent(action, costTenths);
    return entries;
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
    return this.inTransaction(options.manager, (manager) => this.reverse(manager, accountId, spendReference, false));
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
    return this.inTransaction(options.manager, async (manager) => {
      // A transaction-scoped lock of its own: nothing else takes it, so it adds no lock-order risk to spends.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`credit-refunds:${accountId}`]);
      const recent = await this.recentRefunds(manager, accountId, limit.action, limit.perHour);
      if (recent.count >= limit.perHour) return "limited";
      return this.reverse(manager, accountId, spendReference, true);
    });
  }

  /**
   * How many spends of `action` had their credits refunded with the count kept in
   * the last hour, and in how many seconds one of `perHour` slots is free again (0
   * while one is free). Read without a lock: a check in front of the work;
   * `refundCreditsWithinHourlyLimit` is the exact one.
   */
  async creditRefundsInLastHour(accountId: string, action: BillableAction, perHour: number): Promise<{ count: number; retryAfterSeconds: number }> {
    return this.recentRefunds(this.dataSource.manager, accountId, action, perHour);
  }

  private async recentRefunds(manager: EntityManager, accountId: string, action: BillableAction, perHour: number): Promise<{ count: number; retryAfterSeconds: number }> {
    // Refunds that kept the count name no action; one spend refunded from both buckets is one refund;
    // the window is the database's clock, like created_at.
    const [row] = (await manager.query(
      `WITH "refunded" AS (
         SELECT max("r"."created_at") AS "at"
           FROM "credit_entries" "r" JOIN "credit_entries" "s" ON "s"."id" = "r"."reference"::uuid
          WHERE "r"."account_id" = $1 AND "r"."kind" = 'refund' AND "r"."action" IS NULL AND "r"."created_at" > now() - interval '1 hour'
            AND "s"."kind" = 'spend' AND "s"."action" = $2
          GROUP BY COALESCE("s"."reference", "s"."id"::text))
       SELECT COUNT(*)::int AS "count",
              COALESCE(CEIL(EXTRACT(EPOCH FROM (
                (SELECT "at" FROM "refunded" ORDER BY "at" DESC OFFSET $3 - 1 LIMIT 1) + interval '1 hour' - now()))), 0)::int AS "wait"
         FROM "refunded"`,
      [accountId, action, perHour],
    )) as Array<{ count: number; wait: number }>;
    return { count: row?.count ?? 0, retryAfterSeconds: Math.max(row?.wait ?? 0, 0) };
  }

  /** The refund itself, in the caller's transaction: see `refund`. */
  private async reverse(manager: EntityManager, accountId: string, spendReference: string, keepCount: boolean): Promise<CreditEntry[]> {
    // Only for its checks (the account exists, READ COMMITTED): a refund goes to the spend's cycle, not the current one.
    await this.readAccount(manager, accountId);
    // Locking the spend entries (never updated) serializes refunds of one spend.
    const spends = (
      (await manager.query(
        `SELECT ${ENTRY_COLUMNS} FROM "credit_entries"
          WHERE "account_id" = $1 AND "kind" = 'spend' AND "reference" = $2 ORDER BY "created_at", "bucket" DESC FOR UPDATE`,
        [accountId, spendReference],
      )) as RawEntry[]
    ).map(entryOfRow);
    if (spends.length === 0) return [];
    const refunded = await manager.find(CreditEntry, {
      select: { reference: true },
      where: { kind: "refund", reference: In(spends.map((spend) => spend.id)) },
    });
    const done = new Set(refunded.map((refund) => refund.reference));
    const refunds: CreditEntry[] = [];
    const cycles = new Map<number, CycleRefund>();
    let toPack = 0;
    for (const spend of spends) {
      if (done.has(spend.id)) continue;
      const amount = -spend.amountTenths;
      if (spend.bucket === "pack") {
        toPack += amount;
        refunds.push(entryOf(accountId, spend.cycleStart, "refund", "pack", amount, keepCount ? null : spend.action, spend.id));
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
    if (refunds.length === 0) return [];
    // Cycle rows in time order, then the pack row: the order spends lock them in.
    for (const cycle of [...cycles.values()].sort((a, b) => a.start.getTime() - b.start.getTime())) {
      await this.returnToCycle(manager, accountId, cycle);
    }
    if (toPack > 0) await this.addPackCredits(manager, accountId, toPack);
    return manager.save(refunds);
  }

  /** Gives plan credits (and action counts) back to the cycle row they were spent from. */
  private async returnToCycle(manager: EntityManager, accountId: string, cycle: CycleRefund): Promise<void> {
    const counts = Object.entries(countColumns).flatMap(([action, column]) => {
      const n = cycle.uncounted.filter((uncounted) => uncounted === action).length;
      return n > 0 ? [`, "${column}" = "${column}" - ${n}`] : [];
    });
    await manager.query(
      `UPDATE "credit_balances"
          SET "plan_balance" = "plan_balance" + $3, "plan_used" = "plan_used" - $3${counts.join("")}, "updated_at" = now()
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, cycle.start, cycle.tenths],
    );
  }

  /**
   * Adds a score pack's credits to the pack bucket (paid plans only). `reference`
   * is the checkout id: a completion applied twice adds the pack once (returns []).
   */
  async purchasePack(accountId: string, packId: PackId, reference: string, options: PackPurchaseOptions = {}): Promise<CreditEntry[]> {
    return this.inTransaction(options.manager, async (manager) => {
      const account = await this.readAccount(manager, accountId);
      if (!account.plan.packs && !options.paid) {
        throw new AppError("PLAN_LIMIT_REACHED", `Score packs are for paid plans; the ${account.plan.name} plan cannot buy them.`);
      }
      const pack = scorePacks[packId];
      const inserted = (await manager.query(
        `INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
         VALUES ($1, 'pack_purchase', 'pack', $2, $3, $4, $5)
         ON CONFLICT ("account_id", "reference") WHERE "kind" = 'pack_purchase' DO NOTHING
         RETURNING ${ENTRY_COLUMNS}`,
        [accountId, pack.creditsTenths, pack.id, reference, account.cycle.start],
      )) as RawEntry[];
      if (inserted.length === 0) return [];
      await this.addPackCredits(manager, accountId, pack.creditsTenths);
      return inserted.map(entryOfRow);
    });
  }

  /**
   * The live figures of DESIGN.md §9, read without any lock or write: a cycle not
   * yet touched shows the credits its first charge will grant.
   */
  async usage(accountId: string): Promise<Usage> {
    // One statement: the account, its newest cycle row (the current one, unless the
    // current cycle has not been charged yet), its pack row and the two counts.
    const [found] = (await this.dataSource.query(
      `SELECT "a"."plan", "a"."billing_cycle_anchor", "b".*, "p"."balance_tenths",
              (SELECT COUNT(*)::int FROM "users" WHERE "account_id" = "a"."id") AS "members",
              (SELECT COUNT(*)::int FROM "products" WHERE "account_id" = "a"."id") AS "products"
         FROM "accounts" "a"
         LEFT JOIN LATERAL (SELECT * FROM "credit_balances" WHERE "account_id" = "a"."id" ORDER BY "cycle_start" DESC LIMIT 1) "b" ON true
         LEFT JOIN "credit_packs" "p" ON "p"."account_id" = "a"."id"
        WHERE "a"."id" = $1`,
      [accountId],
    )) as Array<Partial<BalanceRow> & { plan: PlanId; billing_cycle_anchor: Date; cycle_start: Date | null; balance_tenths: string | null; members: number; products: number }>;
    if (!found) throw new AppError("NOT_FOUND", "Account not found.");
    const account = { plan: plans[found.plan], cycle: billingCycleAt(found.billing_cycle_anchor, this.clock()) };
    let row: Partial<BalanceRow> | undefined = found.cycle_start?.getTime() === account.cycle.start.getTime() ? found : undefined;
    // The newest row is a later cycle's: only an anchor moved back (a provider period) leaves the current one behind it.
    if (!row && found.cycle_start && found.cycle_start > account.cycle.start) {
      [row] = (await this.dataSource.query(`SELECT * FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2`, [accountId, account.cycle.start])) as BalanceRow[];
    }
    const { members, products } = found;
    const { plan } = account;
    const monthly = plan.monthlyCreditsTenths;
    const granted = Number(row?.plan_granted ?? 0);
    // A pending top-up (the plan grew since the cycle's grant) is shown as it will be granted.
    const balance = Number(row?.plan_balance ?? 0) + Math.max((monthly ?? 0) - granted, 0);
    return {
      plan: plan.id,
      period: account.cycle,
      credits: {
        limit: monthly === null ? null : tenthsToCredits(monthly),
        used: tenthsToCredits(Number(row?.plan_used ?? 0)),
        remaining: monthly === null ? null : tenthsToCredits(Math.max(balance, 0)),
        packBalance: tenthsToCredits(Number(found.balance_tenths ?? 0)),
      },
      scores: { limit: plan.quotas.score.limit, used: row?.score_count ?? 0 },
      chatMessages: { limit: plan.quotas.chat.limit, used: row?.chat_count ?? 0 },
      apiCalls: { limit: plan.quotas.api_call.limit, used: row?.api_call_count ?? 0 },
      products: { limit: plan.products, used: products },
      seats: { limit: plan.seats, used: members },
    };
  }

  private inTransaction<T>(manager: EntityManager | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!manager) return this.dataSource.transaction(work);
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error("CreditLedger: pass the EntityManager of an open transaction (dataSource.transaction(manager => …)).");
    }
    return work(manager);
  }

  /**
   * The account's plan and current cycle, read without a lock. Writes need READ
   * COMMITTED: each conditional UPDATE then re-checks the latest committed row; a
   * REPEATABLE READ snapshot would fail them with serialization errors instead.
   */
  private async readAccount(manager: EntityManager, accountId: string): Promise<CycleAccount> {
    const rows: Array<{ plan: PlanId; billing_cycle_anchor: Date; anchor_text: string; isolation: string }> = await manager.query(
      `SELECT "plan", "billing_cycle_anchor", "billing_cycle_anchor"::text AS "anchor_text", current_setting('transaction_isolation') AS "isolation"
         FROM "accounts" WHERE "id" = $1`,
      [accountId],
    );
    const row = rows[0];
    if (!row) throw new AppError("NOT_FOUND", "Account not found.");
    if (row.isolation !== "read committed") {
      throw new Error(`CreditLedger needs a READ COMMITTED transaction, got ${row.isolation}: a snapshot could overspend.`);
    }
    return { id: accountId, plan: plans[row.plan], anchorText: row.anchor_text, cycle: billingCycleAt(row.billing_cycle_anchor, this.clock()) };
  }

  /**
   * The common case in one statement: the cycle's row exists with its full grant,
   * the count is under a hard ceiling and plan credits cover the whole cost (or the
   * plan has no credit limit). Decrements the row and writes the entry; undefined
   * (nothing written) when any condition fails, for `spendSplit` to sort out.
   */
  private async spendFromPlan(
    manager: EntityManager,
    account: CycleAccount,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
  ): Promise<CreditEntry[] | undefined> {
    const { plan, cycle } = account;
    const quota = plan.quotas[action];
    const ceiling = quota.hard ? quota.limit : null;
    const unlimited = plan.monthlyCreditsTenths === null;
    const column = countColumns[action];
    const rows = (await manager.query(
      `WITH "charged" AS (
         UPDATE "credit_balances"
            SET ${chargeSet(column)}
          WHERE "account_id" = $1 AND "cycle_start" = $2 AND "plan_granted" >= $4
            AND ($5::boolean OR "plan_balance" >= $3) AND ($6::integer IS NULL OR "${column}" < $6)
            -- the plan and cycle this charge was priced on are still the account's
            AND EXISTS (SELECT 1 FROM "accounts" WHERE "id" = $1 AND "plan" = $9 AND "billing_cycle_anchor" = $10::timestamptz)
          RETURNING "account_id")
       INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
       SELECT "account_id", 'spend', 'plan', -$3::integer, $7, $8, $2 FROM "charged"
       RETURNING ${ENTRY_COLUMNS}`,
      [account.id, cycle.start, costTenths, plan.monthlyCreditsTenths ?? 0, unlimited, ceiling, action, reference, plan.id, account.anchorText],
    )) as RawEntry[];
    return rows.length > 0 ? rows.map(entryOfRow) : undefined;
  }

  /**
   * Everything `spendFromPlan` does not cover: the cycle's first charge (its grant),
   * a top-up after an upgrade, a refusal, and a cost split between plan and pack
   * credits. Locks the cycle row, then the pack row (always in this order).
   */
  private async spendSplit(
    manager: EntityManager,
    account: CycleAccount,
    action: BillableAction,
    costTenths: number,
    reference: string | null,
  ): Promise<CreditEntry[]> {
    const { plan, cycle } = account;
    const row = await this.openCycle(manager, account);
    const quota = plan.quotas[action];
    const count = row[countColumns[action] as keyof BalanceRow] as number;
    if (quota.hard && quota.limit !== null && count >= quota.limit) {
      const included = quota.limit === 0 ? `no ${actionNouns[action]}` : `${quota.limit} ${actionNouns[action]} per billing cycle, all used`;
      throw new AppError("QUOTA_EXCEEDED", `The ${plan.name} plan includes ${included}; the next cycle starts ${cycle.end.toISOString()}.`);
    }
    const unlimited = plan.monthlyCreditsTenths === null;
    const planBalance = Number(row.plan_balance);
    const fromPlan = unlimited ? costTenths : Math.min(costTenths, Math.max(planBalance, 0));
    const fromPack = costTenths - fromPlan;
    if (fromPack > 0) {
      const packs = (await manager.query(`SELECT "balance_tenths" FROM "credit_packs" WHERE "account_id" = $1 FOR UPDATE`, [account.id])) as Array<{
        balance_tenths: string;
      }>;
      const packBalance = Number(packs[0]?.balance_tenths ?? 0);
      if (fromPack > packBalance) {
        const [cost, planLeft, packLeft] = [costTenths, fromPlan, packBalance].map(tenthsToCredits);
        throw new AppError("CREDIT_EXHAUSTED", `This costs ${cost} credits; ${planLeft} plan credits and ${packLeft} pack credits remain.`);
      }
      await manager.query(`UPDATE "credit_packs" SET "balance_tenths" = "balance_tenths" - $2, "updated_at" = now() WHERE "account_id" = $1`, [
        account.id,
        fromPack,
      ]);
    }
    const column = countColumns[action];
    await manager.query(
      `UPDATE "credit_balances"
          SET ${chargeSet(column)}
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [account.id, cycle.start, fromPlan],
    );
    const entries = [entryOf(account.id, cycle.start, "spend", "plan", debit(fromPlan), action, reference)];
    if (fromPack > 0) entries.push(entryOf(account.id, cycle.start, "spend", "pack", debit(fromPack), action, reference));
    return manager.save(entries);
  }

  /**
   * The cycle's row, locked, after granting its plan credits: on the cycle's first
   * touch (concurrent first touches grant once: the second insert waits for the
   * first and then finds the row), and topped up to the plan's monthly credits when
   * the plan grew during the cycle (a downgrade takes nothing back).
   */
  private async openCycle(manager: EntityManager, account: CycleAccount): Promise<BalanceRow> {
    const monthly = account.plan.monthlyCreditsTenths ?? 0;
    const created = (await manager.query(
      `INSERT INTO "credit_balances" ("account_id", "cycle_start", "plan_granted", "plan_balance") VALUES ($1, $2, $3, $3)
       ON CONFLICT DO NOTHING RETURNING "account_id"`,
      [account.id, account.cycle.start, monthly],
    )) as unknown[];
    if (created.length > 0 && monthly > 0) await manager.save(entryOf(account.id, account.cycle.start, "grant", "plan", monthly, null, null));
    const [row] = (await manager.query(`SELECT * FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2 FOR UPDATE`, [
      account.id,
      account.cycle.start,
    ])) as BalanceRow[];
    if (!row) throw new Error(`credit_balances row of ${account.id} vanished`);
    const missing = monthly - Number(row.plan_granted);
    if (missing <= 0) return row;
    await manager.query(
      `UPDATE "credit_balances" SET "plan_granted" = "plan_granted" + $3, "plan_balance" = "plan_balance" + $3, "updated_at" = now()
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [account.id, account.cycle.start, missing],
    );
    await manager.save(entryOf(account.id, account.cycle.start, "grant", "plan", missing, null, null));
    return { ...row, plan_granted: String(monthly), plan_balance: String(Number(row.plan_balance) + missing) };
  }

  private async addPackCredits(manager: EntityManager, accountId: string, tenths: number): Promise<void> {
    await manager.query(
      `INSERT INTO "credit_packs" ("account_id", "balance_tenths") VALUES ($1, $2)
       ON CONFLICT ("account_id") DO UPDATE SET "balance_tenths" = "credit_packs"."balance_tenths" + EXCLUDED."balance_tenths", "updated_at" = now()`,
      [accountId, tenths],
    );
  }
}

interface RawEntry {
  readonly id: string;
  readonly account_id: string;
  readonly kind: CreditEntryKind;
  readonly bucket: CreditBucket;
  readonly amount_tenths: number;
  readonly action: string | null;
  readonly reference: string | null;
  readonly cycle_start: Date;
  readonly created_at: Date;
}

function entryOfRow(row: RawEntry): CreditEntry {
  return Object.assign(new CreditEntry(), {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind,
    bucket: row.bucket,
    amountTenths: row.amount_tenths,
    action: row.action,
    reference: row.reference,
    cycleStart: row.cycle_start,
    createdAt: row.created_at,
  });
}

/** A debit of n tenths as a signed amount, never -0. */
const debit = (tenths: number): number => (tenths === 0 ? 0 : -tenths);

function entryOf(
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
