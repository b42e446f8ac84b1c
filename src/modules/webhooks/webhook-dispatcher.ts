import { randomUUID } from "node:crypto";
import got from "got";
import type { Logger } from "pino";
import type { DataSource, EntityManager } from "typeorm";
import type { DomainEvents } from "../../events/domain-events.js";
import { type AddressGuard, RefusedAddressError } from "../crawl/address-guard.js";
import { signatureHeader } from "./signature.js";

/** Waits before attempts 2…8 after a failure: about a day in all (Standard Webhooks' schedule, shortened at the start). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
/** A webhook failing every delivery this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
export const MAX_STORED_RESPONSE = 4_096;
const TIMEOUT_MS = 10_000;
/** The most one delivery may take in all (a receiver dripping bytes included): well inside the claim's lease. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The longest a circuit breaker stays open before its next probe, however often it reopened. */
const BREAKER_MAX_COOLDOWN_MS = 3_600_000;
/** Namespace (first key) of the per-account advisory locks a claim takes, apart from any other advisory lock. */
const CLAIM_LOCK_SPACE = 0x77686b73;
/** A pass that found an account being claimed for by another process looks again this soon. */
const CONTENDED_RETRY_MS = 50;

export interface DispatcherOptions {
  readonly publicBaseUrl: string;
  readonly clock?: () => Date;
  /** How long a claim lasts: longer than one delivery's timeouts. */
  readonly leaseMs?: number;
  /** How often to look for due deliveries without being woken. */
  readonly pollMs?: number;
  /** Deliveries in flight at once in this process (default 20). */
  readonly concurrency?: number;
  /**
   * In flight to one webhook at once, across every process (default 5): a slow or
   * hanging destination holds a few slots until its timeouts, never the others' deliveries.
   */
  readonly perWebhook?: number;
  /**
   * In flight for one account at once, across every process (default 10): an account
   * with many hanging webhooks and a deep backlog still leaves the pool to the others.
   */
  readonly perAccount?: number;
  /** Deliveries in a row with no answer (timeouts, connection failures) that open a webhook's circuit breaker (default 5). */
  readonly breakerFailures?: number;
  /** The breaker's first cool-down (default 60 s); each reopening with no answer between doubles it, up to an hour. */
  readonly breakerCooldownMs?: number;
  /** 0…1: each retry delay is moved by up to this share, so failing receivers are not hit in lockstep. */
  readonly jitter?: number;
  /** Told each attempt's outcome (metrics). */
  readonly onOutcome?: (outcome: "delivered" | "retry" | "failed") => void;
}

interface Claimed {
  readonly id: string;
  readonly lease_token: string;
  readonly attempts: number;
  readonly attempt_limit: number;
  readonly event_id: string;
  readonly event_type: string;
  readonly event_data: Record<string, unknown>;
  readonly occurred_at: Date;
  readonly webhook_id: string;
  readonly account_id: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: Date | null;
  /** The webhook's breaker was clean when claimed (no failures counted, not open, no trips): an answer has nothing to reset. */
  readonly breaker_clean: boolean;
}

/**
 * Text Postgres will store: a receiver's answer may hold NUL, which `text` refuses
 * (invalid UTF-8 was already replaced when the bytes were decoded).
 */
const storable = (text: string | null | undefined): string | null => (text == null ? null : text.replaceAll("\0", "\uFFFD"));

/** `unanswered`: no complete answer came (a timeout, a refused or broken connection): what the circuit breaker counts. */
type Outcome =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | { readonly ok: false; readonly status: number | null; readonly body: string | null; readonly error: string; readonly unanswered?: boolean };

