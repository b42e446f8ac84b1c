import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Fencing for job leases: every claim writes a fresh token, and every later write
 * of the worker (heartbeat, progress, completion, failure) is conditional on it, so
 * a worker whose lease lapsed cannot overwrite what the next holder did.
 */
export class JobLeases1764200000000 implements MigrationInterface {
  name = "JobLeases1764200000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "score_jobs" ADD "lease_token" uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "score_jobs" DROP COLUMN "lease_token"`);
  }
}
