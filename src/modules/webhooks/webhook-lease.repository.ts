import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";

/** Namespace (first key) of the per-account advisory locks a claim takes, apart from any other advisory lock. */
const CLAIM_LOCK_SPACE = 0x77686b73;

/** A leased delivery, with what sending it needs from its event and webhook. */
export interface ClaimedDelivery {
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

/** In flight at once, counted over every process from the leased rows. */
export interface DeliveryShares {
  readonly perWebhook: number;
  readonly perAccount: number;
}

export interface DeliveryOutcome {
  readonly status: "delivered" | "pending" | "failed";
  readonly statusCode?: number | null;
  readonly body?: string | null;
  readonly error?: string;
  readonly next?: Date | null;
}

/**
 * Text Postgres will store: a receiver's answer may hold NUL, which `text` refuses
 * (invalid UTF-8 was already replaced when the bytes were decoded).
 */
const storable = (text: string | null | undefined): string | null =>
  text == null ? null : text.replaceAll("\0", "\uFFFD");

/**
 * The dispatcher's side of `webhook_deliveries`: claims with a fenced lease (a
 * token every outcome write is conditional on, so a write after the claim lapsed
 * and was taken again changes nothing), and the outcome writes.
 */
export class WebhookLeaseRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The accounts next in line, at most `limit` (no more can be served in one
   * pass, so no more are locked), and whether this transaction holds each one's
   * claim lock. In line: a due delivery on a webhook under its share whose
   * breaker is not open, and the account under its share; fewest in flight
   * first, then oldest due. Bounded by the webhooks that have claimable pending
   * deliveries, not by the deliveries: one index probe each (a loose index scan
   * of `IDX_webhook_deliveries_pending`), which also gives its earliest next
   * attempt. In flight is counted from the leased rows, a few per process. The
   * claim lock is a transaction-scoped advisory try-lock: it is held until `tx`
   * ends, and a process never waits on another for it.
   */
  async nextAccounts(
    tx: Transaction,
    now: Date,
    limit: number,
    shares: DeliveryShares,
  ): Promise<Array<{ account_id: string; locked: boolean }>> {
    return (await tx.query(
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
      [now, CLAIM_LOCK_SPACE, limit, shares.perWebhook, shares.perAccount],
    )) as Array<{ account_id: string; locked: boolean }>;
  }

  /**
   * Leases due deliveries of these accounts (their claim locks held by `tx`) until
   * `until`, under `token`, each claim counting an attempt. Each webhook offers
   * its oldest due deliveries up to its free share (one, as the probe, when its
   * breaker's cool-down is over); an account's k-th offer after the n it has in
   * flight takes turn n + k, turns past the account's share are dropped, and the
   * lowest turns win: round-robin by account, the fewest in flight first. Rows
   * another claim holds are skipped (`FOR UPDATE SKIP LOCKED`), never waited for.
   * Earliest due first.
   */
  async lease(
    tx: Transaction,
    accounts: readonly string[],
    lease: { readonly now: Date; readonly until: Date; readonly token: string },
    limit: number,
    shares: DeliveryShares,
  ): Promise<ClaimedDelivery[]> {
    const { now, until, token } = lease;
    const [claimed] = (await tx.query(
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
      [now, until, token, limit, shares.perAccount, shares.perWebhook, accounts],
    )) as [Array<ClaimedDelivery & { next_attempt_at: Date }>, number];
    // Earliest due first, as they were picked (RETURNING keeps no order).
    return claimed.sort(
      (a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }

  /**
   * The outcome of an attempt, written only while the lease is still this one's.
   * The receiver's text goes through `storable`: a write that fails leaves the claim to
   * lapse and the event is sent again, so nothing a receiver answers may fail it.
   */
  async recordOutcome(row: Pick<ClaimedDelivery, "id" | "lease_token">, outcome: DeliveryOutcome): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhook_deliveries"
          SET "status" = $3, "last_status_code" = $4, "last_response_body" = $5, "last_error" = $6,
              "next_attempt_at" = $7, "delivered_at" = CASE WHEN $3 = 'delivered' THEN now() ELSE "delivered_at" END,
              "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = $1 AND "lease_token" = $2`,
      [
        row.id,
        row.lease_token,
        outcome.status,
        outcome.statusCode ?? null,
        storable(outcome.body),
        storable(outcome.error),
        outcome.next ?? null,
      ],
    );
  }

  /** Lets a claimed delivery go, untried and its attempt not counted, for the next claim to take. */
  async release(row: Pick<ClaimedDelivery, "id" | "lease_token">): Promise<void> {
    await this.dataSource.query(
      `UPDATE "webhook_deliveries" SET "attempts" = "attempts" - 1, "locked_until" = NULL, "lease_token" = NULL WHERE "id" = $1 AND "lease_token" = $2`,
      [row.id, row.lease_token],
    );
  }

  /**
   * Writes an end state for a claimed delivery that was not sent: its claim's attempt
   * is not counted, and nothing is due. In `tx` when given, else on its own.
   */
  async endUntried(
    tx: Transaction | null,
    row: Pick<ClaimedDelivery, "id" | "lease_token">,
    status: "failed" | "paused",
    error: string | null,
  ): Promise<void> {
    await (tx ?? this.dataSource.manager).query(
      `UPDATE "webhook_deliveries"
          SET "status" = $3, "last_error" = COALESCE($4, "last_error"), "attempts" = "attempts" - 1,
              "next_attempt_at" = NULL, "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = $1 AND "lease_token" = $2`,
      [row.id, row.lease_token, status, error],
    );
  }
}
