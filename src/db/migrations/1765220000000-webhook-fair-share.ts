import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Webhook deliveries shared fairly across accounts, and destinations that stop
 * answering paused as a whole.
 *
 * - A circuit breaker per webhook: consecutive deliveries that got no answer
 *   (timeouts, connection failures), the time until which its deliveries are
 *   not claimed, and how many times in a row it opened (the cool-down grows with
 *   it). In Postgres, so every dispatcher process agrees.
 * - The claim walks the webhooks that have pending deliveries, oldest due first
 *   within each, instead of one global due order: `IDX_webhook_deliveries_pending`
 *   replaces `IDX_webhook_deliveries_due`.
 * - In-flight deliveries are the leased rows; `IDX_webhook_deliveries_leased`
 *   counts them per webhook (and so per account) without reading the backlog.
 */
export class WebhookFairShare1765220000000 implements MigrationInterface {
  name = "WebhookFairShare1765220000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhooks" ADD "breaker_failures" integer NOT NULL DEFAULT 0, ADD "breaker_open_until" timestamptz, ADD "breaker_trips" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_pending" ON "webhook_deliveries" ("webhook_id", "next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_leased" ON "webhook_deliveries" ("webhook_id") WHERE "lease_token" IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX "IDX_webhook_deliveries_due"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(`DROP INDEX "IDX_webhook_deliveries_leased"`);
    await queryRunner.query(`DROP INDEX "IDX_webhook_deliveries_pending"`);
    await queryRunner.query(
      `ALTER TABLE "webhooks" DROP COLUMN "breaker_trips", DROP COLUMN "breaker_open_until", DROP COLUMN "breaker_failures"`,
    );
  }
}
