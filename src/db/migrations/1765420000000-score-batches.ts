import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Score a list (docs/api.md §13): a batch and its items, one row per address as
 * sent. An accepted item names its job; a refused one carries its error instead.
 * Neither status nor counts are stored: they are read from the jobs, so they can
 * never disagree with them.
 */
export class ScoreBatches1765420000000 implements MigrationInterface {
  name = "ScoreBatches1765420000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "score_batches" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "context" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_score_batches" PRIMARY KEY ("id"),
        CONSTRAINT "FK_score_batches_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE "score_batch_items" (
        "batch_id" uuid NOT NULL,
        "position" integer NOT NULL,
        "url" text NOT NULL,
        "normalized_url" text,
        "job_id" uuid,
        "duplicate_of" integer,
        "error" jsonb,
        CONSTRAINT "PK_score_batch_items" PRIMARY KEY ("batch_id", "position"),
        CONSTRAINT "FK_score_batch_items_batch" FOREIGN KEY ("batch_id") REFERENCES "score_batches"("id") ON DELETE CASCADE
      )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "score_batch_items"`);
    await queryRunner.query(`DROP TABLE "score_batches"`);
  }
}
