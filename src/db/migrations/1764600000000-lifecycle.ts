import type { MigrationInterface, QueryRunner } from "typeorm";

/** Lifecycle self-assessments of products, kept as a history. */
export class Lifecycle1764600000000 implements MigrationInterface {
  name = "Lifecycle1764600000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "lifecycle_assessments" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL,
        "product_id" uuid NOT NULL,
        "answers" jsonb NOT NULL,
        "current_stage" text NOT NULL,
        "stages" jsonb NOT NULL,
        "next_tasks" jsonb NOT NULL,
        "lifecycle_version" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_lifecycle_assessments" PRIMARY KEY ("id"),
        CONSTRAINT "FK_lifecycle_assessments_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "FK_lifecycle_assessments_product" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_lifecycle_assessments_product" ON "lifecycle_assessments" ("product_id", "created_at", "id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lifecycle_assessments"`);
  }
}
