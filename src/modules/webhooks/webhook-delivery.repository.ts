import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { keysetPage } from "../../db/keyset-page.js";
import { WebhookDelivery } from "./webhook.entity.js";

/** The API's side of `webhook_deliveries`: listing, test events' deliveries, replays, and resuming paused ones. */
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The webhook's paused deliveries are due now (it was turned back on). */
  async resumePaused(tx: Transaction, webhookId: string): Promise<void> {
    await tx.query(
      `UPDATE "webhook_deliveries" SET "status" = 'pending', "next_attempt_at" = now() WHERE "webhook_id" = $1 AND "status" = 'paused'`,
      [webhookId],
    );
  }

  /** The webhook's delivery of this id, or null. */
  findOfWebhook(webhookId: string, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.getRepository(WebhookDelivery).findOneBy({ id, webhookId });
  }

  /** The delivery the event made for the webhook (recorded in `tx`). */
  ofEvent(tx: Transaction, eventId: string, webhookId: string): Promise<WebhookDelivery> {
    return tx.findOneByOrFail(WebhookDelivery, { eventId, webhookId });
  }

  get(tx: Transaction, id: string): Promise<WebhookDelivery> {
    return tx.findOneByOrFail(WebhookDelivery, { id });
  }

  /** The webhook's deliveries, newest first, keyset-paginated. */
  async pageOfWebhook(
    webhookId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: WebhookDelivery[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder("delivery")
      .where("delivery.webhook_id = :id", { id: webhookId });
    return keysetPage(query, "delivery", limit, cursor);
  }

  /**
   * Makes the delivery `pending` (due now) or `paused` again, its lease dropped and
   * one more attempt allowed when its attempts are used up. Only while no live lease
   * holds it (none, or a lapsed one): false when a dispatcher holds it.
   */
  async replay(tx: Transaction, id: string, webhookId: string, status: "pending" | "paused"): Promise<boolean> {
    const [rows] = (await tx.query(
      `UPDATE "webhook_deliveries"
          SET "status" = $3, "next_attempt_at" = CASE WHEN $3 = 'pending' THEN now() END,
              "attempt_limit" = GREATEST("attempt_limit", "attempts" + 1), "locked_until" = NULL, "lease_token" = NULL
        WHERE "id" = $1 AND "webhook_id" = $2 AND ("lease_token" IS NULL OR "locked_until" < now())
        RETURNING "id"`,
      [id, webhookId, status],
    )) as [Array<{ id: string }>, number];
    return rows.length > 0;
  }
}
