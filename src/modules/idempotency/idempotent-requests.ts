import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { AlsoInTransaction, Transaction } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH as MAX_KEY } from "../../limits.js";
import type { IdempotencyKey } from "./idempotency-key.entity.js";
import { IdempotencyKeyRepository } from "./idempotency-key.repository.js";
import { idempotencyKeyDigest } from "./idempotency-seal.js";

/** Idempotency keys are remembered this long (docs/api.md §3, §14: a replay within 24 h). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * A key whose first request has not recorded what it made after this long is taken to
 * be abandoned (its process died mid-way): the next request with it runs as a first.
 * Far longer than any creation takes (a chat reply is the slowest, bounded by the
 * model's timeout), so a request still running is never run twice.
 */
export const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/** How long a concurrent duplicate is told to wait before asking again. */
const IN_PROGRESS_RETRY_SECONDS = 1;

/** The answer header that marks a replayed answer (REST and GraphQL over HTTP). */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** What one door tells an idempotent operation: the key sent, and how to mark the answer as a replay. */
export interface IdempotentCall {
  readonly key: string | undefined;
  /** The answer is a replay: the doors send `Idempotent-Replayed: true` (GraphQL also `extensions.idempotentReplayed`). */
  readonly replayed: () => void;
}

/** Operations besides scoring that honour `Idempotency-Key` (scoring uses its kinds: full, quick, product). */
export type IdempotentOperation =
  "api_key.create" | "webhook.create" | "checkout.start" | "chat.send" | "invitation.create";

/** One request's idempotency identity: whose key, the key as sent and its digest, and the request. */
export interface IdempotencyClaim {
  readonly scope: string;
  readonly key: string;
  readonly digest: string;
  readonly operation: string;
  readonly requestHash: string;
}

/**
 * The claim of a request, or undefined when it sent no key. `request` is the
 * operation's own fields: absent and null are the same, and the order of fields
 * does not matter, so one body sent through either door hashes alike.
 */
export function idempotencyClaim(
  scope: string,
  key: string | undefined,
  operation: string,
  request: unknown,
): IdempotencyClaim | undefined {
  const valid = validIdempotencyKey(key);
  if (valid === undefined) return undefined;
  const requestHash = createHash("sha256").update(canonicalJson(request)).digest("hex");
  return { scope, key: valid, digest: idempotencyKeyDigest(valid), operation, requestHash };
}

export function validIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > MAX_KEY || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError("VALIDATION_FAILED", `Idempotency-Key: must be 1 to ${MAX_KEY} visible ASCII characters`);
  }
  return key;
}

/** JSON with object keys sorted and null/undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined && member !== null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The idempotency store of every POST that creates something (docs/api.md §14):
 * the same key and body within 24 hours replays the first answer, without doing the
 * work or charging again; another body (or operation) is 409 IDEMPOTENCY_CONFLICT;
 * a duplicate that arrives while the first is still running is 409
 * IDEMPOTENCY_IN_PROGRESS (retryable). Keys are scoped to the account (or, for
 * anonymous scoring, the network).
 */
