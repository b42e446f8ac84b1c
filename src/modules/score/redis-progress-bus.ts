import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "pino";
import { AppError } from "../../errors.js";
import { jobStatuses, type ProgressBus, type ScoreProgress } from "./score-progress.js";

export interface RedisProgressBusOptions {
  readonly url: string;
  /** Namespaces the channels (`<prefix>progress:<jobId>`); default `pms:`. */
  readonly keyPrefix?: string;
  /** How long `subscribe()` waits for Redis to confirm; default 5 s. */
  readonly subscribeTimeoutMs?: number;
  readonly logger?: Pick<Logger, "warn" | "info">;
}

type Listener = (progress: ScoreProgress) => void;

const statuses: ReadonlySet<string> = new Set(jobStatuses);

/** Both connections keep reconnecting in the background, at most every 2 s. */
const connectionOptions: RedisOptions = {
  connectTimeout: 2_000,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
};

/**
 * Progress across processes over Redis pub/sub: one channel per job, published on
 * one connection (so a job's messages arrive in order) and heard on one dedicated
 * subscriber connection per bus. A channel is subscribed while at least one local
 * listener wants it; ioredis resubscribes after a reconnect by itself (messages
 * published while disconnected are lost: subscribers also read the stored progress).
 */
export class RedisProgressBus implements ProgressBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly subscribeTimeoutMs: number;
  private readonly logger: Pick<Logger, "warn" | "info"> | undefined;
  /** Local listeners per channel. */
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Channels Redis confirmed as subscribed. */
  private readonly subscribed = new Set<string>();
  /** Per channel, the SUBSCRIBE/UNSUBSCRIBE work in flight, run one after another. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly reconnectListeners: Array<() => void> = [];
  private closed = false;

  constructor(options: RedisProgressBusOptions) {
    this.prefix = `${options.keyPrefix ?? "pms:"}progress:`;
    this.subscribeTimeoutMs = options.subscribeTimeoutMs ?? 5_000;
    this.logger = options.logger;
    // Publishes wait for at most one reconnect attempt, then fail (the runner logs and goes on).
    this.publisher = new Redis(options.url, {
      ...connectionOptions,
      maxRetriesPerRequest: 1,
      connectionName: "pms-progress-pub",
    });
    // SUBSCRIBE waits for the connection (bounded by subscribeTimeoutMs) and is replayed after reconnects.
    this.subscriber = new Redis(options.url, {
      ...connectionOptions,
      maxRetriesPerRequest: null,
      connectionName: "pms-progress-sub",
    });
    this.watch(this.publisher, "publisher");
    this.watch(this.subscriber, "subscriber");
    this.subscriber.on("message", (channel: string, message: string) => this.deliver(channel, message));
    this.reportReconnects();
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async publish(progress: ScoreProgress): Promise<void> {
    if (this.closed) return;
    await this.publisher.publish(this.channel(progress.jobId), JSON.stringify(progress));
  }

  /** Resolves once Redis confirmed the subscription, so a publish made after it is heard. */
  async subscribe(jobId: string, listener: Listener): Promise<() => Promise<void>> {
    if (this.closed) throw new AppError("SERVICE_UNAVAILABLE", "Progress updates are shutting down.");
    const channel = this.channel(jobId);
    // A wrapper, so the same function subscribed twice is two subscriptions.
    const entry: Listener = (progress) => listener(progress);
    let local = this.listeners.get(channel);
    if (!local) this.listeners.set(channel, (local = new Set()));
    local.add(entry);

    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      const current = this.listeners.get(channel);
      current?.delete(entry);
      if (current?.size === 0) this.listeners.delete(channel);
      if (!this.closed) await this.reconcile(channel).catch(() => undefined);
    };

    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.reconcile(channel),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new AppError("SERVICE_UNAVAILABLE", "Progress updates are temporarily unavailable.")),
            this.subscribeTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return stop;
  }

  /** Quits both connections; listeners hear nothing more. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscribed.clear();
    await Promise.all([quit(this.publisher), quit(this.subscriber)]);
  }

  private channel(jobId: string): string {
    return `${this.prefix}${jobId}`;
  }

  /**
   * Brings Redis in line with the local listeners of one channel, after the work
   * already queued for it: SUBSCRIBE when some are listening, UNSUBSCRIBE when none.
   */
  private reconcile(channel: string): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.closed) return;
      const wanted = (this.listeners.get(channel)?.size ?? 0) > 0;
      if (wanted && !this.subscribed.has(channel)) {
        await this.subscriber.subscribe(channel);
        this.subscribed.add(channel);
      } else if (!wanted && this.subscribed.has(channel)) {
        this.subscribed.delete(channel);
        await this.subscriber.unsubscribe(channel);
      }
    };
    const previous = this.pending.get(channel) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.pending.set(channel, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.pending.get(channel) === next) this.pending.delete(channel);
      });
    return next;
  }

  private deliver(channel: string, message: string): void {
    const local = this.listeners.get(channel);
    if (!local || local.size === 0) return;
    const progress = parseProgress(message);
    if (!progress || this.channel(progress.jobId) !== channel) return;
    for (const listener of [...local]) {
      try {
        listener(progress);
      } catch (error) {
        this.logger?.warn({ err: error, jobId: progress.jobId }, "progress listener failed");
      }
    }
  }

  /**
   * Every "ready" of the subscriber after its first is a reconnect (ioredis sends the
   * SUBSCRIBEs again right after it): what was published meanwhile is lost, so followers are told.
   */
  private reportReconnects(): void {
    let connectedBefore = false;
    this.subscriber.on("ready", () => {
      if (connectedBefore && !this.closed) {
        for (const listener of this.reconnectListeners) listener();
      }
      connectedBefore = true;
    });
  }

  private watch(client: Redis, role: string): void {
    let reported = false;
    client.on("error", (error: Error) => {
      if (!reported)
        this.logger?.warn({ err: error, role }, "Redis unavailable for progress updates; retrying in the background");
      reported = true;
    });
    client.on("ready", () => {
      if (reported) this.logger?.info({ role }, "Redis available again for progress updates");
      reported = false;
    });
  }
}

/** A ScoreProgress from a message, or undefined for anything malformed. */
function parseProgress(message: string): ScoreProgress | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { jobId, status } = value as { jobId?: unknown; status?: unknown };
  if (typeof jobId !== "string" || typeof status !== "string" || !statuses.has(status)) return undefined;
  return value as ScoreProgress;
}

async function quit(client: Redis): Promise<void> {
  if (client.status === "ready") {
    try {
      await client.quit();
    } catch {
      // Falls through to disconnect.
    }
  }
  client.disconnect();
}
