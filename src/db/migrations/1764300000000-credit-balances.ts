import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Running totals beside the append-only ledger: one row per account and billing
 * cycle (plan credits and action counts) and one per account for pack credits,
 * filled here from the entries already written. A spend or refund finds its
 * entries by reference through the new partial index instead of scanning a cycle.
 */
export class CreditBalances1764300000000 implements MigrationInterface {
  name = "CreditBalances1764300000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "credit_balances" (
        "account_id" uuid NOT NULL,
        "cycle_start" timestamptz NOT NULL,
        "plan_granted" bigint NOT NULL DEFAULT 0,
        "plan_balance" bigint NOT NULL DEFAULT 0,
        "plan_used" bigint NOT NULL DEFAULT 0,
        "score_count" integer NOT NULL DEFAULT 0,
        "chat_count" integer NOT NULL DEFAULT 0,
        "api_call_count" integer NOT NULL DEFAULT 0,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_credit_balances" PRIMARY KEY ("account_id", "cycle_start"),
        CONSTRAINT "FK_credit_balances_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE "credit_packs" (
        "account_id" uuid NOT NULL,
        "balance_tenths" bigint NOT NULL DEFAULT 0,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_credit_packs" PRIMARY KEY ("account_id"),
        CONSTRAINT "FK_credit_packs_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "CHK_credit_packs_balance" CHECK ("balance_tenths" >= 0)
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_entries_spend_reference" ON "credit_entries" ("account_id", "reference") WHERE "kind" = 'spend'`,
    );
    const count = (action: string) =>
      `COALESCE(SUM(CASE "kind" WHEN 'spend' THEN 1 WHEN 'refund' THEN -1 ELSE 0 END) FILTER (WHERE "bucket" = 'plan' AND "action" = '${action}'), 0)`;
    await queryRunner.query(`
      INSERT INTO "credit_balances"
        ("account_id", "cycle_start", "plan_granted", "plan_balance", "plan_used", "score_count", "chat_count", "api_call_count")
      SELECT "account_id", "cycle_start",
        COALESCE(SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" = 'grant'), 0),
        COALESCE(SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan'), 0),
        COALESCE(-SUM("amount_tenths") FILTER (WHERE "bucket" = 'plan' AND "kind" IN ('spend', 'refund')), 0),
        ${count("score")}, ${count("chat")}, ${count("api_call")}
      FROM "credit_entries" GROUP BY "account_id", "cycle_start"`);
    await queryRunner.query(`
      INSERT INTO "credit_packs" ("account_id", "balance_tenths")
      SELECT "account_id", SUM("amount_tenths") FROM "credit_entries" WHERE "bucket" = 'pack' GROUP BY "account_id"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_credit_entries_spend_reference"`);
    await queryRunner.query(`DROP TABLE "credit_packs"`);
    await queryRunner.query(`DROP TABLE "credit_balances"`);
  }
}
