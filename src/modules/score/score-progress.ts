import type { ErrorCode } from "../../errors.js";
import type { Viewer } from "../accounts/viewer.js";
import type { DimensionId } from "../scoring/scoring.types.js";

export const jobStatuses = ["queued", "crawling", "scoring", "completed", "failed"] as const;
export type JobStatus = (typeof jobStatuses)[number];

export const isTerminal = (status: JobStatus): boolean => status === "completed" || status === "failed";

/**
 * One step of a scoring job, as the `scoreProgress` subscription streams it:
 * queued → crawling (page n of m, url) → scoring (dimension k of 27) → completed | failed.
 */
export type ScoreProgress =
  | { readonly jobId: string; readonly status: "queued" }
  | {
      readonly jobId: string;
      readonly status: "crawling";
      readonly page: number;
      readonly pages: number;
      readonly url: string;
    }
  | {
      readonly jobId: string;
      readonly status: "scoring";
      readonly dimension: number;
      readonly dimensions: number;
      readonly dimensionId: DimensionId;
    }
  | { readonly jobId: string; readonly status: "completed"; readonly resultId: string }
  | {
      readonly jobId: string;
      readonly status: "failed";
      readonly error: { readonly code: ErrorCode; readonly message: string; readonly action?: string };
    };

/**
 * Fans progress out to every API process: in memory for one process, Redis pub/sub
 * when REDIS_URL is set, so a subscriber on API B hears a job a worker runs anywhere.
 */
export interface ProgressBus {
  publish(progress: ScoreProgress): Promise<void>;
  /** Listens to one job; returns the function that stops listening. */
  subscribe(jobId: string, listener: (progress: ScoreProgress) => void): Promise<() => Promise<void>>;
  /** Hears each time the bus is back after an outage, in which messages may have been lost (absent: it never loses any). */
  onReconnect?(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * Where queued jobs wait for a worker: an in-process pool by default, BullMQ when
 * REDIS_URL is set (workers may then run in other processes: `npm run worker`).
 * The job row in Postgres is the truth; the queue only carries job ids.
 */
export interface JobQueue {
  enqueue(jobId: string): Promise<void>;
  close(): Promise<void>;
}

/** What a worker does with a job id; implemented by ScoreJobRunner. */
/** Live progress of a job its caller may see, as the scoreProgress subscription reads it. */
export interface ScoreProgressStreams {
  scoreProgress(viewer: Viewer, clientIp: string, jobId: string): Promise<AsyncIterable<ScoreProgress>>;
}

export type JobProcessor = (jobId: string, attempt: number) => Promise<void>;
