import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A failed job keeps the advice its error came with, not only its code and
 * message: a bot wall ("ask the owner to let ProductMaturityBot through") and a
 * site built in the browser with no browser here ("install Chromium") need other
 * advice than the catalogue's "check that the site is reachable". Null: the
 * catalogue's advice for the code (every job failed before this was recorded).
 */
export class JobErrorAction1765100000000 implements MigrationInterface {
  name = "JobErrorAction1765100000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "score_jobs" ADD COLUMN "error_action" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "score_jobs" DROP COLUMN "error_action"`);
  }
}
