import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";

/** The circuit breaker's settings: opened after `threshold` unanswered deliveries in a row, for a cool-down that doubles up to `maxCooldownMs`. */
export interface BreakerSettings {
  readonly threshold: number;
  readonly cooldownMs: number;
  readonly maxCooldownMs: number;
}

/**
 * The dispatcher's writes to `webhooks` about a destination's health: the
 * failure clock (`failing_since`), the circuit breaker, and disabling.
 */
export class WebhookHealthRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A delivery succeeded: the failure clock stops (no write when it was not running). */
  async clearFailing(webhookId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhooks" SET "failing_since" = NULL WHERE "id" = $1 AND "failing_since" IS NOT NULL`,
      [webhookId],
    );
  }

  /** A delivery failed: the failure clock starts at `now` unless it runs already; answers since when it runs. */
  async markFailing(webhookId: string, now: Date): Promise<Date | undefined> {
    const [failing] = (await this.dataSource.query(
      `UPDATE "webhooks" SET "failing_since" = COALESCE("failing_since", $2) WHERE "id" = $1 RETURNING "failing_since"`,
      [webhookId, now],
    )) as [Array<{ failing_since: Date }>, number];
    return failing[0]?.failing_since;
  }

  /** The destination answered: its breaker closes and its count starts again (no write when nothing was counted). */
  async closeBreaker(webhookId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhooks" SET "breaker_failures" = 0, "breaker_open_until" = NULL, "breaker_trips" = 0
          WHERE "id" = $1 AND ("breaker_failures" > 0 OR "breaker_open_until" IS NOT NULL OR "breaker_trips" > 0)`,
      [webhookId],
    );
  }

  /**
   * One more delivery with no answer. The row is locked first (`FOR NO KEY
   * UPDATE`), so concurrent counts of one webhook add up and only one of them
   * opens the breaker. It opens on the `threshold`-th in a row when it is not open
   * already, for a cool-down that doubles with each trip, up to `maxCooldownMs`.
   * Answers whether this count opened it, and until when.
   */
  async countUnanswered(
    webhookId: string,
    now: Date,
    breaker: BreakerSettings,
  ): Promise<{ opens: boolean; breaker_open_until: Date } | undefined> {
    const [changed] = (await this.dataSource.query(
      `WITH "before" AS (
         SELECT "id", "breaker_trips", "breaker_failures" + 1 >= $2 AND ("breaker_open_until" IS NULL OR "breaker_open_until" <= $3) AS "opens"
           FROM "webhooks" WHERE "id" = $1 FOR NO KEY UPDATE)
       UPDATE "webhooks" "w"
          SET "breaker_failures" = "w"."breaker_failures" + 1,
              "breaker_open_until" = CASE WHEN "before"."opens"
                THEN $3::timestamptz + LEAST($4::float8 * power(2, LEAST("before"."breaker_trips", 20)), $5::float8) * interval '1 millisecond'
                ELSE "w"."breaker_open_until" END,
              "breaker_trips" = "w"."breaker_trips" + CASE WHEN "before"."opens" THEN 1 ELSE 0 END
         FROM "before" WHERE "w"."id" = "before"."id"
       RETURNING "before"."opens", "w"."breaker_open_until"`,
      [webhookId, breaker.threshold, now, breaker.cooldownMs, breaker.maxCooldownMs],
    )) as [Array<{ opens: boolean; breaker_open_until: Date }>, number];
    return changed[0];
  }

  /**
   * Whether the webhook is enabled, read under a share lock held until `tx` ends:
   * a concurrent enabling (which locks the row for update) either comes first and
   * is seen here, or waits and then finds what `tx` wrote.
   */
  async isEnabledLocked(tx: Transaction, webhookId: string): Promise<boolean> {
    const [webhook] = (await tx.query(`SELECT "enabled" FROM "webhooks" WHERE "id" = $1 FOR SHARE`, [
      webhookId,
    ])) as Array<{ enabled: boolean }>;
    return webhook?.enabled ?? false;
  }

  /** Disables an enabled webhook with its reason; false when it was disabled already (or is gone). */
  async disable(tx: Transaction, webhookId: string, reason: string): Promise<boolean> {
    const [updated] = (await tx.query(
      `UPDATE "webhooks" SET "enabled" = false, "disabled_reason" = $2 WHERE "id" = $1 AND "enabled" RETURNING "id"`,
      [webhookId, reason],
    )) as [Array<{ id: string }>, number];
    return updated.length > 0;
  }
}
