import type { DataSource } from "typeorm";
import { isUuid } from "../../db/uuid.js";
import type { AnswerStore } from "../../../rest-compat/route.js";

/**
 * The final REST answer of each completed result of an account (`GET /api/score/{id}`),
 * stored once when first served: later reads that miss the memory cache are one
 * primary-key read of ready JSON. Rows go with their result (foreign key, cascade):
 * a purged or deleted result is never served from here.
 */
export class ResultAnswerStore implements AnswerStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(key: string, shape: string): Promise<string | undefined> {
    if (!isUuid(key)) return undefined;
    const rows = (await this.dataSource.query(`SELECT "body" FROM "score_result_answers" WHERE "result_id" = $1 AND "shape" = $2`, [key, shape])) as Array<{
      body: string;
    }>;
    return rows[0]?.body;
  }

  async put(key: string, shape: string, body: string): Promise<void> {
    if (!isUuid(key)) return;
    await this.dataSource.query(
      `INSERT INTO "score_result_answers" ("result_id", "shape", "body") SELECT $1, $2, $3
        WHERE EXISTS (SELECT 1 FROM "score_results" WHERE "id" = $1 AND "account_id" IS NOT NULL)
       ON CONFLICT ("result_id") DO UPDATE SET "shape" = EXCLUDED."shape", "body" = EXCLUDED."body" WHERE "score_result_answers"."shape" <> EXCLUDED."shape"`,
      [key, shape, body],
    );
  }
}
