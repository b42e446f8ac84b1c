import type { MigrationInterface, QueryRunner } from "typeorm";

/** Products, scoring jobs, results with their 27 dimensions, and idempotency records. */
export class Scoring1764100000000 implements MigrationInterface {
  name = "Scoring1764100000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "products" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "name" text NOT NULL,
        "url" text NOT NULL,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "PK_products" PRIMARY KEY ("id"),
        CONSTRAINT "FK_products_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_products_account_url" ON "products" ("account_id", "url")`);

    await queryRunner.query(`
      CREATE TABLE "score_jobs" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid,
        "user_id" uuid,
        "api_key_id" uuid,
        "requester_ip" text,
        "claim_token_hash" text,
        "kind" text NOT NULL,
        "url" text NOT NULL,
        "context" text,
        "product_id" uuid,
        "status" text NOT NULL DEFAULT 'queued',
        "progress" jsonb,
        "attempts" integer NOT NULL DEFAULT 0,
        "locked_until" timestamptz,
        "result_id" uuid,
        "error_code" text,
        "error_message" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_score_jobs" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_score_jobs_kind" CHECK ("kind" IN ('score', 'quick', 'product')),
        CONSTRAINT "CHK_score_jobs_status" CHECK ("status" IN ('queued', 'crawling', 'scoring', 'completed', 'failed')),
        CONSTRAINT "FK_score_jobs_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_score_jobs_runnable" ON "score_jobs" ("created_at") WHERE "status" IN ('queued', 'crawling', 'scoring')`,
    );

    await queryRunner.query(`
      CREATE TABLE "score_results" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid,
        "product_id" uuid,
        "job_id" uuid,
        "url" text NOT NULL,
        "company_name" text NOT NULL,
        "total_score" integer NOT NULL,
        "stage_name" text NOT NULL,
        "framework" text NOT NULL,
        "framework_version" text NOT NULL,
        "mode" text NOT NULL,
        "strengths" text array NOT NULL,
        "gaps" text array NOT NULL,
        "cross_dimension_notes" text NOT NULL,
        "anti_patterns" text array NOT NULL,
        "crawled_pages" text array NOT NULL,
        "crawl_stats" jsonb NOT NULL,
        "scorer" jsonb NOT NULL,
        "lifecycle_stage_id" text,
        "claim_token_hash" text,
        "claim_expires_at" timestamptz,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "PK_score_results" PRIMARY KEY ("id"),
        CONSTRAINT "FK_score_results_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_score_results_product" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_score_results_history" ON "score_results" ("account_id", "created_at", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_score_results_product" ON "score_results" ("product_id", "created_at")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_score_results_held" ON "score_results" ("claim_expires_at") WHERE "account_id" IS NULL`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_score_results_job" ON "score_results" ("job_id")`);

    await queryRunner.query(`
      CREATE TABLE "score_dimensions" (
        "result_id" uuid NOT NULL,
        "dimension_id" text NOT NULL,
        "position" smallint NOT NULL,
        "dimension_name" text NOT NULL,
        "pillar" text NOT NULL,
        "score" integer NOT NULL,
        "stage_name" text NOT NULL,
        "evidence" text NOT NULL,
        "evidence_items" jsonb NOT NULL,
        "confidence" text NOT NULL,
        "reasoning" text NOT NULL,
        CONSTRAINT "PK_score_dimensions" PRIMARY KEY ("result_id", "dimension_id"),
        CONSTRAINT "FK_score_dimensions_result" FOREIGN KEY ("result_id") REFERENCES "score_results"("id") ON DELETE CASCADE
      )`);

    await queryRunner.query(`
      CREATE TABLE "idempotency_keys" (
        "scope" text NOT NULL,
        "key" text NOT NULL,
        "operation" text NOT NULL,
        "request_hash" text NOT NULL,
        "job_id" uuid NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_idempotency_keys" PRIMARY KEY ("scope", "key")
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_idempotency_keys_created" ON "idempotency_keys" ("created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP TABLE "score_dimensions"`);
    await queryRunner.query(`DROP TABLE "score_results"`);
    await queryRunner.query(`DROP TABLE "score_jobs"`);
    await queryRunner.query(`DROP TABLE "products"`);
  }
}
