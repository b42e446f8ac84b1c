import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Each delivery's attempt limit, checked when it is claimed: an attempt whose
 * outcome could not be written must not buy the delivery more attempts. A replay
 * of a delivery that used them up raises its own limit by one. 8 is the first
 * attempt and one per retry delay.
 */
export class DeliveryAttemptLimit1765200000000 implements MigrationInterface {
  name = "DeliveryAttemptLimit1765200000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD COLUMN "attempt_limit" integer NOT NULL DEFAULT 8`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "attempt_limit"`);
  }
}
