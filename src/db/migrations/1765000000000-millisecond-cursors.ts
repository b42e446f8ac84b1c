import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Keyset cursors carry a row's created_at as JavaScript has it: to the
 * millisecond. Chat messages, webhook deliveries and lifecycle assessments kept
 * microseconds, so a row whose created_at shared the last row's millisecond but
 * not its microseconds fell between two pages and was never listed. They keep
 * milliseconds now, as results and products always have; the id breaks ties.
 */
const TABLES = ["chat_messages", "webhook_deliveries", "lifecycle_assessments"] as const;

export class MillisecondCursors1765000000000 implements MigrationInterface {
  name = "MillisecondCursors1765000000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES)
      await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "created_at" TYPE timestamptz(3)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES)
      await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "created_at" TYPE timestamptz`);
  }
}
