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
   * Of those, at most this many to one webhook (default 5): a slow or hanging
   * destination holds a few slots until its timeouts, never the others' deliveries.
   */
  readonly perWebhook?: number;
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
}

/**
 * Text Postgres will store: a receiver's answer may hold NUL, which `text` refuses
 * (invalid UTF-8 was already replaced when the bytes were decoded).
 */
const storable = (text: string | null | undefined): string | null => (text == null ? null : text.replaceAll("\0", "\uFFFD"));

type Outcome = { readonly ok: true; readonly status: number; readonly body: string } | { readonly ok: false; readonly status: number | null; readonly body: string | null; readonly error: string };

/**
 * Delivers webhook events at least once (DESIGN.md §7, Standard Webhooks). Every
 * process may run one: due deliveries are claimed with `FOR UPDATE SKIP LOCKED` and
 * a fenced lease (a token every outcome write is conditional on), so several
 * processes deliver each event once and a crashed one's claims lapse and are taken
 * again. Destinations go through the crawler's address guard at connection time
 * (DNS rebinding included); redirects are not followed.
 *
 * Deliveries run in a pool, not in batches: a slot freed by one delivery is
 * filled at once, and one webhook holds at most `perWebhook` slots, so a
 * destination that hangs until its timeouts delays only its own deliveries.
 */
export class WebhookDispatcher {
  private readonly clock: () => Date;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly perWebhook: number;
  private readonly jitter: number;
  private timer: NodeJS.Timeout | undefined;
  /** The claiming pass under way, if any (one at a time per process). */
  private filling: Promise<void> | undefined;
  private again = false;
  /** Deliveries under way in this process, and how many of them each webhook has. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly busy = new Map<string, number>();
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
   * Claims due deliveries into the free slots and starts each. A webhook already
   * at `perWebhook` is not claimed for; claimed deliveries beyond its share in one
   * pass are handed back at once (attempt not counted) and the pass claims again
   * without it, so a webhook's backlog cannot fill the pool. Bounded: every
   * repeat leaves one more webhook out.
   */
  private async fill(): Promise<void> {
    while (!this.stopped) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) return;
      const full = [...this.busy].filter(([, count]) => count >= this.perWebhook).map(([id]) => id);
      const rows = await this.claim(free, full);
      if (rows.length === 0) return;
      const handedBack: Claimed[] = [];
      for (const row of rows) {
        const count = this.busy.get(row.webhook_id) ?? 0;
        if (count >= this.perWebhook) handedBack.push(row);
        else this.begin(row, count);
      }
      if (handedBack.length > 0) await this.handBack(handedBack);
      // Fewer than asked and none handed back: nothing more is due now.
      else if (rows.length < free) return;
    }
  }

  private begin(row: Claimed, count: number): void {
    this.busy.set(row.webhook_id, count + 1);
    const delivery: Promise<void> = this.deliver(row)
      .catch((error: unknown) => this.logger.warn({ err: error, delivery: row.id }, "could not record a webhook delivery; its claim lapses and it is retried"))
      .finally(() => {
        this.inFlight.delete(delivery);
        const left = (this.busy.get(row.webhook_id) ?? 1) - 1;
        if (left > 0) this.busy.set(row.webhook_id, left);
        else this.busy.delete(row.webhook_id);
        this.wake();
      });
    this.inFlight.add(delivery);
  }

  /** Claims up to `limit` due deliveries, none of the `except` webhooks, with a fenced lease; earliest due first. */
  private async claim(limit: number, except: readonly string[]): Promise<Claimed[]> {
    const now = this.clock();
    const token = randomUUID();
    const [claimed] = (await this.dataSource.query(
      `WITH "due" AS (
         SELECT "id" FROM "webhook_deliveries"
          WHERE "status" = 'pending' AND "next_attempt_at" <= $1 AND ("locked_until" IS NULL OR "locked_until" < $1)
            AND NOT ("webhook_id" = ANY($5::uuid[]))
          ORDER BY "next_attempt_at" LIMIT $4 FOR UPDATE SKIP LOCKED)
       UPDATE "webhook_deliveries" "d" SET "attempts" = "d"."attempts" + 1, "locked_until" = $2, "lease_token" = $3
         FROM "due" WHERE "d"."id" = "due"."id"
       RETURNING "d"."id"`,
      [now, new Date(now.getTime() + this.leaseMs), token, limit, except],
    )) as [Array<{ id: string }>, number];
    if (claimed.length === 0) return [];
    return (await this.dataSource.query(
      `SELECT "d"."id", "d"."lease_token", "d"."attempts", "d"."attempt_limit", "d"."event_id", "d"."event_type",
              "e"."data" AS "event_data", "e"."occurred_at", "w"."id" AS "webhook_id", "w"."account_id", "w"."url", "w"."enabled",
              "w"."secret", "w"."previous_secret", "w"."previous_secret_expires_at"
         FROM "webhook_deliveries" "d" JOIN "domain_events" "e" ON "e"."id" = "d"."event_id" JOIN "webhooks" "w" ON "w"."id" = "d"."webhook_id"
        WHERE "d"."id" = ANY($1) AND "d"."lease_token" = $2
        ORDER BY "d"."next_attempt_at", "d"."id"`,
      [claimed.map((row) => row.id), token],
    )) as Claimed[];
  }

  /** Returns claimed deliveries untried: the claim's attempt is taken back and they are due again at once. */
  private async handBack(rows: readonly Claimed[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhook_deliveries" SET "attempts" = "attempts" - 1, "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = ANY($1) AND "lease_token" = $2`,
      [rows.map((row) => row.id), rows[0]!.lease_token],
    );
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
    if (enabledMeanwhile) await this.handBack([row]);
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
        done({ ok: false, status, body: chunks.length > 0 ? text() : null, error: refused ? error.message : `${error.code ?? "error"}: ${error.message}`.slice(0, 500) });
      });
    });
  }
}
