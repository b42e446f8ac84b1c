import type { Transaction } from "../db/transaction.js";
import { DomainEventRecord } from "./domain-event.entity.js";

/**
 * Delivery rows of event $1 (kind $2) for the webhooks `where` picks. A disabled
 * webhook's row is `paused`, not left out: it is sent once the webhook is enabled
 * again, so a pause (or a 410 from a misconfigured proxy) loses no event. The
 * share lock orders this with an enabling at the same time: that one either comes
 * first (the row is pending) or waits and then finds the row paused to resume.
 */
const insertDeliveries = (
  where: string,
) => `INSERT INTO "webhook_deliveries" ("event_id", "webhook_id", "event_type", "status", "next_attempt_at")
  SELECT $1, "id", $2, CASE WHEN "enabled" THEN 'pending' ELSE 'paused' END, CASE WHEN "enabled" THEN now() END
    FROM "webhooks" WHERE ${where} FOR SHARE`;

/**
 * The outbox: `domain_events` rows and the `webhook_deliveries` rows written with
 * them. Every write joins the caller's transaction (an event exists exactly when the
 * change it announces committed), so it needs no connection of its own.
 */
export class DomainEventRepository {
  /** Writes the event; returns its row (id and time of occurrence). */
  append(tx: Transaction, type: string, accountId: string, data: Record<string, unknown>): Promise<DomainEventRecord> {
    return tx.save(Object.assign(new DomainEventRecord(), { type, accountId, data }));
  }

  /** One delivery row per webhook of the account subscribed to the event's kind. */
  async addDeliveriesForSubscribers(tx: Transaction, eventId: string, type: string, accountId: string): Promise<void> {
    await tx.query(insertDeliveries(`"account_id" = $3 AND $2 = ANY("events")`), [eventId, type, accountId]);
  }

  /** One delivery row for the webhook named, if it is the account's. */
  async addDeliveryForWebhook(
    tx: Transaction,
    eventId: string,
    type: string,
    webhookId: string,
    accountId: string,
  ): Promise<void> {
    await tx.query(insertDeliveries(`"id" = $3 AND "account_id" = $4`), [eventId, type, webhookId, accountId]);
  }
}
