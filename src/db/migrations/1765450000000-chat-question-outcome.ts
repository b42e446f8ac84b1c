import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A chat question records how its charge was settled (docs/api.md §14): `replied` in the commit that stores its
 * reply, `failed` when the failure was answered (and refunded or not, by the refund rules), `abandoned` when its
 * process died before either and the sweep gave the credit back. A question still pending 10 minutes after it was
 * charged is abandoned; a partial index keeps the pending ones one probe away. Questions asked before this
 * migration were settled by the code of their time: they are marked so, and the sweep never reads them.
 */
export class ChatQuestionOutcome1765450000000 implements MigrationInterface {
  name = "ChatQuestionOutcome1765450000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "outcome" text`);
    await queryRunner.query(`UPDATE "chat_messages" SET "outcome" = 'settled' WHERE "role" = 'user'`);
    await queryRunner.query(
      `CREATE INDEX "IDX_chat_messages_pending" ON "chat_messages" ("created_at") WHERE "role" = 'user' AND "outcome" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_chat_messages_pending"`);
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "outcome"`);
  }
}