/**
 * Delivers webhook events at least once (DESIGN.md §7, Standard Webhooks). Every
 * process may run one: due deliveries are claimed with `FOR UPDATE SKIP LOCKED` and
 * a fenced lease (a token every outcome write is conditional on), so several
 * processes deliver each event once and a crashed one's claims lapse and are taken
 * again. Destinations go through the crawler's address guard at connection time
 * (DNS rebinding included); redirects are not followed.
 *
 * Deliveries run in a pool, not in batches: a slot freed by one delivery is
 * filled at once. The pool is shared fairly: one webhook has at most
 * `perWebhook` deliveries in flight and one account at most `perAccount`, both
 * counted over every process (leased rows), and a freed slot goes to the
 * account with the fewest in flight. A destination that gives no answer
 * `breakerFailures` times in a row is paused as a whole (circuit breaker, in
 * Postgres): its deliveries are not claimed, so not charged an attempt, until
 * a cool-down has passed and one probe has been answered.
 */
export class WebhookDispatcher {
  private readonly clock: () => Date;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly perWebhook: number;
  private readonly perAccount: number;
  private readonly breakerFailures: number;
  private readonly breakerCooldownMs: number;
  private readonly jitter: number;
  private timer: NodeJS.Timeout | undefined;
  /** The claiming pass under way, if any (one at a time per process). */
  private filling: Promise<void> | undefined;
  private again = false;
  /** Deliveries under way in this process. */
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly guard: AddressGuard,
    private readonly events: DomainEvents,
    private readonly logger: Pick<Logger, "warn" | "info" | "error">,
    private readonly options: DispatcherOptions,
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 1_000;
    this.concurrency = Math.max(1, options.concurrency ?? 20);
    this.perWebhook = Math.max(1, options.perWebhook ?? 5);
    this.perAccount = Math.max(1, options.perAccount ?? 10);
    this.breakerFailures = Math.max(1, options.breakerFailures ?? 5);
    this.breakerCooldownMs = Math.max(1, options.breakerCooldownMs ?? 60_000);
    this.jitter = options.jitter ?? 0.1;
  }

  /** Polls for due deliveries and wakes on every published event. */
  start(): this {
    this.unsubscribe = this.events.onPublished(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
    return this;
  }

  /** Fills free slots now (or once more after the pass under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((error: unknown) => this.logger.warn({ err: error }, "webhook delivery pass failed; the next pass retries"))
      .finally(() => {
        this.filling = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming and waits for the deliveries under way (each bounded by its timeouts). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    if (this.timer) clearInterval(this.timer);
    await this.filling;
    await Promise.all(this.inFlight);
  }

  /**
   * Claims due deliveries into the free slots and starts each. The claim keeps
   * every webhook and account within its share, so nothing is claimed only to be
   * handed back. An account another process was claiming for at that moment is
   * left to it; the pass looks again shortly, in case that process had no room.
   */
  private async fill(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (this.stopped || free <= 0) return;
    const { rows, contended } = await this.claim(free);
    for (const row of rows) this.begin(row);
    if (contended) setTimeout(() => this.wake(), CONTENDED_RETRY_MS).unref();
  }

  private begin(row: Claimed): void {
    const delivery: Promise<void> = this.deliver(row)
      .catch((error: unknown) => this.logger.warn({ err: error, delivery: row.id }, "could not record a webhook delivery; its claim lapses and it is retried"))
      .finally(() => {
        this.inFlight.delete(delivery);
        this.wake();
      });
    this.inFlight.add(delivery);
  }

  /**
   * Claims up to `limit` due deliveries with a fenced lease, fairly across accounts.
   * One transaction: first the accounts whose turn it is, each taken with a
   * try-lock (`nextAccounts`); then, in a fresh snapshot that sees every claim
   * committed before those locks, the claim itself (`claimFor`). The try-lock
   * makes count-then-claim of one account atomic across processes, so its share
   * holds; a process never waits on another for it, it leaves that account to it.
   */
  private async claim(limit: number): Promise<{ rows: Claimed[]; contended: boolean }> {
    const now = this.clock();
    const token = randomUUID();
    const { rows, contended } = await this.dataSource.transaction(async (manager) => {
      const accounts = await this.nextAccounts(manager, now, limit);
      const mine = accounts.filter((account) => account.locked).map((account) => account.account_id);
      const rows = mine.length === 0 ? [] : await this.claimFor(manager, mine, now, token, limit);
      return { rows, contended: mine.length < accounts.length };
    });
    return { rows, contended };
  }

  /**
   * The accounts next in line, at most `limit` (no more can be served in one
   * pass, so no more are locked), and whether this transaction holds each one's
   * claim lock. In line: a due delivery on a webhook under its share whose
   * breaker is not open, and the account under its share; fewest in flight
   * first, then oldest due. Bounded by the webhooks that have claimable pending
   * deliveries, not by the deliveries: one index probe each (a loose index scan
   * of `IDX_webhook_deliveries_pending`), which also gives its earliest next
   * attempt. In flight is counted from the leased rows, a few per process.
   */
  private async nextAccounts(manager: EntityManager, now: Date, limit: number): Promise<Array<{ account_id: string; locked: boolean }>> {
    return (await manager.query(
      `WITH RECURSIVE "pending" AS (
         (SELECT "webhook_id", "next_attempt_at" FROM "webhook_deliveries"
           WHERE "status" = 'pending' AND ("locked_until" IS NULL OR "locked_until" < $1)
           ORDER BY "webhook_id", "next_attempt_at" LIMIT 1)
         UNION ALL
         SELECT "next"."webhook_id", "next"."next_attempt_at" FROM "pending" "p" CROSS JOIN LATERAL (
           SELECT "webhook_id", "next_attempt_at" FROM "webhook_deliveries"
            WHERE "status" = 'pending' AND ("locked_until" IS NULL OR "locked_until" < $1) AND "webhook_id" > "p"."webhook_id"
            ORDER BY "webhook_id", "next_attempt_at" LIMIT 1) "next"
       ), "leased" AS (
         SELECT "d"."webhook_id", "w"."account_id", count(*)::int AS "n"
           FROM "webhook_deliveries" "d" JOIN "webhooks" "w" ON "w"."id" = "d"."webhook_id"
          WHERE "d"."lease_token" IS NOT NULL AND "d"."locked_until" >= $1
          GROUP BY "d"."webhook_id", "w"."account_id"
       ), "ready" AS (
         SELECT "w"."account_id", min("p"."next_attempt_at") AS "oldest"
           FROM "pending" "p" JOIN "webhooks" "w" ON "w"."id" = "p"."webhook_id" LEFT JOIN "leased" "l" ON "l"."webhook_id" = "w"."id"
          WHERE "p"."next_attempt_at" <= $1 AND ("w"."breaker_open_until" IS NULL OR "w"."breaker_open_until" <= $1)
            AND COALESCE("l"."n", 0) < CASE WHEN "w"."breaker_open_until" IS NULL THEN $4::int ELSE 1 END
          GROUP BY "w"."account_id"
       ), "inline" AS MATERIALIZED (
         SELECT "r"."account_id" FROM "ready" "r"
           LEFT JOIN (SELECT "account_id", sum("n") AS "n" FROM "leased" GROUP BY "account_id") "a" ON "a"."account_id" = "r"."account_id"
          WHERE COALESCE("a"."n", 0) < $5
          ORDER BY COALESCE("a"."n", 0), "r"."oldest", "r"."account_id" LIMIT $3
       )
       SELECT "account_id", pg_try_advisory_xact_lock($2, hashtext("account_id"::text)) AS "locked" FROM "inline"`,
      [now, CLAIM_LOCK_SPACE, limit, this.perWebhook, this.perAccount],
    )) as Array<{ account_id: string; locked: boolean }>;
  }

  /**
   * Leases due deliveries of these accounts (their claim locks held). Each
   * webhook offers its oldest due deliveries up to its free share (one, as the
   * probe, when its breaker's cool-down is over); an account's k-th offer after
   * the n it has in flight takes turn n + k, turns past the account's share are
   * dropped, and the lowest turns win: round-robin by account, the fewest in
   * flight first.
   */
  private async claimFor(manager: EntityManager, accounts: readonly string[], now: Date, token: string, limit: number): Promise<Claimed[]> {
    const [claimed] = (await manager.query(
      `WITH "leased" AS (
         SELECT "w"."id" AS "webhook_id", "w"."account_id", count(*)::int AS "n"
           FROM "webhooks" "w" JOIN "webhook_deliveries" "d" ON "d"."webhook_id" = "w"."id"
          WHERE "w"."account_id" = ANY($7::uuid[]) AND "d"."lease_token" IS NOT NULL AND "d"."locked_until" >= $1
          GROUP BY "w"."id", "w"."account_id"
       ), "hooks" AS (
         -- The breaker is read again: it may have opened since the first statement's snapshot.
         SELECT "w"."id", "w"."account_id", CASE WHEN "w"."breaker_open_until" IS NULL THEN $6::int ELSE 1 END - COALESCE("l"."n", 0) AS "free"
           FROM "webhooks" "w" LEFT JOIN "leased" "l" ON "l"."webhook_id" = "w"."id"
          WHERE "w"."account_id" = ANY($7::uuid[]) AND ("w"."breaker_open_until" IS NULL OR "w"."breaker_open_until" <= $1)
       ), "offered" AS (
         SELECT "h"."account_id", "d"."id", "d"."next_attempt_at" FROM "hooks" "h" CROSS JOIN LATERAL (
           SELECT "id", "next_attempt_at" FROM "webhook_deliveries"
            WHERE "webhook_id" = "h"."id" AND "status" = 'pending' AND "next_attempt_at" <= $1 AND ("locked_until" IS NULL OR "locked_until" < $1)
            ORDER BY "next_attempt_at", "id" LIMIT GREATEST("h"."free", 0)) "d"
       ), "turns" AS (
         SELECT "o"."id", "o"."next_attempt_at",
                ROW_NUMBER() OVER (PARTITION BY "o"."account_id" ORDER BY "o"."next_attempt_at", "o"."id")
                  + COALESCE((SELECT sum("n") FROM "leased" "l" WHERE "l"."account_id" = "o"."account_id"), 0) AS "turn"
           FROM "offered" "o"
       ), "picked" AS (
         SELECT "id" FROM "turns" WHERE "turn" <= $5 ORDER BY "turn", "next_attempt_at", "id" LIMIT $4
       ), "locked" AS (
         SELECT "id" FROM "webhook_deliveries"
          WHERE "id" IN (SELECT "id" FROM "picked") AND "status" = 'pending' AND ("locked_until" IS NULL OR "locked_until" < $1)
          FOR UPDATE SKIP LOCKED
       )
       UPDATE "webhook_deliveries" "d" SET "attempts" = "d"."attempts" + 1, "locked_until" = $2, "lease_token" = $3
         FROM "locked", "domain_events" "e", "webhooks" "w"
        WHERE "d"."id" = "locked"."id" AND "e"."id" = "d"."event_id" AND "w"."id" = "d"."webhook_id"
       RETURNING "d"."id", "d"."lease_token", "d"."attempts", "d"."attempt_limit", "d"."event_id", "d"."event_type", "d"."next_attempt_at",
                 "e"."data" AS "event_data", "e"."occurred_at", "w"."id" AS "webhook_id", "w"."account_id", "w"."url", "w"."enabled",
                 "w"."secret", "w"."previous_secret", "w"."previous_secret_expires_at",
                 ("w"."breaker_failures" = 0 AND "w"."breaker_open_until" IS NULL AND "w"."breaker_trips" = 0) AS "breaker_clean"`,
      [now, new Date(now.getTime() + this.leaseMs), token, limit, this.perAccount, this.perWebhook, accounts],
    )) as [Array<Claimed & { next_attempt_at: Date }>, number];
    // Earliest due first, as they were picked (RETURNING keeps no order).
    return claimed.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private async deliver(row: Claimed): Promise<void> {
    // The claim counted this attempt: beyond the limit, an earlier attempt was made but its outcome never written.
    if (row.attempts > row.attempt_limit) {
      await this.giveUp(row);
      return;
    }
    if (!row.enabled) {
      await this.pause(row);
      return;
    }
    const now = this.clock();
    const body = JSON.stringify({ type: row.event_type, timestamp: row.occurred_at.toISOString(), data: this.payload(row) });
    const timestamp = Math.floor(now.getTime() / 1000);
    const secrets = [row.secret];
    if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now) secrets.push(row.previous_secret);
    const outcome = await this.post(row.url, {
      "content-type": "application/json",
      "user-agent": "ProductMaturityScoring-Webhooks/1.0",
      "webhook-id": row.event_id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, row.event_id, timestamp, body),
    }, body);
    await this.recordReach(row, outcome);

    if (outcome.ok) {
      await this.finish(row, { status: "delivered", statusCode: outcome.status, body: outcome.body });
      await this.dataSource.query(`UPDATE "webhooks" SET "failing_since" = NULL WHERE "id" = $1 AND "failing_since" IS NOT NULL`, [row.webhook_id]);
      return;
    }
    if (outcome.status === 410) {
      await this.finish(row, { status: "failed", statusCode: 410, body: outcome.body, error: outcome.error });
      await this.disable(row, "the destination answered 410 Gone");
      return;
    }
    const delay = row.attempts < row.attempt_limit ? RETRY_DELAYS_MS[row.attempts - 1] : undefined;
    const next = delay === undefined ? null : new Date(now.getTime() + Math.round(delay * (1 + this.jitter * (Math.random() * 2 - 1))));
    await this.finish(row, { status: next ? "pending" : "failed", statusCode: outcome.status, body: outcome.body, error: outcome.error, next });
    const [failing] = (await this.dataSource.query(
      `UPDATE "webhooks" SET "failing_since" = COALESCE("failing_since", $2) WHERE "id" = $1 RETURNING "failing_since"`,
      [row.webhook_id, now],
    )) as [Array<{ failing_since: Date }>, number];
    const since = failing[0]?.failing_since;
    if (since && now.getTime() - since.getTime() >= DISABLE_AFTER_MS) await this.disable(row, "every delivery failed for 5 days");
  }

  /**
   * The circuit breaker's count, after each attempt. No complete answer (a
   * timeout, a refused or broken connection) counts towards opening it; the
   * `breakerFailures`-th in a row, when it is not open already, opens it for a
   * cool-down that doubles each time it reopens without an answer between (a
   * failed probe). Any complete answer, even an error status, closes it: the
   * destination is up, and per-delivery retries handle the rest. Refusals by the
   * address guard never reach the network and change nothing.
   */
  private async recordReach(row: Claimed, outcome: Outcome): Promise<void> {
    if (outcome.ok || (outcome.status !== null && !outcome.unanswered)) {
      // The common case, a healthy webhook answering, costs no statement.
      if (row.breaker_clean) return;
      await this.dataSource.query(
        `UPDATE "webhooks" SET "breaker_failures" = 0, "breaker_open_until" = NULL, "breaker_trips" = 0
          WHERE "id" = $1 AND ("breaker_failures" > 0 OR "breaker_open_until" IS NOT NULL OR "breaker_trips" > 0)`,
        [row.webhook_id],
      );
      return;
    }
    if (!outcome.unanswered) return;
    const now = this.clock();
    const [changed] = (await this.dataSource.query(
      `WITH "before" AS (
         SELECT "id", "breaker_trips", "breaker_failures" + 1 >= $2 AND ("breaker_open_until" IS NULL OR "breaker_open_until" <= $3) AS "opens"
           FROM "webhooks" WHERE "id" = $1 FOR NO KEY UPDATE)
       UPDATE "webhooks" "w"
          SET "breaker_failures" = "w"."breaker_failures" + 1,
              "breaker_open_until" = CASE WHEN "before"."opens"
                THEN $3::timestamptz + LEAST($4::float8 * power(2, LEAST("before"."breaker_trips", 20)), $5::float8) * interval '1 millisecond'
                ELSE "w"."breaker_open_until" END,
              "breaker_trips" = "w"."breaker_trips" + CASE WHEN "before"."opens" THEN 1 ELSE 0 END
         FROM "before" WHERE "w"."id" = "before"."id"
       RETURNING "before"."opens", "w"."breaker_open_until"`,
      [row.webhook_id, this.breakerFailures, now, this.breakerCooldownMs, BREAKER_MAX_COOLDOWN_MS],
    )) as [Array<{ opens: boolean; breaker_open_until: Date }>, number];
    if (changed[0]?.opens) this.logger.warn({ webhook: row.webhook_id, until: changed[0].breaker_open_until }, "webhook destination gives no answer; its deliveries are paused");
  }

  /**
   * The outcome, written only while this process still holds the claim. The
   * receiver's text goes through `storable`: a write that fails leaves the claim to
   * lapse and the event is sent again, so nothing a receiver answers may fail it.
   */
  private async finish(
    row: Claimed,
    outcome: { status: "delivered" | "pending" | "failed"; statusCode?: number | null; body?: string | null; error?: string; next?: Date | null },
  ): Promise<void> {
    this.options.onOutcome?.(outcome.status === "delivered" ? "delivered" : outcome.status === "pending" ? "retry" : "failed");
    await this.dataSource.query(
      `UPDATE "webhook_deliveries"
          SET "status" = $3, "last_status_code" = $4, "last_response_body" = $5, "last_error" = $6,
              "next_attempt_at" = $7, "delivered_at" = CASE WHEN $3 = 'delivered' THEN now() ELSE "delivered_at" END,
              "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = $1 AND "lease_token" = $2`,
      [row.id, row.lease_token, outcome.status, outcome.statusCode ?? null, storable(outcome.body), storable(outcome.error), outcome.next ?? null],
    );
  }

  /** Ends a delivery whose attempts are used up without sending it again; the claim's attempt is taken back. */
  private async giveUp(row: Claimed): Promise<void> {
    this.options.onOutcome?.("failed");
    await this.endUntried(this.dataSource.manager, row, "failed", `gave up after ${row.attempt_limit} attempts; the outcome of the last one could not be recorded`);
  }

  /**
   * A delivery of a disabled webhook waits, `paused` and untried, until the webhook is
   * enabled again. The webhook row is read under a share lock, so a concurrent
   * enabling either sees this delivery paused (and resumes it) or is seen here.
   */
  private async pause(row: Claimed): Promise<void> {
    const enabledMeanwhile = await this.dataSource.transaction(async (manager) => {
      const [webhook] = (await manager.query(`SELECT "enabled" FROM "webhooks" WHERE "id" = $1 FOR SHARE`, [row.webhook_id])) as Array<{ enabled: boolean }>;
      if (webhook?.enabled) return true;
      await this.endUntried(manager, row, "paused", null);
      return false;
    });
    if (enabledMeanwhile) await this.release(row);
  }

  /** Lets a claimed delivery go, untried and its attempt not counted, for the next claim to take. */
  private async release(row: Claimed): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhook_deliveries" SET "attempts" = "attempts" - 1, "locked_until" = NULL, "lease_token" = NULL WHERE "id" = $1 AND "lease_token" = $2`,
      [row.id, row.lease_token],
    );
  }

  /** Writes an end state for a claimed delivery that was not sent: its claim's attempt is not counted, and nothing is due. */
  private async endUntried(manager: EntityManager, row: Claimed, status: "failed" | "paused", error: string | null): Promise<void> {
    await manager.query(
      `UPDATE "webhook_deliveries"
          SET "status" = $3, "last_error" = COALESCE($4, "last_error"), "attempts" = "attempts" - 1,
              "next_attempt_at" = NULL, "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = $1 AND "lease_token" = $2`,
      [row.id, row.lease_token, status, error],
    );
  }

  private async disable(row: Claimed, reason: string): Promise<void> {
    const changed = await this.dataSource.transaction(async (manager) => {
      const [updated] = (await manager.query(
        `UPDATE "webhooks" SET "enabled" = false, "disabled_reason" = $2 WHERE "id" = $1 AND "enabled" RETURNING "id"`,
        [row.webhook_id, reason],
      )) as [Array<{ id: string }>, number];
      if (updated.length === 0) return false;
      await this.events.record(manager, "webhook.disabled", { accountId: row.account_id, webhookId: row.webhook_id, reason });
      return true;
    });
    if (changed) this.logger.warn({ webhook: row.webhook_id, reason }, "webhook disabled");
  }

  /** `data` of the delivery body: what the receiver needs, nothing internal. */
  private payload(row: Claimed): Record<string, unknown> {
    const data = row.event_data;
    switch (row.event_type) {
      case "score.completed":
        return {
          id: data.resultId,
          url: data.url,
          totalScore: data.totalScore,
          stageName: data.stageName,
          framework: data.framework,
          frameworkVersion: data.frameworkVersion ?? null,
          productId: data.productId ?? null,
          shareUrl: `${this.options.publicBaseUrl}/r/${String(data.resultId)}`,
        };
      case "subscription.changed":
        return { accountId: data.accountId, previousPlan: data.previousPlan, plan: data.plan, reason: data.reason, effectiveAt: row.occurred_at.toISOString() };
      case "webhook.test":
        return { webhookId: row.webhook_id, message: "A test event sent from the API." };
      default:
        return {};
    }
  }

  /** One POST: HTTPS only, through the address guard, no redirects, 10 s to connect and 10 s to answer, 30 s in all, at most 4 KiB of the answer read. */
  private async post(target: string, headers: Record<string, string>, body: string): Promise<Outcome> {
    let url: URL;
    try {
      url = new URL(target);
      if (url.protocol !== "https:") return { ok: false, status: null, body: null, error: "the destination is not https" };
      this.guard.checkUrl(url);
    } catch (error) {
      return { ok: false, status: null, body: null, error: error instanceof RefusedAddressError ? error.message : "the destination is not a valid URL" };
    }
    return new Promise<Outcome>((resolve) => {
      let status: number | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      const stream = got.stream.post(url, {
        body,
        headers,
        dnsLookup: this.guard.lookup as never,
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { lookup: TIMEOUT_MS, connect: TIMEOUT_MS, secureConnect: TIMEOUT_MS, response: TIMEOUT_MS, read: TIMEOUT_MS, request: REQUEST_TIMEOUT_MS },
      });
      const done = (outcome: Outcome) => {
        stream.destroy();
        resolve(outcome);
      };
      const text = () => Buffer.concat(chunks).toString("utf8").slice(0, MAX_STORED_RESPONSE);
      const answered = () => {
        if (status !== null && status >= 200 && status < 300) done({ ok: true, status, body: text() });
        else done({ ok: false, status, body: text(), error: status === null ? "no answer" : status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}` });
      };
      stream.on("response", (response: { statusCode: number }) => (status = response.statusCode));
      stream.on("data", (chunk: Buffer) => {
        chunks.push(chunk.subarray(0, MAX_STORED_RESPONSE - kept));
        kept += Math.min(chunk.length, MAX_STORED_RESPONSE - kept);
        // The status decided the outcome and the excerpt is full: the rest (a large or endless body, a decompression bomb) is not read.
        if (kept >= MAX_STORED_RESPONSE) answered();
      });
      stream.on("end", answered);
      stream.on("error", (error: Error & { code?: string }) => {
        const refused = error instanceof RefusedAddressError || error.code === "ERR_REFUSED_ADDRESS" || (error.cause as { code?: string } | undefined)?.code === "ERR_REFUSED_ADDRESS";
        done({ ok: false, status, body: chunks.length > 0 ? text() : null, error: refused ? error.message : `${error.code ?? "error"}: ${error.message}`.slice(0, 500), unanswered: !refused });
      });
    });
  }
}
