import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A sliding window log: the store keeps the time of every accepted hit, so "at most
 * `limit` in any `windowMs`" holds for every instant, not per calendar bucket. A
 * fixed-window counter lets 2 × limit through around a bucket boundary (docs/api.md §6).
 */
export interface SlidingWindowHit {
  /** True iff fewer than `limit` hits lay in (now − window, now] before this one. */
  allowed: boolean;
  /** Hits in the window after this call (this one included when allowed). */
  count: number;
  /** Time of the oldest hit still in the window: the window frees a slot at oldest + window. */
  oldestMs: number | undefined;
}

export interface SlidingWindowStore {
  /**
   * Records a hit only when it is allowed: a refused request is charged nothing and
   * does not push the end of the block further away.
   */
  hit(key: string, limit: number, windowMs: number, nowMs: number, hitId?: string): Promise<SlidingWindowHit>;
  /**
   * Takes back hit `hitId` of `key` whose caller was refused because its answer came
   * late or not at all: it may or may not have been recorded. Never throws; a store
   * that cannot reach its data now does it as soon as it can. Absent: every hit is
   * answered as it is recorded, so none is ever in doubt.
   */
  forget?(key: string, hitId: string): void;
}

/**
 * One round trip, atomic: Redis runs a script to completion before any other
 * command, so 50 concurrent hits on one key cannot all read "4 so far".
 * ARGV: cutoff (now − window), now, limit, window ms, unique member.
 * Numbers travel as strings computed in TypeScript: Lua 5.1 would print large
 * millisecond values in exponent form if it did the arithmetic itself.
 */
const slidingWindowHitLua = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or false}
`;

/** Versioned so a changed script never runs under an older definition's name on a shared client. */
const commandName = "pmsSlidingWindowHitV1";

type SlidingWindowCommand = (
  key: string,
  cutoffMs: string,
  nowMs: string,
  limit: string,
  windowMs: string,
  member: string,
) => Promise<unknown>;

export interface RedisSlidingWindowStoreOptions {
  /** Namespace of the sorted sets; tests use their own so they never share a key. */
  keyPrefix?: string;
}

/** The hit was refused before it was sent: nothing to take back. */
export class HitNotSentError extends Error {
  readonly code = "ECONNREFUSED";

  constructor(status: string) {
    super(`the rate-limit store's connection is ${status}, not ready`);
    this.name = "HitNotSentError";
  }
}

/**
 * Hits waiting to be taken back while Redis is away. Past this many the oldest are
 * dropped: each is one request counted against its caller for at most one window.
 */
const MAX_PENDING_FORGETS = 10_000;

/**
 * Sorted set per key: member = a unique id per hit, score = its time. The clock is the
 * caller's (injectable in tests); instances are expected to run NTP-synchronised
 * clocks, and a skew of a few ms only shifts a window edge by as much.
 */
export class RedisSlidingWindowStore implements SlidingWindowStore {
  private readonly keyPrefix: string;
  private readonly command: SlidingWindowCommand;
  /** hit id → its sorted set, for hits to take back once Redis is ready again. */
  private readonly pendingForgets = new Map<string, string>();
  private waitingForReady = false;

  constructor(
    private readonly client: Redis,
    options: RedisSlidingWindowStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? "pms:rl:";
    // defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT (a restarted or flushed Redis).
    const commands = client as unknown as Record<string, SlidingWindowCommand | undefined>;
    if (typeof commands[commandName] !== "function") {
      client.defineCommand(commandName, { numberOfKeys: 1, lua: slidingWindowHitLua });
    }
    const command = commands[commandName];
    if (!command) throw new Error("ioredis did not define the sliding-window command");
    this.command = command.bind(client);
  }

  async hit(
    key: string,
    limit: number,
    windowMs: number,
    nowMs: number,
    hitId: string = randomUUID(),
  ): Promise<SlidingWindowHit> {
    // Fail fast whatever the client's options: a queued hit would only wait out the deadline.
    if (this.client.status !== "ready") throw new HitNotSentError(this.client.status);
    const reply = await this.command(
      this.keyPrefix + key,
      String(nowMs - windowMs),
      String(nowMs),
      String(limit),
      String(windowMs),
      hitId,
    );
    return parseReply(reply);
  }

