import type { DataSource } from "typeorm";
import type { Transaction } from "../../../db/transaction.js";
import { Account } from "../../accounts/account.entity.js";
import { User } from "../../accounts/user.entity.js";

/**
 * The account as checkout reads and changes it (plan, billing anchor, Stripe ids),
 * and a member's e-mail for the provider's payment page.
 */
export class BillingAccountRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account, read without a lock; throws when it does not exist. */
  get(accountId: string): Promise<Account> {
    return this.dataSource.getRepository(Account).findOneByOrFail({ id: accountId });
  }

  async emailOf(userId: string): Promise<string | null> {
    const user = await this.dataSource.getRepository(User).findOneBy({ id: userId });
    return user?.email ?? null;
  }

  /** The account, locked against other changes (not against new references to it) until `tx` ends; throws when missing. */
  lock(tx: Transaction, accountId: string): Promise<Account> {
    return tx.findOneOrFail(Account, { where: { id: accountId }, lock: { mode: "for_no_key_update" } });
  }

  /** The account whose current Stripe subscription this is, locked like `lock`; null when none is. */
  lockBySubscription(tx: Transaction, subscriptionId: string): Promise<Account | null> {
    return tx.findOne(Account, { where: { stripeSubscriptionId: subscriptionId }, lock: { mode: "for_no_key_update" } });
  }

  async save(tx: Transaction, account: Account): Promise<void> {
    await tx.save(account);
  }
}
