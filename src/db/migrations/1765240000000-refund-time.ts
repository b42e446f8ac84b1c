import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Refunds of the last hour, per account: chat refunds are bounded per account and
 * hour (each one gave back a model call), and that check runs in front of every
 * chat, so it must not scan the cycle's spends (up to 100,000 on Enterprise).
 */
export class RefundTime1765240000000 implements MigrationInterface {
  name = "RefundTime1765240000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_entries_refund_time" ON "credit_entries" ("account_id", "created_at") WHERE "kind" = 'refund'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_credit_entries_refund_time"`);
  }
}
