import type { Transaction } from "../../../db/transaction.js";
import { ProviderEvent } from "./provider-event.entity.js";

/**
 * `provider_events`: the provider webhook events already applied. An event's id is
 * recorded in the transaction of its effect, so a redelivered or replayed event
 * changes nothing; every write joins the caller's transaction.
 */
export class ProviderEventRepository {
  /** Records the event; false when it was recorded before (nothing written). */
  async recordFirstDelivery(
    tx: Transaction,
    event: { readonly provider: string; readonly id: string; readonly type: string },
  ): Promise<boolean> {
    const inserted = await tx
      .createQueryBuilder()
      .insert()
      .into(ProviderEvent)
      .values({ provider: event.provider, id: event.id, type: event.type })
      .orIgnore()
      .returning(["id"])
      .execute();
    return inserted.raw.length > 0;
  }
}
