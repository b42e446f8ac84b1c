import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Idempotency keys are kept as SHA-256 digests, never as sent, and an anonymous
 * job's claim token is kept beside its key sealed under that key: any process
 * can answer a replay with the same token, and the table alone opens neither.
 * Keys already stored become digests here (every row before this one is raw).
 */
export class IdempotencyDigests1764900000000 implements MigrationInterface {
  name = "IdempotencyDigests1764900000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "idempotency_keys" SET "key" = 'sha256:' || encode(sha256(convert_to("key", 'UTF8')), 'hex')`,
    );
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "sealed_claim_token" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Digests cannot be turned back into keys: the records go (they only live 24 hours).
    await queryRunner.query(`DELETE FROM "idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "sealed_claim_token"`);
  }
}
