import type { DataSource } from "typeorm";

/** Delivered (or given up) events are kept this long in the outbox, with their delivery log. */
export const OUTBOX_RETENTION_MS = 30 * 24 * 3_600_000;
const PURGE_BATCH = 1_000;

/** The outbox's retention: old events that nothing waits on leave with their delivery log. */
export class OutboxRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Deletes outbox events older than 30 days that no delivery still waits on (their
   * delivery rows go with them), a batch at a time so no statement is unbounded;
   * returns how many.
   */
  async purgeDelivered(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - OUTBOX_RETENTION_MS);
    let purged = 0;
    for (;;) {
      const [rows]: [unknown[], number] = await this.dataSource.query(
        `DELETE FROM "domain_events" WHERE "id" IN (
           SELECT "e"."id" FROM "domain_events" "e"
            WHERE "e"."occurred_at" < $1
              AND NOT EXISTS (SELECT 1 FROM "webhook_deliveries" "d" WHERE "d"."event_id" = "e"."id" AND "d"."status" = 'pending')
            LIMIT $2)
         RETURNING "id"`,
        [cutoff, PURGE_BATCH],
      );
      purged += rows.length;
      if (rows.length < PURGE_BATCH) return purged;
    }
  }
}
