import type { MigrationInterface, QueryRunner } from "typeorm";

/** Final REST answers of completed results, served with one primary-key read. */
export class ResultAnswers1764800000000 implements MigrationInterface {
  name = "ResultAnswers1764800000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "score_result_answers" (
        "result_id" uuid NOT NULL,
        "shape" text NOT NULL,
        "body" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_score_result_answers" PRIMARY KEY ("result_id"),
        CONSTRAINT "FK_score_result_answers_result" FOREIGN KEY ("result_id") REFERENCES "score_results"("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "score_result_answers"`);
  }
}
