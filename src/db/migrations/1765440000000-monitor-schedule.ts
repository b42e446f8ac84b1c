import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The scheduler skips a monitored product whose previous re-score is still queued
 * or running (docs/api.md §13): it asks, for each due product, whether an active job
 * names it. A partial index on the active jobs' product keeps that one probe per row.
 */
export class MonitorSchedule1765440000000 implements MigrationInterface {
  name = "MonitorSchedule1765440000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_score_jobs_product_active" ON "score_jobs" ("product_id") WHERE "status" IN ('queued', 'crawling', 'scoring')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_score_jobs_product_active"`);
  }
}
