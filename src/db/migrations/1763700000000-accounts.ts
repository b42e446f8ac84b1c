import type { MigrationInterface, QueryRunner } from "typeorm";

/** Accounts and their members: the root every stored resource belongs to. */
export class Accounts1763700000000 implements MigrationInterface {
  name = "Accounts1763700000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "accounts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "plan" text NOT NULL DEFAULT 'free',
        "billing_cycle_anchor" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_accounts" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_accounts_plan" CHECK ("plan" IN ('free', 'pro', 'business', 'enterprise'))
      )`);
    await queryRunner.query(`
      CREATE TABLE "users" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "subject" text NOT NULL,
        "email" text NOT NULL,
        "name" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_users" PRIMARY KEY ("id"),
        CONSTRAINT "FK_users_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_users_subject" ON "users" ("subject")`);
    await queryRunner.query(`CREATE INDEX "IDX_users_account" ON "users" ("account_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP TABLE "accounts"`);
  }
}