  /**
   * ZREM of the hit's member, which is harmless when the hit was never recorded. On
   * the connection that carried the hit, Redis runs it after the hit, so a hit still
   * in flight is removed too. While Redis is away (the hit may have run just before
   * the link dropped) it waits for the next "ready".
   */
  forget(key: string, hitId: string): void {
    this.pendingForgets.delete(hitId);
    this.pendingForgets.set(hitId, this.keyPrefix + key);
    for (const oldest of this.pendingForgets.keys()) {
      if (this.pendingForgets.size <= MAX_PENDING_FORGETS) break;
      this.pendingForgets.delete(oldest);
    }
    this.flushForgets();
  }

  private flushForgets(): void {
    if (this.client.status !== "ready") {
      // One listener per store at most, only while something waits: stores share the service's client.
      if (!this.waitingForReady) {
        this.waitingForReady = true;
        this.client.once("ready", () => {
          this.waitingForReady = false;
          this.flushForgets();
        });
      }
      return;
    }
    for (const [hitId, key] of this.pendingForgets) {
      this.pendingForgets.delete(hitId);
      // Retried only when the link dropped meanwhile: an error Redis answered would only repeat.
      this.client.zrem(key, hitId).catch(() => {
        if (this.client.status !== "ready") this.forget(key.slice(this.keyPrefix.length), hitId);
      });
    }
  }
}

function parseReply(reply: unknown): SlidingWindowHit {
  if (!Array.isArray(reply) || reply.length !== 3) throw new Error("unexpected reply from the sliding-window script");
  const [allowed, count, oldest] = reply as [unknown, unknown, unknown];
  if (typeof allowed !== "number" || typeof count !== "number") {
    throw new Error("unexpected reply from the sliding-window script");
  }
  return { allowed: allowed === 1, count, oldestMs: typeof oldest === "string" ? Number(oldest) : undefined };
}

interface MemoryLog {
  /** Accepted hits, ascending; never longer than the limit, since refusals are not stored. */
  hits: number[];
  windowMs: number;
}

export interface MemorySlidingWindowStoreOptions {
  /** Keys kept at most; beyond it the least recently hit are forgotten. */
  maxKeys?: number;
}

/**
 * The same log in process, for a single instance without REDIS_URL. Memory stays
 * bounded: a key whose newest hit has left its window is dropped, and past `maxKeys`
 * the least recently hit keys are evicted (Map order is insertion order, and every
 * hit re-inserts its key). Evicting a live key forgets its hits, so the cap is set
 * far above the number of subjects one instance sees in a window.
 */
export class MemorySlidingWindowStore implements SlidingWindowStore {
  private readonly logs = new Map<string, MemoryLog>();
  private readonly maxKeys: number;

  constructor(options: MemorySlidingWindowStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /** Keys currently held (for tests and metrics). */
  get size(): number {
    return this.logs.size;
  }

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<SlidingWindowHit> {
    const cutoff = nowMs - windowMs;
    const hits = (this.logs.get(key)?.hits ?? []).filter((at) => at > cutoff);
    const allowed = hits.length < limit;
    if (allowed) insertSorted(hits, nowMs);

    this.logs.delete(key);
    this.dropExpired(nowMs);
    if (hits.length > 0) this.logs.set(key, { hits, windowMs });
    for (const oldest of this.logs.keys()) {
      if (this.logs.size <= this.maxKeys) break;
      this.logs.delete(oldest);
    }
    return { allowed, count: hits.length, oldestMs: hits[0] };
  }

  /**
   * Least recently hit keys sit at the front; stop at the first one still live, so
   * each call costs O(1) amortised. With mixed window lengths a few expired keys may
   * wait behind a live one: the cap still bounds them.
   */
  private dropExpired(nowMs: number): void {
    for (const [key, log] of this.logs) {
      const newest = log.hits[log.hits.length - 1];
      if (newest !== undefined && newest > nowMs - log.windowMs) break;
      this.logs.delete(key);
    }
  }
}

/** Clocks can step backwards (injected in tests, NTP in production); keep the log ordered anyway. */
function insertSorted(hits: number[], at: number): void {
  let index = hits.length;
  while (index > 0 && (hits[index - 1] ?? 0) > at) index -= 1;
  hits.splice(index, 0, at);
}
