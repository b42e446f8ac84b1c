import type { MigrationInterface, QueryRunner } from "typeorm";

/** API keys: hashed secrets of Business and Enterprise accounts. */
export class ApiKeys1763900000000 implements MigrationInterface {
  name = "ApiKeys1763900000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "api_keys" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "name" text NOT NULL,
        "prefix" text NOT NULL,
        "secret_hash" text NOT NULL,
        "created_by" uuid,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_used_at" timestamptz,
        "revoked_at" timestamptz,
        CONSTRAINT "PK_api_keys" PRIMARY KEY ("id"),
        CONSTRAINT "FK_api_keys_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_api_keys_account" ON "api_keys" ("account_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_api_keys_secret_hash" ON "api_keys" ("secret_hash")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
