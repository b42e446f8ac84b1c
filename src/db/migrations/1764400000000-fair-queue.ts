import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A fair queue across accounts: each job carries its place in its owner's backlog
 * when it was queued (0 for an owner with nothing waiting or running), and workers
 * take the lowest place first, oldest first within it. One account's burst cannot
 * hold back another's first job.
 */
export class FairQueue1764400000000 implements MigrationInterface {
  name = "FairQueue1764400000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "score_jobs" ADD "fair_rank" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE INDEX "IDX_score_jobs_fair" ON "score_jobs" ("fair_rank", "created_at") WHERE "status" IN ('queued', 'crawling', 'scoring')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_score_jobs_account_active" ON "score_jobs" ("account_id") WHERE "status" IN ('queued', 'crawling', 'scoring')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_score_jobs_requester_active" ON "score_jobs" ("requester_ip") WHERE "status" IN ('queued', 'crawling', 'scoring') AND "account_id" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_score_jobs_requester_active"`);
    await queryRunner.query(`DROP INDEX "IDX_score_jobs_account_active"`);
    await queryRunner.query(`DROP INDEX "IDX_score_jobs_fair"`);
    await queryRunner.query(`ALTER TABLE "score_jobs" DROP COLUMN "fair_rank"`);
  }
}
