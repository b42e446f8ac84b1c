import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { keysetPage } from "../../db/keyset-page.js";
import { Product, type MonitorInterval } from "./product.entity.js";

/** The `products` table: one row per account and normalized address. */
export class ProductRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByUrl(tx: Transaction, accountId: string, url: string): Promise<Product | null> {
    return tx.findOneBy(Product, { accountId, url });
  }

  countInAccount(tx: Transaction, accountId: string): Promise<number> {
    return tx.countBy(Product, { accountId });
  }

  create(tx: Transaction, fields: { accountId: string; url: string; name: string }): Promise<Product> {
    return tx.save(tx.create(Product, fields));
  }

  /** The product takes the company name its newest result found (in the transaction that stores that result). */
  async rename(tx: Transaction, id: string, name: string): Promise<void> {
    await tx.update(Product, { id }, { name });
  }

  /** The account's product, its row locked until `tx` ends (FOR NO KEY UPDATE: new jobs and results naming it still insert). */
  lockInAccount(tx: Transaction, accountId: string, id: string): Promise<Product | null> {
    return tx.findOne(Product, { where: { id, accountId }, lock: { mode: "for_no_key_update" } });
  }

  /** Read in the caller's transaction (a completion asks whether the product is monitored). */
  findById(tx: Transaction, id: string): Promise<Product | null> {
    return tx.findOneBy(Product, { id });
  }

  /** How many of the account's products are monitored, leaving out `exceptId`. */
  async countMonitored(tx: Transaction, accountId: string, exceptId: string): Promise<number> {
    const [row] = (await tx.query(
      `SELECT COUNT(*)::int AS "n" FROM "products" WHERE "account_id" = $1 AND "monitor_interval" IS NOT NULL AND "id" <> $2`,
      [accountId, exceptId],
    )) as Array<{ n: number }>;
    return row?.n ?? 0;
  }

  /** Writes the owner's settings (both monitor columns together: the schedule check needs them so). */
  async saveSettings(
    tx: Transaction,
    id: string,
    fields: { monitorInterval: MonitorInterval | null; monitorNextRunAt: Date | null; publicBadge: boolean },
  ): Promise<void> {
    await tx.update(Product, { id }, fields);
  }

  /**
   * The claim pass: up to `limit` monitored products due at `now`, oldest due first,
   * each row locked until `tx` ends. SKIP LOCKED: concurrent schedulers take disjoint
   * rows, and a scheduler that dies mid-claim rolls back, leaving its rows due for the
   * next. FOR NO KEY UPDATE, not FOR UPDATE: a member's own score of the product (its
   * job's foreign key takes KEY SHARE) does not wait for the claim. `busy`: a job of
   * the product is still queued or running (IDX_score_jobs_product_active).
   */
  async claimDue(tx: Transaction, now: Date, limit: number): Promise<DueProduct[]> {
    const rows = (await tx.query(
      `SELECT "p"."id", "p"."account_id", "p"."url", "p"."monitor_interval", "p"."monitor_next_run_at",
              EXISTS (SELECT 1 FROM "score_jobs" "j"
                       WHERE "j"."product_id" = "p"."id" AND "j"."status" IN ('queued', 'crawling', 'scoring')) AS "busy"
         FROM "products" "p"
        WHERE "p"."monitor_interval" IS NOT NULL AND "p"."monitor_next_run_at" <= $1
        ORDER BY "p"."monitor_next_run_at"
        LIMIT $2
          FOR NO KEY UPDATE OF "p" SKIP LOCKED`,
      [now, limit],
    )) as Array<{
      id: string;
      account_id: string;
      url: string;
      monitor_interval: MonitorInterval;
      monitor_next_run_at: Date;
      busy: boolean;
    }>;
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      url: row.url,
      interval: row.monitor_interval,
      dueAt: row.monitor_next_run_at,
      busy: row.busy,
    }));
  }

  /** Moves claimed products to their next due times: one statement for the whole claim. */
  async reschedule(tx: Transaction, next: ReadonlyArray<{ id: string; at: Date }>): Promise<void> {
    if (next.length === 0) return;
    await tx.query(
      `UPDATE "products" "p" SET "monitor_next_run_at" = "v"."at"
         FROM unnest($1::uuid[], $2::timestamptz[]) AS "v"("id", "at")
        WHERE "p"."id" = "v"."id" AND "p"."monitor_interval" IS NOT NULL`,
      [next.map((row) => row.id), next.map((row) => row.at.toISOString())],
    );
  }

  findInAccount(accountId: string, id: string): Promise<Product | null> {
    return this.dataSource.getRepository(Product).findOneBy({ id, accountId });
  }

  /** Newest first, keyset-paginated (one statement). */
  page(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: Product[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(Product)
      .createQueryBuilder("product")
      .where("product.account_id = :accountId", { accountId });
    return keysetPage(query, "product", limit, cursor);
  }
}

/** A monitored product a scheduler claimed: its row is locked until the claim commits. */
export interface DueProduct {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly interval: MonitorInterval;
  readonly dueAt: Date;
  /** A re-score of it is still queued or running. */
  readonly busy: boolean;
}
