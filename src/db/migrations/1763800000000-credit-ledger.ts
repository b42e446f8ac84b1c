import type { MigrationInterface, QueryRunner } from "typeorm";

/** The append-only credit ledger: balances are derived from these entries. */
export class CreditLedger1763800000000 implements MigrationInterface {
  name = "CreditLedger1763800000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "credit_entries" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "kind" text NOT NULL,
        "bucket" text NOT NULL,
        "amount_tenths" integer NOT NULL,
        "action" text,
        "reference" text,
        "cycle_start" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_credit_entries" PRIMARY KEY ("id"),
        CONSTRAINT "FK_credit_entries_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "CHK_credit_entries_kind" CHECK ("kind" IN ('grant', 'spend', 'pack_purchase', 'reset', 'refund')),
        CONSTRAINT "CHK_credit_entries_bucket" CHECK ("bucket" IN ('plan', 'pack'))
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_entries_account_cycle" ON "credit_entries" ("account_id", "cycle_start")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_entries_pack" ON "credit_entries" ("account_id") WHERE "bucket" = 'pack'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_credit_entries_refund" ON "credit_entries" ("reference") WHERE "kind" = 'refund'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_credit_entries_pack_purchase" ON "credit_entries" ("account_id", "reference") WHERE "kind" = 'pack_purchase'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "credit_entries"`);
  }
}
