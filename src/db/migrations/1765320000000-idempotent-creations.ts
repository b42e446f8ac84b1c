import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Idempotency keys cover every POST that creates something, not only scoring: the
 * record names what the first request made (`resource_id`: a job, an API key, a
 * webhook, a checkout session, a chat reply, an invitation), and is null while that
 * request is still running, so a concurrent duplicate can be told "in progress".
 */
export class IdempotentCreations1765320000000 implements MigrationInterface {
  name = "IdempotentCreations1765320000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" RENAME COLUMN "job_id" TO "resource_id"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "resource_id" TYPE text, ALTER COLUMN "resource_id" DROP NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Only scoring keys existed before: the others go (they only live 24 hours).
    await queryRunner.query(
      `DELETE FROM "idempotency_keys" WHERE "resource_id" IS NULL OR "operation" NOT IN ('full', 'quick', 'product')`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "resource_id" TYPE uuid USING "resource_id"::uuid, ALTER COLUMN "resource_id" SET NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE "idempotency_keys" RENAME COLUMN "resource_id" TO "job_id"`);
  }
}
