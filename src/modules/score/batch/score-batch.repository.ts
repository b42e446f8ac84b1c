import type { DataSource } from "typeorm";
import type { Transaction } from "../../../db/transaction.js";
import type { JobStatus } from "../score-progress.js";
import { ScoreBatch, ScoreBatchItem, type BatchItemError } from "./score-batch.entity.js";

/** The columns a new item is inserted with. */
export type NewBatchItem = Omit<ScoreBatchItem, "batchId" | "batch">;

/** An item as read with its job (and the job's result): what a batch's status is derived from. */
export interface StoredBatchItem {
  readonly position: number;
  readonly url: string;
  readonly normalizedUrl: string | null;
  readonly jobId: string | null;
  readonly duplicateOf: number | null;
  /** Refused items only. */
  readonly error: BatchItemError | null;
  /** The job's status; null for a refused item. */
  readonly jobStatus: JobStatus | null;
  readonly resultId: string | null;
  readonly jobError: BatchItemError | null;
  readonly totalScore: number | null;
  readonly stageName: string | null;
}

export interface StoredBatch {
  readonly id: string;
  readonly accountId: string;
  readonly context: string | null;
  readonly createdAt: Date;
  readonly items: readonly StoredBatchItem[];
}

/** At most this many items are read for a batch (a batch holds at most MAX_BATCH_URLS). */
const ITEMS_READ = 100;

interface ItemRow {
  account_id: string;
  context: string | null;
  created_at: Date;
  position: number;
  url: string;
  normalized_url: string | null;
  job_id: string | null;
  duplicate_of: number | null;
  error: BatchItemError | null;
  job_status: JobStatus | null;
  result_id: string | null;
  error_code: string | null;
  error_message: string | null;
  total_score: number | null;
  stage_name: string | null;
}

/** The `score_batches` and `score_batch_items` tables. */
export class ScoreBatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The batch and its items, in the job's transaction. */
  async insert(
    tx: Transaction,
    batch: { readonly id: string; readonly accountId: string; readonly context: string | null },
    items: readonly NewBatchItem[],
  ): Promise<void> {
    await tx.insert(ScoreBatch, batch);
    await tx.insert(
      ScoreBatchItem,
      items.map((item) => ({ ...item, batchId: batch.id })),
    );
  }

  /**
   * The batch with each item's job state and result, in one query (items joined to
   * their jobs and results by primary key); undefined when it does not exist.
   */
  async find(batchId: string): Promise<StoredBatch | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT b."account_id", b."context", b."created_at",
              i."position", i."url", i."normalized_url", i."job_id", i."duplicate_of", i."error",
              j."status" AS "job_status", j."result_id", j."error_code", j."error_message",
              r."total_score", r."stage_name"
         FROM "score_batches" b
         JOIN "score_batch_items" i ON i."batch_id" = b."id"
         LEFT JOIN "score_jobs" j ON j."id" = i."job_id"
         LEFT JOIN "score_results" r ON r."id" = j."result_id"
        WHERE b."id" = $1
        ORDER BY i."position"
        LIMIT ${ITEMS_READ}`,
      [batchId],
    )) as ItemRow[];
    const first = rows[0];
    if (!first) return undefined;
    return {
      id: batchId,
      accountId: first.account_id,
      context: first.context,
      createdAt: first.created_at,
      items: rows.map((row) => ({
        position: row.position,
        url: row.url,
        normalizedUrl: row.normalized_url,
        jobId: row.job_id,
        duplicateOf: row.duplicate_of,
        error: row.error,
        jobStatus: row.job_status,
        resultId: row.result_id,
        jobError: row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
        totalScore: row.total_score,
        stageName: row.stage_name,
      })),
    };
  }
}
