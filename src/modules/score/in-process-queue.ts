import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { JobProcessor, JobQueue, ProgressBus, ScoreProgress } from "./score-progress.js";

/** Progress within one process (no REDIS_URL). */
export class MemoryProgressBus implements ProgressBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(progress: ScoreProgress): Promise<void> {
    this.emitter.emit(progress.jobId, progress);
  }

  async subscribe(jobId: string, listener: (progress: ScoreProgress) => void): Promise<() => Promise<void>> {
    this.emitter.on(jobId, listener);
    return async () => {
      this.emitter.off(jobId, listener);
    };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * The default worker pool: jobs run in this process, at most `concurrency` at a
 * time, first come first served. A job id already waiting is not queued twice.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly waiting: string[] = [];
  private readonly pending = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly processor: JobProcessor,
    private readonly logger: Pick<Logger, "error">,
    private readonly concurrency = 2,
  ) {}

  async enqueue(jobId: string): Promise<void> {
    if (this.closed || this.pending.has(jobId)) return;
    this.pending.add(jobId);
    this.waiting.push(jobId);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift()!;
      const run = this.processor(jobId, 0)
        .catch((error: unknown) => this.logger.error({ err: error, jobId }, "job processor failed"))
        .finally(() => {
          this.pending.delete(jobId);
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  /** Stops taking jobs and waits for those running (their leases keep the rest safe for a restart). */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    await Promise.allSettled([...this.running]);
  }
}
