import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * What a product's owner turns on beyond one score: a re-score on schedule
 * (`monitor_interval`, and the next due time the schedulers claim rows by) and a
 * public badge of its latest result. Nothing is monitored or public until asked.
 */
export class ProductMonitorBadge1765400000000 implements MigrationInterface {
  name = "ProductMonitorBadge1765400000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "products"
         ADD COLUMN "monitor_interval" text,
         ADD COLUMN "monitor_next_run_at" timestamptz(3),
         ADD COLUMN "public_badge" boolean NOT NULL DEFAULT false,
         ADD CONSTRAINT "CHK_products_monitor_interval" CHECK ("monitor_interval" IN ('weekly', 'monthly')),
         ADD CONSTRAINT "CHK_products_monitor_schedule" CHECK (("monitor_interval" IS NULL) = ("monitor_next_run_at" IS NULL))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_products_monitor_due" ON "products" ("monitor_next_run_at") WHERE "monitor_interval" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_products_monitor_due"`);
    await queryRunner.query(
      `ALTER TABLE "products" DROP CONSTRAINT "CHK_products_monitor_schedule", DROP CONSTRAINT "CHK_products_monitor_interval",
         DROP COLUMN "public_badge", DROP COLUMN "monitor_next_run_at", DROP COLUMN "monitor_interval"`,
    );
  }
}
