import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { Account, type PlanId } from "./account.entity.js";

/** The `accounts` table: the owner of every stored resource and the plan it is on. */
export class AccountRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account (a member's always exists; a missing one is an error, not NOT_FOUND). */
  get(accountId: string): Promise<Account> {
    return this.dataSource.getRepository(Account).findOneByOrFail({ id: accountId });
  }

  /**
   * The account, its row locked until the transaction ends: what serializes the
   * changes counted against its plan (seats, products). FOR NO KEY UPDATE leaves
   * rows that only reference the account (their foreign-key checks) unblocked.
   */
  lock(tx: Transaction, accountId: string): Promise<Account> {
    return tx.findOneOrFail(Account, { where: { id: accountId }, lock: { mode: "for_no_key_update" } });
  }

  /** The account whose current Stripe subscription this is, locked like `lock`; null when none is. */
  lockBySubscription(tx: Transaction, subscriptionId: string): Promise<Account | null> {
    return tx.findOne(Account, {
      where: { stripeSubscriptionId: subscriptionId },
      lock: { mode: "for_no_key_update" },
    });
  }

  /** Writes the account's changed fields (plan, billing anchor, Stripe ids). */
  async save(tx: Transaction, account: Account): Promise<void> {
    await tx.save(account);
  }

  /** A new account; its id. */
  async create(
    tx: Transaction,
    fields: { name: string; plan: PlanId; billingCycleAnchor: Date; apiVersion: string },
  ): Promise<string> {
    return (await tx.save(tx.create(Account, fields))).id;
  }
}
