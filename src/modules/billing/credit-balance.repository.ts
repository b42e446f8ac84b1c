import type { DataSource, EntityManager } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import type { PlanId } from "../accounts/account.entity.js";
import type { CreditEntry } from "./credit-entry.entity.js";
import { ENTRY_COLUMNS, entryOfRow, type RawEntry } from "./credit-entry.repository.js";
import type { BillableAction } from "./plans.js";

/** One `credit_balances` row as the ledger reads it (bigint columns arrive as strings). */
export interface BalanceRow {
  readonly plan_granted: string;
  readonly plan_balance: string;
  readonly plan_used: string;
  readonly score_count: number;
  readonly chat_count: number;
  readonly api_call_count: number;
}

/** The account as the ledger prices a charge on it. */
export interface LedgerAccountRow {
  readonly plan: PlanId;
  readonly anchor: Date;
  /** The anchor exactly as stored (microseconds), to check it is unchanged. */
  readonly anchorText: string;
  /** The isolation level of the transaction this was read in (`read committed` on its own). */
  readonly isolation: string;
}

/** The live figures of an account's usage in one read: its newest cycle row (if any), pack balance and counts. */
export type UsageRow = Partial<BalanceRow> & {
  readonly plan: PlanId;
  readonly billing_cycle_anchor: Date;
  readonly cycle_start: Date | null;
  readonly balance_tenths: string | null;
  readonly members: number;
  readonly products: number;
};

/** A charge that `chargePlan` takes from plan credits only when every condition holds. */
export interface PlanCharge {
  readonly accountId: string;
  readonly cycleStart: Date;
  readonly action: BillableAction;
  readonly costTenths: number;
  readonly reference: string | null;
  /** The row must hold at least this grant (the plan's monthly credits, 0 when unlimited). */
  readonly grantedAtLeast: number;
  /** No credit limit: the balance is not checked. */
  readonly unlimited: boolean;
  /** A hard monthly count ceiling the action's count must stay under, or null. */
  readonly ceiling: number | null;
  /** The plan and anchor the charge was priced on. */
  readonly planId: PlanId;
  readonly anchorText: string;
}

export const countColumns: Record<BillableAction, string> = {
  score: "score_count",
  chat: "chat_count",
  api_call: "api_call_count",
};

/** A charge of $3 tenths of plan credits and one action on a cycle row (both charge paths). */
const chargeSet = (column: string) =>
  `"plan_balance" = "plan_balance" - $3, "plan_used" = "plan_used" + $3, "${column}" = "${column}" + 1, "updated_at" = now()`;

/**
 * The ledger's running sums: one `credit_balances` row per account and cycle (plan
 * credits and action counts) and one `credit_packs` row per account (pack credits),
 * plus the account's plan and anchor they are priced on. Callers lock a cycle row
 * before the pack row (always in this order). Methods taking `tx: Transaction | null`
 * run a single statement on their own (autocommit) when given null.
 */
