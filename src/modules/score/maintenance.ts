import type { Logger } from "pino";
import type { OutboxRetentionRepository } from "../../events/outbox-retention.repository.js";
import type { ScoreJobRunner } from "./score-job.runner.js";
import type { ScoreResultRepository } from "./score-result.repository.js";
import type { JobQueue } from "./score-progress.js";
import type { ScoreService } from "./score.service.js";

export interface MaintenanceOptions {
  /** How often to look for jobs whose worker died (and jobs left queued by a restart). */
  readonly sweepEveryMs?: number;
  /** How often to purge expired held results and idempotency keys. */
  readonly purgeEveryMs?: number;
  readonly clock?: () => Date;
}

/**
 * The scheduled tasks of a process that runs jobs: re-queueing jobs left behind
 * (at start and every sweep) and the daily-enough purges. Timers are unref'd, and
 * `stop` waits for a task in flight.
 */
export function startMaintenance(
  deps: {
    outbox: OutboxRetentionRepository;
    results: ScoreResultRepository;
    runner: ScoreJobRunner;
    queue: JobQueue;
    scores: ScoreService;
    logger: Pick<Logger, "info" | "warn">;
  },
  options: MaintenanceOptions = {},
): { stop(): Promise<void>; sweep(): Promise<void>; purge(): Promise<void> } {
  const clock = options.clock ?? (() => new Date());
  let inFlight: Promise<unknown> = Promise.resolve();
  const sweep = async () => {
    for (const jobId of await deps.runner.runnableJobIds()) await deps.queue.enqueue(jobId);
  };
  const purge = async () => {
    // Held anonymous results whose 30 days passed without a link.
    const held = await deps.results.purgeExpiredHeld(clock());
    const keys = await deps.scores.purgeIdempotencyKeys();
    const events = await deps.outbox.purgeDelivered(clock());
    if (held + keys + events > 0)
      deps.logger.info({ heldResults: held, idempotencyKeys: keys, outboxEvents: events }, "purged expired records");
  };
  const guarded = (task: () => Promise<void>, name: string) => () => {
    inFlight = inFlight.then(task).catch((error: unknown) => deps.logger.warn({ err: error }, `${name} failed`));
  };
  const sweepTimer = setInterval(guarded(sweep, "job sweep"), options.sweepEveryMs ?? 30_000);
  const purgeTimer = setInterval(guarded(purge, "purge"), options.purgeEveryMs ?? 60 * 60_000);
  sweepTimer.unref();
  purgeTimer.unref();
  guarded(sweep, "job sweep")();
  guarded(purge, "purge")();
  return {
    sweep,
    purge,
    async stop() {
      clearInterval(sweepTimer);
      clearInterval(purgeTimer);
      await inFlight;
    },
  };
}
