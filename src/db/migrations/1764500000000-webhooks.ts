import type { MigrationInterface, QueryRunner } from "typeorm";

/** Webhook subscriptions and their deliveries (one row per event and subscription). */
export class Webhooks1764500000000 implements MigrationInterface {
  name = "Webhooks1764500000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "webhooks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "url" text NOT NULL,
        "events" text array NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "secret" text NOT NULL,
        "previous_secret" text,
        "previous_secret_expires_at" timestamptz,
        "failing_since" timestamptz,
        "disabled_reason" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_webhooks" PRIMARY KEY ("id"),
        CONSTRAINT "FK_webhooks_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_webhooks_account" ON "webhooks" ("account_id", "created_at", "id")`);
    await queryRunner.query(`
      CREATE TABLE "webhook_deliveries" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "event_id" uuid NOT NULL,
        "webhook_id" uuid NOT NULL,
        "event_type" text NOT NULL,
        "status" text NOT NULL DEFAULT 'pending',
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" timestamptz,
        "locked_until" timestamptz,
        "lease_token" uuid,
        "last_status_code" integer,
        "last_error" text,
        "last_response_body" text,
        "delivered_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_webhook_deliveries" PRIMARY KEY ("id"),
        CONSTRAINT "FK_webhook_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "domain_events"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_webhook_deliveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_webhook_deliveries_event_webhook" ON "webhook_deliveries" ("event_id", "webhook_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_log" ON "webhook_deliveries" ("webhook_id", "created_at", "id")`,
    );
    // The outbox purge walks events by age.
    await queryRunner.query(`CREATE INDEX "IDX_domain_events_occurred" ON "domain_events" ("occurred_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_domain_events_occurred"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}
