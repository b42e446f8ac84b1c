import { QueryFailedError, type DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { Webhook } from "./webhook.entity.js";

/** The webhook subscriptions of accounts, as the API creates, reads, changes and deletes them. */
export class WebhookRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serializes creations of one account, so two at once cannot pass the limit: its account row stays locked until `tx` ends. */
  async lockAccountForCreation(tx: Transaction, accountId: string): Promise<void> {
    await tx.query(`SELECT 1 FROM "accounts" WHERE "id" = $1 FOR NO KEY UPDATE`, [accountId]);
  }

  countOfAccount(tx: Transaction, accountId: string): Promise<number> {
    return tx.countBy(Webhook, { accountId });
  }

  /** A new webhook with its secret (see `throwWithoutSecrets` for a write that fails). */
  async insert(
    tx: Transaction,
    fields: Pick<Webhook, "accountId" | "url" | "events" | "enabled" | "secret">,
  ): Promise<Webhook> {
    return tx.save(tx.create(Webhook, fields)).catch(throwWithoutSecrets);
  }

  /** The account's webhooks, newest first. */
  listOfAccount(accountId: string, take: number): Promise<Webhook[]> {
    return this.dataSource
      .getRepository(Webhook)
      .find({ where: { accountId }, order: { createdAt: "DESC", id: "DESC" }, take });
  }

  /** The account's webhook of this id, or null (another account's too). */
  findOfAccount(accountId: string, id: string): Promise<Webhook | null> {
    return this.dataSource.manager.findOne(Webhook, { where: { id, accountId } });
  }

  /** As `findOfAccount`, its row locked (FOR NO KEY UPDATE) until `tx` ends: changes to one webhook take turns. */
  lockOfAccount(tx: Transaction, accountId: string, id: string): Promise<Webhook | null> {
    return tx.findOne(Webhook, { where: { id, accountId }, lock: { mode: "for_no_key_update" } });
  }

  /** Writes the webhook's changed fields, its secrets included (see `throwWithoutSecrets` for a write that fails). */
  async save(tx: Transaction, webhook: Webhook): Promise<Webhook> {
    return tx.save(webhook).catch(throwWithoutSecrets);
  }

  async delete(tx: Transaction, id: string): Promise<void> {
    await tx.delete(Webhook, { id });
  }
}

/**
 * A failed write of a secret rethrows its error without the statement's values:
 * TypeORM's QueryFailedError keeps the bound parameters (the new secret and, in a
 * rotation, the still-live previous one), and PostgreSQL's `detail` can quote the
 * whole row ("Failing row contains …"). Whatever logs the error then has no secret to print.
 */
export function throwWithoutSecrets(error: unknown): never {
  if (error instanceof QueryFailedError) {
    for (const holder of [error, error.driverError] as Array<Record<string, unknown> | undefined>) {
      if (!holder) continue;
      delete holder.parameters;
      delete holder.detail;
    }
  }
  throw error;
}
