import type { Logger } from "pino";
import type { ProgressBus, ScoreProgress } from "./score-progress.js";

type Listener = (progress: ScoreProgress) => void;

/**
 * The stored last step of those of these jobs that have ended
 * (`ScoreJobRepository.storedEnds`). Only ends are read: a step in between could
 * overtake the bus's own messages and make a stream skip steps, while an end is
 * stored only after every step before it was published.
 */
export type ReadStoredProgress = (jobIds: readonly string[]) => Promise<ScoreProgress[]>;

/** Job ids per read, so one statement stays bounded however many jobs are followed. */
const READ_BATCH = 500;

/**
 * The progress bus, checked against the stored jobs. Pub/sub loses what is
 * published while Redis is away, a job's end included, and a follower (a
 * `scoreProgress` stream, a call waiting for its result) would then wait for a
 * message that never comes. So every job followed in this process is also read
 * from Postgres: at once when the bus reconnects, and every `recheckMs` while
 * anyone follows a job (one batched read per process, not one per follower), and
 * the listeners of a job that has ended hear its stored end. They already ignore
 * steps they have seen (a stream ranks steps, a wait looks only for the end), so
 * hearing the end twice is harmless.
 */
export class StoredProgressBus implements ProgressBus {
  /** Local listeners per followed job. */
  private readonly followed = new Map<string, Set<Listener>>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  /** Whether the last check failed: a database outage is logged once, not every interval. */
  private failing = false;
  private closed = false;

  constructor(
    private readonly bus: ProgressBus,
    private readonly read: ReadStoredProgress,
    private readonly options: { readonly recheckMs: number; readonly logger: Pick<Logger, "warn" | "info"> },
  ) {
    bus.onReconnect?.(() => void this.check());
  }

  publish(progress: ScoreProgress): Promise<void> {
    return this.bus.publish(progress);
  }

  onReconnect(listener: () => void): void {
    this.bus.onReconnect?.(listener);
  }

  async subscribe(jobId: string, listener: Listener): Promise<() => Promise<void>> {
    const unsubscribe = await this.bus.subscribe(jobId, listener);
    // A wrapper, so the same function following twice is two followers.
    const entry: Listener = (progress) => listener(progress);
    let local = this.followed.get(jobId);
    if (!local) this.followed.set(jobId, (local = new Set()));
    local.add(entry);
    this.startChecking();
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      const current = this.followed.get(jobId);
      current?.delete(entry);
      if (current?.size === 0) this.followed.delete(jobId);
      if (this.followed.size === 0) this.stopChecking();
      await unsubscribe();
    };
  }

  /** Reads every followed job once and tells its listeners; a check already under way is shared. */
  check(): Promise<void> {
    this.checking ??= this.readAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopChecking();
    this.followed.clear();
    await this.bus.close();
  }

  private startChecking(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.check(), this.options.recheckMs);
    this.timer.unref();
  }

  private stopChecking(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async readAll(): Promise<void> {
    const jobIds = [...this.followed.keys()];
    try {
      for (let start = 0; start < jobIds.length && !this.closed; start += READ_BATCH) {
        for (const progress of await this.read(jobIds.slice(start, start + READ_BATCH))) this.deliver(progress);
      }
      if (this.failing) this.options.logger.info("stored job progress readable again");
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        this.options.logger.warn(
          { err: error },
          "could not read the followed jobs' stored progress; retrying every interval",
        );
      this.failing = true;
    }
  }

  private deliver(progress: ScoreProgress): void {
    for (const listener of [...(this.followed.get(progress.jobId) ?? [])]) {
      try {
        listener(progress);
      } catch (error) {
        this.options.logger.warn({ err: error, jobId: progress.jobId }, "progress listener failed");
      }
    }
  }
}
