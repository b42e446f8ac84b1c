import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Each key's mode: `live` (Business and Enterprise, accepted everywhere) or `test`
 * (any plan, accepted only by a service outside production). Every key made
 * before this was a live one.
 */
export class ApiKeyMode1765340000000 implements MigrationInterface {
  name = "ApiKeyMode1765340000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD COLUMN "mode" text NOT NULL DEFAULT 'live', ADD CONSTRAINT "CHK_api_keys_mode" CHECK ("mode" IN ('live', 'test'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "CHK_api_keys_mode", DROP COLUMN "mode"`);
  }
}
