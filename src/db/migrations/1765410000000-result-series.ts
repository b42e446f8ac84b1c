import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The previous result of an account's plain score (docs/api.md §13: the share page
 * compares with it): the same account, address and framework, newest first. Without
 * it that read walks the account's whole history before the result; with it, one
 * index step. Product results have their own index (product_id, created_at).
 */
export class ResultSeries1765410000000 implements MigrationInterface {
  name = "ResultSeries1765410000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_score_results_series" ON "score_results" ("account_id", "url", "framework", "created_at", "id")
         WHERE "product_id" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_score_results_series"`);
  }
}
