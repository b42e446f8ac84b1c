import { In, type DataSource, type EntityManager } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { CreditEntry, type CreditBucket, type CreditEntryKind } from "./credit-entry.entity.js";
import type { BillableAction } from "./plans.js";

/** The columns of a `credit_entries` row, in the order the RETURNING clauses read them. */
export const ENTRY_COLUMNS = `"id", "account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start", "created_at"`;

/** One `credit_entries` row as a raw query returns it. */
export interface RawEntry {
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

export function entryOfRow(row: RawEntry): CreditEntry {
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

export interface RecentCreditRefunds {
  readonly count: number;
  readonly retryAfterSeconds: number;
}

/**
 * The append-only `credit_entries` (the ledger's truth): entries are inserted,
 * locked and summed here, never updated or deleted. The running sums beside them
 * are `CreditBalanceRepository`'s.
 */
export class CreditEntryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes new entries; returns them with their ids and times. */
  append(tx: Transaction, entries: CreditEntry[]): Promise<CreditEntry[]> {
    return tx.save(entries);
  }

  /**
   * A pack purchase's entry, unless the account already has one for `reference`
   * (the checkout id): undefined then, so a completion applied twice adds the pack once.
   */
  async appendPackPurchase(
    tx: Transaction,
    purchase: {
      readonly accountId: string;
      readonly packId: string;
      readonly tenths: number;
      readonly reference: string;
      readonly cycleStart: Date;
    },
  ): Promise<CreditEntry | undefined> {
    const inserted = (await tx.query(
      `INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
       VALUES ($1, 'pack_purchase', 'pack', $2, $3, $4, $5)
       ON CONFLICT ("account_id", "reference") WHERE "kind" = 'pack_purchase' DO NOTHING
       RETURNING ${ENTRY_COLUMNS}`,
      [purchase.accountId, purchase.tenths, purchase.packId, purchase.reference, purchase.cycleStart],
    )) as RawEntry[];
    return inserted[0] && entryOfRow(inserted[0]);
  }

  /**
   * The spend entries carrying `reference`, oldest first (plan before pack), locked:
   * locking the spend entries (never updated) serializes refunds of one spend.
   */
  async lockSpends(tx: Transaction, accountId: string, reference: string): Promise<CreditEntry[]> {
    const rows = (await tx.query(
      `SELECT ${ENTRY_COLUMNS} FROM "credit_entries"
        WHERE "account_id" = $1 AND "kind" = 'spend' AND "reference" = $2 ORDER BY "created_at", "bucket" DESC FOR UPDATE`,
      [accountId, reference],
    )) as RawEntry[];
    return rows.map(entryOfRow);
  }

  /** Which of these spend entries already have their refund entry. */
  async refundedSpendIds(tx: Transaction, spendIds: readonly string[]): Promise<Set<string | null>> {
    const refunded = await tx.find(CreditEntry, {
      select: { reference: true },
      where: { kind: "refund", reference: In([...spendIds]) },
    });
    return new Set(refunded.map((refund) => refund.reference));
  }

  /**
   * How many spends of `action` had their credits refunded with the count kept in
   * the last hour, and in how many seconds one of `perHour` slots is free again (0
   * while one is free). `tx` null: read on its own, without a lock.
   */
  async creditRefundsInLastHour(
    tx: Transaction | null,
    accountId: string,
    action: BillableAction,
    perHour: number,
  ): Promise<RecentCreditRefunds> {
    const manager: EntityManager = tx ?? this.dataSource.manager;
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

  /**
   * Takes the account's refund-decision lock until `tx` ends, so its hourly-limit
   * decisions are taken one at a time. A transaction-scoped lock of its own: nothing
   * else takes it, so it adds no lock-order risk to spends.
   */
  async lockRefundDecisions(tx: Transaction, accountId: string): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`credit-refunds:${accountId}`]);
  }
}
