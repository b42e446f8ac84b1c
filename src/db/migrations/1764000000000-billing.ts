import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Checkout, the billing provider's references on the account, processed provider
 * events (replays apply once), the domain-event outbox, and seat invitations.
 */
export class Billing1764000000000 implements MigrationInterface {
  name = "Billing1764000000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" ADD "stripe_customer_id" text`);
    await queryRunner.query(`ALTER TABLE "accounts" ADD "stripe_subscription_id" text`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_accounts_stripe_customer" ON "accounts" ("stripe_customer_id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_accounts_stripe_subscription" ON "accounts" ("stripe_subscription_id")`,
    );

    await queryRunner.query(`
      CREATE TABLE "checkout_sessions" (
        "id" text NOT NULL,
        "account_id" uuid NOT NULL,
        "user_id" uuid,
        "provider" text NOT NULL,
        "provider_session_id" text,
        "kind" text NOT NULL,
        "item" text NOT NULL,
        "status" text NOT NULL DEFAULT 'open',
        "checkout_url" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        "completed_at" timestamptz,
        CONSTRAINT "PK_checkout_sessions" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_checkout_sessions_provider" CHECK ("provider" IN ('local', 'stripe')),
        CONSTRAINT "CHK_checkout_sessions_kind" CHECK ("kind" IN ('plan', 'pack')),
        CONSTRAINT "CHK_checkout_sessions_status" CHECK ("status" IN ('open', 'completed')),
        CONSTRAINT "FK_checkout_sessions_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_checkout_sessions_account" ON "checkout_sessions" ("account_id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_checkout_sessions_provider_session" ON "checkout_sessions" ("provider_session_id")`,
    );

    await queryRunner.query(`
      CREATE TABLE "provider_events" (
        "id" text NOT NULL,
        "provider" text NOT NULL,
        "type" text NOT NULL,
        "received_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_provider_events" PRIMARY KEY ("provider", "id")
      )`);

    await queryRunner.query(`
      CREATE TABLE "domain_events" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "type" text NOT NULL,
        "account_id" uuid NOT NULL,
        "data" jsonb NOT NULL,
        "occurred_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_domain_events" PRIMARY KEY ("id"),
        CONSTRAINT "FK_domain_events_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_domain_events_account" ON "domain_events" ("account_id", "occurred_at")`,
    );

    await queryRunner.query(`
      CREATE TABLE "invitations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "email" text NOT NULL,
        "invited_by" uuid,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "accepted_at" timestamptz,
        CONSTRAINT "PK_invitations" PRIMARY KEY ("id"),
        CONSTRAINT "FK_invitations_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_invitations_pending" ON "invitations" ("account_id", "email") WHERE "accepted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_invitations_email" ON "invitations" ("email") WHERE "accepted_at" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "invitations"`);
    await queryRunner.query(`DROP TABLE "domain_events"`);
    await queryRunner.query(`DROP TABLE "provider_events"`);
    await queryRunner.query(`DROP TABLE "checkout_sessions"`);
    await queryRunner.query(`DROP INDEX "IDX_accounts_stripe_subscription"`);
    await queryRunner.query(`DROP INDEX "IDX_accounts_stripe_customer"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "stripe_subscription_id"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "stripe_customer_id"`);
  }
}