export class IdempotentRequests {
  constructor(
    private readonly keys: IdempotencyKeyRepository,
    private readonly logger: Pick<Logger, "warn">,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The record of a key used within the window with this same request; undefined
   * when the key is unused (an expired or abandoned record is forgotten here).
   * IDEMPOTENCY_CONFLICT when it was used for another request.
   */
  async recorded(claim: IdempotencyClaim): Promise<IdempotencyKey | undefined> {
    const record = await this.keys.find(claim.scope, claim.digest);
    if (!record) return undefined;
    const age = this.clock().getTime() - record.createdAt.getTime();
    if (age > IDEMPOTENCY_WINDOW_MS || (record.resourceId === null && age > ABANDONED_AFTER_MS)) {
      await this.keys.forget(claim.scope, claim.digest);
      return undefined;
    }
    if (record.operation !== claim.operation || record.requestHash !== claim.requestHash) {
      throw new AppError(
        "IDEMPOTENCY_CONFLICT",
        "This Idempotency-Key was used with a different request in the last 24 hours.",
      );
    }
    return record;
  }

  /**
   * Makes the key this request's, in `tx` (null: committed at once). With a
   * `resourceId` the record answers replays as soon as it commits; without one it
   * says "in progress" until `complete`.
   */
  async reserve(
    tx: Transaction | null,
    claim: IdempotencyClaim,
    resourceId: string | null,
    sealedClaimToken: string | null = null,
  ): Promise<void> {
    await this.keys.reserve(tx, {
      scope: claim.scope,
      key: claim.digest,
      operation: claim.operation,
      requestHash: claim.requestHash,
      resourceId,
      sealedClaimToken,
    });
  }

  /** Whether `error` says a concurrent request reserved the same key first. */
  isTaken(error: unknown): boolean {
    return IdempotencyKeyRepository.isTaken(error);
  }

  /**
   * Runs `run` once per key: reserves the key (committed, "in progress"), runs, and
   * records what it made. A replay answers `replay(resourceId)` and marks the answer;
   * a request that fails forgets the key, so a retry with it runs as a first request
   * (nothing of a refused or failed request is kept or charged). `run` is handed
   * `complete` for the transaction of its last write (a chat's stored reply, a
   * checkout's provider session): the key records what was made in that same commit,
   * so no failure between the two can leave a made answer "in progress" and invite a
   * second run. A run that does not call it is recorded after it returns.
   */
  async once<T>(
    call: IdempotentCall,
    scope: string,
    operation: IdempotentOperation,
    request: unknown,
    handlers: {
      readonly run: (complete: AlsoInTransaction) => Promise<{ readonly answer: T; readonly resourceId: string }>;
      readonly replay: (resourceId: string) => Promise<T>;
    },
  ): Promise<T> {
    const claim = idempotencyClaim(scope, call.key, operation, request);
    if (!claim) return (await handlers.run(async () => undefined)).answer;
    const replayOf = () => this.replayOf(claim, call, handlers.replay);
    const earlier = await replayOf();
    if (earlier) return earlier.answer;
    try {
      await this.reserve(null, claim, null);
    } catch (error) {
      if (!this.isTaken(error)) throw error;
      // A concurrent request with the same key reserved it first.
      const concurrent = await replayOf();
      if (concurrent) return concurrent.answer;
      throw inProgress();
    }
    let outcome: { readonly answer: T; readonly resourceId: string };
    let completed = false;
    const complete: AlsoInTransaction = async (tx, resourceId) => {
      await this.keys.complete(claim.scope, claim.digest, resourceId, tx);
      completed = true;
    };
    try {
      outcome = await handlers.run(complete);
    } catch (error) {
      if (completed) {
        // The run's last write recorded the key and then failed: its commit may have gone through before the
        // connection dropped. The key says which: made (what was made is this request's answer), or still
        // reserved (rolled back: forgotten below). When even that cannot be read, the key stays "in progress"
        // until it is abandoned, so nothing runs twice meanwhile.
        const made = await this.madeDespite(claim);
        if (made === "unknown") throw error;
        if (made !== undefined) return handlers.replay(made);
      }
      await this.keys
        .forget(claim.scope, claim.digest)
        .catch((forgetError: unknown) =>
          this.logger.warn({ err: forgetError, operation }, "could not forget the key of a failed request"),
        );
      throw error;
    }
    if (completed) return outcome.answer;
    // Made and answered: a failure to record it only leaves the key "in progress" until it is abandoned.
    await this.keys
      .complete(claim.scope, claim.digest, outcome.resourceId)
      .catch((error: unknown) => this.logger.warn({ err: error, operation }, "could not record an idempotent answer"));
    return outcome.answer;
  }

  /**
   * As `once`, for a creation made in one database transaction (an API key, a webhook): `run` hands `record` to
   * that transaction, which inserts the key with what was made, so the creation and its key commit together or not
   * at all. No state lies between them: a process that dies or a database that drops mid-way leaves nothing made
   * and the key unused (a retry runs as a first request), and one whose commit went through leaves both (a retry
   * replays). A concurrent duplicate waits for the first to commit, then replays it.
   */
  async onceAtomic<T>(
    call: IdempotentCall,
    scope: string,
    operation: IdempotentOperation,
    request: unknown,
    handlers: {
      readonly run: (
        record: AlsoInTransaction | undefined,
      ) => Promise<{ readonly answer: T; readonly resourceId: string }>;
      readonly replay: (resourceId: string) => Promise<T>;
    },
  ): Promise<T> {
    const claim = idempotencyClaim(scope, call.key, operation, request);
    if (!claim) return (await handlers.run(undefined)).answer;
    const replayOf = () => this.replayOf(claim, call, handlers.replay);
    const earlier = await replayOf();
    if (earlier) return earlier.answer;
    // What this request recorded in its transaction, to tell its own creation from a concurrent one's.
    let mine: string | undefined;
    try {
      return (
        await handlers.run(async (tx, resourceId) => {
          await this.reserve(tx, claim, resourceId);
          mine = resourceId;
        })
      ).answer;
    } catch (error) {
      if (!this.isTaken(error)) {
        // The key may say what was made all the same: this request's own commit, which went through before its
        // connection dropped (the answer is what it made), or a concurrent duplicate's, whose creation made this
        // one fail (the account's last webhook slot taken by the first): then this answer is a replay of it.
        const made = await this.madeDespite(claim);
        if (made === "unknown" || made === undefined) throw error;
        if (made !== mine) call.replayed();
        return handlers.replay(made);
      }
      // A concurrent request with the same key committed first; this one's creation rolled back with its key.
      const concurrent = await replayOf();
      if (concurrent) return concurrent.answer;
      throw inProgress();
    }
  }

  /**
   * The replay of what the key's first request made, marked as one; undefined when the key is unused.
   * IDEMPOTENCY_IN_PROGRESS while it is reserved without a record (its first request is still running).
   */
  private async replayOf<T>(
    claim: IdempotencyClaim,
    call: IdempotentCall,
    replay: (resourceId: string) => Promise<T>,
  ): Promise<{ answer: T } | undefined> {
    const record = await this.recorded(claim);
    if (!record) return undefined;
    if (record.resourceId === null) throw inProgress();
    const answer = await replay(record.resourceId);
    call.replayed();
    return { answer };
  }

  /** What the key records as made after a failed run: its resource id, undefined for nothing, or "unknown" when it cannot be read. */
  private async madeDespite(claim: IdempotencyClaim): Promise<string | undefined | "unknown"> {
    try {
      return (await this.keys.find(claim.scope, claim.digest))?.resourceId ?? undefined;
    } catch {
      return "unknown";
    }
  }

  /** Forgets keys older than the window; returns how many went. */
  async purge(): Promise<number> {
    return this.keys.purgeCreatedBefore(new Date(this.clock().getTime() - IDEMPOTENCY_WINDOW_MS));
  }
}

function inProgress(): AppError {
  return new AppError(
    "IDEMPOTENCY_IN_PROGRESS",
    "A request with this Idempotency-Key is still being processed; its answer will be replayed once it is done.",
    { headers: { "Retry-After": String(IN_PROGRESS_RETRY_SECONDS) } },
  );
}
