import { isTerminal, type JobStatus } from "../score-progress.js";
import type { BatchItemError } from "./score-batch.entity.js";
import type { StoredBatch } from "./score-batch.repository.js";

/** An item is refused (never queued, never charged) or where its job is. */
export type BatchItemStatus = "refused" | JobStatus;
/** queued: no job has started; running: some have, some have not ended; completed: every job ended. */
export type BatchStatus = "queued" | "running" | "completed";

export interface BatchItemView {
  readonly position: number;
  readonly url: string;
  readonly normalizedUrl: string | null;
  readonly status: BatchItemStatus;
  readonly jobId: string | null;
  readonly resultId: string | null;
  readonly duplicateOf: number | null;
  readonly totalScore: number | null;
  readonly stageName: string | null;
  /** Refused: why it was not queued; failed: why the job failed (its credits were refunded). */
  readonly error: BatchItemError | null;
}

/** Items by where they are; `running` is crawling or scoring. Duplicates count as items. */
export interface BatchCounts {
  readonly total: number;
  readonly refused: number;
  readonly queued: number;
  readonly running: number;
  readonly completed: number;
  readonly failed: number;
}

export interface BatchView {
  readonly id: string;
  readonly status: BatchStatus;
  readonly context: string | null;
  readonly createdAt: Date;
  readonly items: readonly BatchItemView[];
  readonly counts: BatchCounts;
}

/** A batch as read: its status and counts derived from its jobs, never stored apart from them. */
export function batchView(stored: StoredBatch): BatchView {
  const items = stored.items.map((item): BatchItemView => ({
    position: item.position,
    url: item.url,
    normalizedUrl: item.normalizedUrl,
    status: item.jobStatus ?? "refused",
    jobId: item.jobId,
    resultId: item.resultId,
    duplicateOf: item.duplicateOf,
    totalScore: item.totalScore,
    stageName: item.stageName,
    error: item.error ?? item.jobError,
  }));
  const count = (...statuses: BatchItemStatus[]) => items.filter((item) => statuses.includes(item.status)).length;
  const counts: BatchCounts = {
    total: items.length,
    refused: count("refused"),
    queued: count("queued"),
    running: count("crawling", "scoring"),
    completed: count("completed"),
    failed: count("failed"),
  };
  return {
    id: stored.id,
    status: batchStatus(items),
    context: stored.context,
    createdAt: stored.createdAt,
    items,
    counts,
  };
}

function batchStatus(items: readonly BatchItemView[]): BatchStatus {
  const jobs = items.filter((item) => item.status !== "refused");
  if (jobs.every((item) => isTerminal(item.status as JobStatus))) return "completed";
  return jobs.every((item) => item.status === "queued") ? "queued" : "running";
}

/** What a follower is told again only when it changed: each item's status and result. */
export function batchSignature(view: BatchView): string {
  return view.items.map((item) => `${item.status}:${item.resultId ?? ""}`).join(",");
}
