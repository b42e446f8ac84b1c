import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Transactions } from "../../db/transaction.js";
import type { DomainEvents } from "../../events/domain-events.js";
import type { AddressGuard } from "../crawl/address-guard.js";
import { signatureHeader } from "./signature.js";
import type { WebhookHealthRepository } from "./webhook-health.repository.js";
import type { ClaimedDelivery, DeliveryOutcome, WebhookLeaseRepository } from "./webhook-lease.repository.js";
import { deliveryData, postDelivery, type Outcome } from "./webhook-request.js";

export { MAX_STORED_RESPONSE } from "./webhook-request.js";

/** Waits before attempts 2…8 after a failure: about a day in all (Standard Webhooks' schedule, shortened at the start). */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;
/** A webhook failing every delivery this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** The longest a circuit breaker stays open before its next probe, however often it reopened. */
const BREAKER_MAX_COOLDOWN_MS = 3_600_000;
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

/**
 * Delivers webhook events at least once (docs/api.md §7, Standard Webhooks). Every
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
    private readonly leases: WebhookLeaseRepository,
    private readonly health: WebhookHealthRepository,
    private readonly transactions: Transactions,
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
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, "webhook delivery pass failed; the next pass retries"),
      )
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

  private begin(row: ClaimedDelivery): void {
    const delivery: Promise<void> = this.deliver(row)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, delivery: row.id },
          "could not record a webhook delivery; its claim lapses and it is retried",
        ),
      )
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
   * committed before those locks, the claim itself (`lease`). The try-lock
   * makes count-then-claim of one account atomic across processes, so its share
   * holds; a process never waits on another for it, it leaves that account to it.
   */
  private async claim(limit: number): Promise<{ rows: ClaimedDelivery[]; contended: boolean }> {
    const now = this.clock();
    const token = randomUUID();
    const shares = { perWebhook: this.perWebhook, perAccount: this.perAccount };
    const { rows, contended } = await this.transactions.run(async (tx) => {
      const accounts = await this.leases.nextAccounts(tx, now, limit, shares);
      const mine = accounts.filter((account) => account.locked).map((account) => account.account_id);
      const rows =
        mine.length === 0
          ? []
          : await this.leases.lease(
              tx,
              mine,
              { now, until: new Date(now.getTime() + this.leaseMs), token },
              limit,
              shares,
            );
      return { rows, contended: mine.length < accounts.length };
    });
    return { rows, contended };
  }

  private async deliver(row: ClaimedDelivery): Promise<void> {
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
    const body = JSON.stringify({
      type: row.event_type,
      timestamp: row.occurred_at.toISOString(),
      data: deliveryData(row, this.options.publicBaseUrl),
    });
    const timestamp = Math.floor(now.getTime() / 1000);
    const secrets = [row.secret];
    if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now)
      secrets.push(row.previous_secret);
    const outcome = await postDelivery(
      this.guard,
      row.url,
      {
        "content-type": "application/json",
        "user-agent": "ProductMaturityScoring-Webhooks/1.0",
        "webhook-id": row.event_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, row.event_id, timestamp, body),
      },
      body,
    );
    await this.recordReach(row, outcome);

    if (outcome.ok) {
      await this.finish(row, { status: "delivered", statusCode: outcome.status, body: outcome.body });
      await this.health.clearFailing(row.webhook_id);
      return;
    }
    if (outcome.status === 410) {
      await this.finish(row, { status: "failed", statusCode: 410, body: outcome.body, error: outcome.error });
      await this.disable(row, "the destination answered 410 Gone");
      return;
    }
    const delay = row.attempts < row.attempt_limit ? RETRY_DELAYS_MS[row.attempts - 1] : undefined;
    const next =
      delay === undefined
        ? null
        : new Date(now.getTime() + Math.round(delay * (1 + this.jitter * (Math.random() * 2 - 1))));
    await this.finish(row, {
      status: next ? "pending" : "failed",
      statusCode: outcome.status,
      body: outcome.body,
      error: outcome.error,
      next,
    });
    const since = await this.health.markFailing(row.webhook_id, now);
    if (since && now.getTime() - since.getTime() >= DISABLE_AFTER_MS)
      await this.disable(row, "every delivery failed for 5 days");
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
  private async recordReach(row: ClaimedDelivery, outcome: Outcome): Promise<void> {
    if (outcome.ok || (outcome.status !== null && !outcome.unanswered)) {
      // The common case, a healthy webhook answering, costs no statement.
      if (row.breaker_clean) return;
      await this.health.closeBreaker(row.webhook_id);
      return;
    }
    if (!outcome.unanswered) return;
    const changed = await this.health.countUnanswered(row.webhook_id, this.clock(), {
      threshold: this.breakerFailures,
      cooldownMs: this.breakerCooldownMs,
      maxCooldownMs: BREAKER_MAX_COOLDOWN_MS,
    });
    if (changed?.opens)
      this.logger.warn(
        { webhook: row.webhook_id, until: changed.breaker_open_until },
        "webhook destination gives no answer; its deliveries are paused",
      );
  }

  /** The outcome, written only while this process still holds the claim (the lease's token), and counted. */
  private async finish(row: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
    this.options.onOutcome?.(
      outcome.status === "delivered" ? "delivered" : outcome.status === "pending" ? "retry" : "failed",
    );
    await this.leases.recordOutcome(row, outcome);
  }

  /** Ends a delivery whose attempts are used up without sending it again; the claim's attempt is taken back. */
  private async giveUp(row: ClaimedDelivery): Promise<void> {
    this.options.onOutcome?.("failed");
    await this.leases.endUntried(
      null,
      row,
      "failed",
      `gave up after ${row.attempt_limit} attempts; the outcome of the last one could not be recorded`,
    );
  }

  /**
   * A delivery of a disabled webhook waits, `paused` and untried, until the webhook is
   * enabled again. The webhook row is read under a share lock, so a concurrent
   * enabling either sees this delivery paused (and resumes it) or is seen here.
   */
  private async pause(row: ClaimedDelivery): Promise<void> {
    const enabledMeanwhile = await this.transactions.run(async (tx) => {
      if (await this.health.isEnabledLocked(tx, row.webhook_id)) return true;
      await this.leases.endUntried(tx, row, "paused", null);
      return false;
    });
    if (enabledMeanwhile) await this.leases.release(row);
  }

  private async disable(row: ClaimedDelivery, reason: string): Promise<void> {
    const changed = await this.transactions.run(async (tx) => {
      if (!(await this.health.disable(tx, row.webhook_id, reason))) return false;
      await this.events.record(tx, "webhook.disabled", {
        accountId: row.account_id,
        webhookId: row.webhook_id,
        reason,
      });
      return true;
    });
    if (changed) this.logger.warn({ webhook: row.webhook_id, reason }, "webhook disabled");
  }
}
