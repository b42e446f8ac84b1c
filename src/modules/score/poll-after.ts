/**
 * When a caller holding a 202 (a scoring job still running) should look again:
 * the `Retry-After` of that answer. A rough estimate from where the job stands,
 * never under 1 s (an immediate poll only repeats the 202) and never over 30 s (a
 * slow estimate must not leave a finished result unread for long). The CLI and most
 * callers follow the job over graphql-ws instead, which needs no estimate.
 */
export const POLL_AFTER = { minSeconds: 1, maxSeconds: 30 } as const;

/** Seconds per page still to crawl, and for scoring once the crawl is done (measured runs: well under both). */
const SECONDS_PER_PAGE = 1;
const SCORING_SECONDS = 2;
/** A queued job waits for a worker: its place in the queue is not known here. */
const QUEUED_SECONDS = 5;

export interface JobStanding {
  readonly status: string;
  readonly progress?: {
    readonly status?: string;
    readonly page?: number | null;
    readonly pages?: number | null;
  } | null;
}

export function pollAfterSeconds(job: JobStanding): number {
  const status = job.progress?.status ?? job.status;
  let seconds: number;
  switch (status) {
    case "queued":
      seconds = QUEUED_SECONDS;
      break;
    case "crawling": {
      const { page, pages } = job.progress ?? {};
      const left = typeof page === "number" && typeof pages === "number" ? Math.max(0, pages - page) : 0;
      seconds = left * SECONDS_PER_PAGE + SCORING_SECONDS;
      break;
    }
    case "scoring":
      seconds = SCORING_SECONDS;
      break;
    default:
      // completed or failed since the answer was built: the next read finds it.
      seconds = POLL_AFTER.minSeconds;
  }
  return Math.min(POLL_AFTER.maxSeconds, Math.max(POLL_AFTER.minSeconds, Math.ceil(seconds)));
}
