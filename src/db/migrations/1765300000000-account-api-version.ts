import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Each account is pinned to a dated API version (docs/api.md §14): the one a request
 * without `Pms-Version` uses. Existing accounts, and rows written without it, get the
 * first release; the service names the newest version itself when it makes an account.
 */
export class AccountApiVersion1765300000000 implements MigrationInterface {
  name = "AccountApiVersion1765300000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" ADD "api_version" text NOT NULL DEFAULT '2026-11-01'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "api_version"`);
  }
}
