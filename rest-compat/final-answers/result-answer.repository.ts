import type { DataSource } from "typeorm";

/** The `score_result_answers` table: a completed result's final REST answer, by result id and operation shape. */
export class ResultAnswerRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findBody(resultId: string, shape: string): Promise<string | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT "body" FROM "score_result_answers" WHERE "result_id" = $1 AND "shape" = $2`,
      [resultId, shape],
    )) as Array<{
      body: string;
    }>;
    return rows[0]?.body;
  }

  /**
   * Stores the answer of a result that is still there and belongs to an account (anonymous
   * results are held, then claimed or purged), replacing only an answer of another shape.
   */
  async saveForKeptResult(resultId: string, shape: string, body: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "score_result_answers" ("result_id", "shape", "body") SELECT $1, $2, $3
        WHERE EXISTS (SELECT 1 FROM "score_results" WHERE "id" = $1 AND "account_id" IS NOT NULL)
       ON CONFLICT ("result_id") DO UPDATE SET "shape" = EXCLUDED."shape", "body" = EXCLUDED."body" WHERE "score_result_answers"."shape" <> EXCLUDED."shape"`,
      [resultId, shape, body],
    );
  }
}