export class CreditBalanceRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether `tx` is a transaction still open (not a bare connection, not committed). */
  isOpen(tx: Transaction): boolean {
    return tx.queryRunner?.isTransactionActive === true;
  }

  /** The account's plan and billing anchor, read without a lock, with the isolation level it was read in. */
  async readAccount(tx: Transaction | null, accountId: string): Promise<LedgerAccountRow | undefined> {
    const rows: Array<{ plan: PlanId; billing_cycle_anchor: Date; anchor_text: string; isolation: string }> =
      await this.on(tx).query(
        `SELECT "plan", "billing_cycle_anchor", "billing_cycle_anchor"::text AS "anchor_text", current_setting('transaction_isolation') AS "isolation"
         FROM "accounts" WHERE "id" = $1`,
        [accountId],
      );
    const row = rows[0];
    return (
      row && { plan: row.plan, anchor: row.billing_cycle_anchor, anchorText: row.anchor_text, isolation: row.isolation }
    );
  }

  /** `readAccount` for many accounts in one statement (unknown ones left out). */
  async readAccounts(
    tx: Transaction,
    accountIds: readonly string[],
  ): Promise<Array<LedgerAccountRow & { id: string }>> {
    const rows: Array<{
      id: string;
      plan: PlanId;
      billing_cycle_anchor: Date;
      anchor_text: string;
      isolation: string;
    }> = await tx.query(
      `SELECT "id", "plan", "billing_cycle_anchor", "billing_cycle_anchor"::text AS "anchor_text", current_setting('transaction_isolation') AS "isolation"
         FROM "accounts" WHERE "id" = ANY($1::uuid[])`,
      [[...accountIds]],
    );
    return rows.map((row) => ({
      id: row.id,
      plan: row.plan,
      anchor: row.billing_cycle_anchor,
      anchorText: row.anchor_text,
      isolation: row.isolation,
    }));
  }

  /**
   * The common charge in one statement: decrements the cycle's existing row and
   * writes the plan-bucket spend entry, only if the row holds the full grant, the
   * count is under the ceiling, plan credits cover the cost (or are unlimited) and
   * the plan and anchor are unchanged. Empty (nothing written) when any fails; else
   * the entry and the action's count in the cycle after this charge, as the UPDATE
   * left it (no second read).
   */
  async chargePlan(
    tx: Transaction | null,
    charge: PlanCharge,
  ): Promise<{ entries: CreditEntry[]; count: number | undefined }> {
    const column = countColumns[charge.action];
    const rows = (await this.on(tx).query(
      `WITH "charged" AS (
         UPDATE "credit_balances"
            SET ${chargeSet(column)}
          WHERE "account_id" = $1 AND "cycle_start" = $2 AND "plan_granted" >= $4
            AND ($5::boolean OR "plan_balance" >= $3) AND ($6::integer IS NULL OR "${column}" < $6)
            -- the plan and cycle this charge was priced on are still the account's
            AND EXISTS (SELECT 1 FROM "accounts" WHERE "id" = $1 AND "plan" = $9 AND "billing_cycle_anchor" = $10::timestamptz)
          RETURNING "account_id", "${column}" AS "count"),
       "entry" AS (
         INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
         SELECT "account_id", 'spend', 'plan', -$3::integer, $7, $8, $2 FROM "charged"
         RETURNING ${ENTRY_COLUMNS})
       SELECT "entry".*, "charged"."count" AS "action_count" FROM "entry", "charged"`,
      [
        charge.accountId,
        charge.cycleStart,
        charge.costTenths,
        charge.grantedAtLeast,
        charge.unlimited,
        charge.ceiling,
        charge.action,
        charge.reference,
        charge.planId,
        charge.anchorText,
      ],
    )) as Array<RawEntry & { action_count: number }>;
    return { entries: rows.map(entryOfRow), count: rows[0]?.action_count };
  }

  /**
   * `chargePlan` for many charges of many accounts at once: each account's charges
   * all or none, under the same conditions as one charge (the whole sum covered, the
   * count within the ceiling, the plan and anchor unchanged). Two statements whatever
   * the number of accounts: the cycle rows are locked first in account order (so
   * concurrent callers never deadlock), then one statement decrements each row by
   * its sum and writes one spend entry per reference. Answers the accounts charged;
   * for the others nothing was written.
   */
  async chargePlanAcross(
    tx: Transaction,
    action: BillableAction,
    costTenths: number,
    charges: ReadonlyArray<Omit<PlanCharge, "reference" | "action" | "costTenths"> & { references: readonly string[] }>,
  ): Promise<Set<string>> {
    if (charges.length === 0) return new Set();
    const column = countColumns[action];
    const wanted = [
      charges.map((charge) => charge.accountId),
      charges.map((charge) => charge.cycleStart.toISOString()),
      charges.map((charge) => charge.references.length),
      charges.map((charge) => charge.grantedAtLeast),
      charges.map((charge) => charge.unlimited),
      charges.map((charge) => charge.ceiling),
      charges.map((charge) => charge.planId),
      charges.map((charge) => charge.anchorText),
    ];
    const wantedRows = `SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::integer[], $4::integer[], $5::boolean[], $6::integer[], $7::text[], $8::text[])
        AS "w" ("account_id", "cycle_start", "n", "granted", "unlimited", "ceiling", "plan", "anchor_text")`;
    await tx.query(
      `SELECT 1 FROM "credit_balances" "cb" JOIN (${wantedRows}) "w"
          ON "cb"."account_id" = "w"."account_id" AND "cb"."cycle_start" = "w"."cycle_start"
        ORDER BY "cb"."account_id" FOR UPDATE OF "cb"`,
      wanted,
    );
    const rows = (await tx.query(
      `WITH "wanted" AS (${wantedRows}),
       "charged" AS (
         UPDATE "credit_balances" "cb"
            SET "plan_balance" = "cb"."plan_balance" - $9::integer * "w"."n",
                "plan_used" = "cb"."plan_used" + $9::integer * "w"."n",
                "${column}" = "cb"."${column}" + "w"."n", "updated_at" = now()
           FROM "wanted" "w"
          WHERE "cb"."account_id" = "w"."account_id" AND "cb"."cycle_start" = "w"."cycle_start"
            AND "cb"."plan_granted" >= "w"."granted"
            AND ("w"."unlimited" OR "cb"."plan_balance" >= $9::integer * "w"."n")
            AND ("w"."ceiling" IS NULL OR "cb"."${column}" + "w"."n" <= "w"."ceiling")
            -- the plan and cycle each charge was priced on are still the account's
            AND EXISTS (SELECT 1 FROM "accounts" "a" WHERE "a"."id" = "w"."account_id" AND "a"."plan" = "w"."plan"
                          AND "a"."billing_cycle_anchor" = "w"."anchor_text"::timestamptz)
          RETURNING "cb"."account_id", "cb"."cycle_start"),
       "entry" AS (
         INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
         SELECT "c"."account_id", 'spend', 'plan', -$9::integer, $10, "r"."reference", "c"."cycle_start"
           FROM "charged" "c" JOIN unnest($11::uuid[], $12::text[]) AS "r" ("account_id", "reference")
             ON "r"."account_id" = "c"."account_id"
         RETURNING "account_id")
       SELECT "account_id", COUNT(*)::integer AS "n" FROM "entry" GROUP BY "account_id"`,
      [
        ...wanted,
        costTenths,
        action,
        charges.flatMap((charge) => charge.references.map(() => charge.accountId)),
        charges.flatMap((charge) => charge.references),
      ],
    )) as Array<{ account_id: string; n: number }>;
    const expected = new Map(charges.map((charge) => [charge.accountId, charge.references.length]));
    for (const row of rows) {
      // One statement wrote each row and all its entries, or nothing: anything else is a broken invariant.
      if (expected.get(row.account_id) !== row.n)
        throw new Error(`chargePlanAcross wrote ${row.n} entries for ${String(expected.get(row.account_id))} charges`);
    }
    return new Set(rows.map((row) => row.account_id));
  }

  /**
   * `createCycle` for many accounts in one statement, with the grant entry of each
   * row it creates: a claim over many accounts at the turn of their cycles opens
   * them all at once instead of one statement pair each. Rows are inserted in
   * account order, the order `chargePlanAcross` locks them in, so two claims over
   * the same accounts wait for each other rather than deadlock. Answers how many
   * rows were created; existing rows are left as they are (a top-up after an
   * upgrade stays with `spend`).
   */
  async createCycles(
    tx: Transaction,
    cycles: ReadonlyArray<{ readonly accountId: string; readonly cycleStart: Date; readonly grantTenths: number }>,
  ): Promise<number> {
    if (cycles.length === 0) return 0;
    const [row] = (await tx.query(
      `WITH "created" AS (
         INSERT INTO "credit_balances" ("account_id", "cycle_start", "plan_granted", "plan_balance")
         SELECT "account_id", "cycle_start", "grant", "grant"
           FROM unnest($1::uuid[], $2::timestamptz[], $3::integer[]) AS "w" ("account_id", "cycle_start", "grant")
          ORDER BY "account_id"
         ON CONFLICT DO NOTHING RETURNING "account_id", "cycle_start", "plan_granted"),
       "granted" AS (
         INSERT INTO "credit_entries" ("account_id", "kind", "bucket", "amount_tenths", "action", "reference", "cycle_start")
         SELECT "account_id", 'grant', 'plan', "plan_granted", NULL, NULL, "cycle_start" FROM "created" WHERE "plan_granted" > 0)
       SELECT COUNT(*)::integer AS "n" FROM "created"`,
      [
        cycles.map((cycle) => cycle.accountId),
        cycles.map((cycle) => cycle.cycleStart.toISOString()),
        cycles.map((cycle) => cycle.grantTenths),
      ],
    )) as Array<{ n: number }>;
    return row?.n ?? 0;
  }

  /**
   * Creates the cycle's row holding `grantTenths` unless it exists; whether this
   * call created it. Concurrent first touches create it once: the second insert
   * waits for the first and then finds the row.
   */
  async createCycle(tx: Transaction, accountId: string, cycleStart: Date, grantTenths: number): Promise<boolean> {
    const created = (await tx.query(
      `INSERT INTO "credit_balances" ("account_id", "cycle_start", "plan_granted", "plan_balance") VALUES ($1, $2, $3, $3)
       ON CONFLICT DO NOTHING RETURNING "account_id"`,
      [accountId, cycleStart, grantTenths],
    )) as unknown[];
    return created.length > 0;
  }

  /** The cycle's row, locked until `tx` ends. */
  async lockCycle(tx: Transaction, accountId: string, cycleStart: Date): Promise<BalanceRow | undefined> {
    const [row] = (await tx.query(
      `SELECT * FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2 FOR UPDATE`,
      [accountId, cycleStart],
    )) as BalanceRow[];
    return row;
  }

  /** Grants `tenths` more plan credits to the cycle's row (a top-up after the plan grew). */
  async grantToCycle(tx: Transaction, accountId: string, cycleStart: Date, tenths: number): Promise<void> {
    await tx.query(
      `UPDATE "credit_balances" SET "plan_granted" = "plan_granted" + $3, "plan_balance" = "plan_balance" + $3, "updated_at" = now()
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, cycleStart, tenths],
    );
  }

  /** Charges `tenths` of plan credits (possibly 0) and one `action` to the cycle's row, unconditionally. */
  async chargeCycle(
    tx: Transaction,
    accountId: string,
    cycleStart: Date,
    action: BillableAction,
    tenths: number,
  ): Promise<void> {
    const column = countColumns[action];
    await tx.query(
      `UPDATE "credit_balances"
          SET ${chargeSet(column)}
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, cycleStart, tenths],
    );
  }

  /** Gives plan credits (and one count per action in `uncounted`) back to the cycle row they were spent from. */
  async returnToCycle(
    tx: Transaction,
    accountId: string,
    cycleStart: Date,
    tenths: number,
    uncounted: readonly BillableAction[],
  ): Promise<void> {
    const counts = Object.entries(countColumns).flatMap(([action, column]) => {
      const n = uncounted.filter((each) => each === action).length;
      return n > 0 ? [`, "${column}" = "${column}" - ${n}`] : [];
    });
    await tx.query(
      `UPDATE "credit_balances"
          SET "plan_balance" = "plan_balance" + $3, "plan_used" = "plan_used" - $3${counts.join("")}, "updated_at" = now()
        WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, cycleStart, tenths],
    );
  }

  /** The account's pack balance in tenths (0 without a row), its row locked until `tx` ends. */
  async lockPackBalance(tx: Transaction, accountId: string): Promise<number> {
    const packs = (await tx.query(`SELECT "balance_tenths" FROM "credit_packs" WHERE "account_id" = $1 FOR UPDATE`, [
      accountId,
    ])) as Array<{
      balance_tenths: string;
    }>;
    return Number(packs[0]?.balance_tenths ?? 0);
  }

  async takeFromPack(tx: Transaction, accountId: string, tenths: number): Promise<void> {
    await tx.query(
      `UPDATE "credit_packs" SET "balance_tenths" = "balance_tenths" - $2, "updated_at" = now() WHERE "account_id" = $1`,
      [accountId, tenths],
    );
  }

  async addPackCredits(tx: Transaction, accountId: string, tenths: number): Promise<void> {
    await tx.query(
      `INSERT INTO "credit_packs" ("account_id", "balance_tenths") VALUES ($1, $2)
       ON CONFLICT ("account_id") DO UPDATE SET "balance_tenths" = "credit_packs"."balance_tenths" + EXCLUDED."balance_tenths", "updated_at" = now()`,
      [accountId, tenths],
    );
  }

  /**
   * One statement, no lock: the account, its newest cycle row (the current one,
   * unless the current cycle has not been charged yet), its pack row and the two counts.
   */
  async readUsage(accountId: string, tx?: Transaction): Promise<UsageRow | undefined> {
    const [found] = (await this.on(tx ?? null).query(
      `SELECT "a"."plan", "a"."billing_cycle_anchor", "b".*, "p"."balance_tenths",
              (SELECT COUNT(*)::int FROM "users" WHERE "account_id" = "a"."id") AS "members",
              (SELECT COUNT(*)::int FROM "products" WHERE "account_id" = "a"."id") AS "products"
         FROM "accounts" "a"
         LEFT JOIN LATERAL (SELECT * FROM "credit_balances" WHERE "account_id" = "a"."id" ORDER BY "cycle_start" DESC LIMIT 1) "b" ON true
         LEFT JOIN "credit_packs" "p" ON "p"."account_id" = "a"."id"
        WHERE "a"."id" = $1`,
      [accountId],
    )) as UsageRow[];
    return found;
  }

  /** One cycle's row, without a lock. */
  async readCycle(accountId: string, cycleStart: Date, tx?: Transaction): Promise<BalanceRow | undefined> {
    const [row] = (await this.on(tx ?? null).query(
      `SELECT * FROM "credit_balances" WHERE "account_id" = $1 AND "cycle_start" = $2`,
      [accountId, cycleStart],
    )) as BalanceRow[];
    return row;
  }

  private on(tx: Transaction | null): EntityManager {
    return tx ?? this.dataSource.manager;
  }
}
