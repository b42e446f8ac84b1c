import type { DataSource } from "typeorm";
import type { AlsoInTransaction, Transaction } from "../../../db/transaction.js";
import { CheckoutSession, type CheckoutProviderName } from "./checkout-session.entity.js";

/** What a checkout is for, as opened before the customer can pay. */
export interface NewCheckoutSession {
  readonly id: string;
  readonly accountId: string;
  readonly userId: string;
  readonly provider: CheckoutProviderName;
  readonly kind: "plan" | "pack";
  readonly item: string;
  readonly expiresAt: Date;
}

/** `checkout_sessions`: one row per checkout, moved open → completed once, under its row lock. */
export class CheckoutSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async open(session: NewCheckoutSession): Promise<void> {
    await this.dataSource.getRepository(CheckoutSession).insert(session);
  }

  /** The provider's session (id, payment page, expiry) once it was created. */
  /** With `alsoInTransaction`, in one commit with that work. */
  async attachProviderSession(
    id: string,
    created: { readonly providerSessionId: string | null; readonly checkoutUrl: string; readonly expiresAt: Date },
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<void> {
    if (!alsoInTransaction) {
      await this.dataSource.getRepository(CheckoutSession).update({ id }, created);
      return;
    }
    await this.dataSource.transaction(async (tx) => {
      await tx.update(CheckoutSession, { id }, created);
      await alsoInTransaction(tx, id);
    });
  }

  /** Takes back a checkout the provider could not create. */
  async discard(id: string): Promise<void> {
    await this.dataSource.getRepository(CheckoutSession).delete({ id });
  }

  /** The account's checkout of this id, read without a lock. */
  findOfAccount(accountId: string, id: string): Promise<CheckoutSession | null> {
    return this.dataSource.getRepository(CheckoutSession).findOneBy({ id, accountId });
  }

  /** A checkout of the given provider, read without a lock. */
  findOf(provider: CheckoutProviderName, id: string): Promise<CheckoutSession | null> {
    return this.dataSource.getRepository(CheckoutSession).findOneBy({ id, provider });
  }

  /** The checkout, locked until `tx` ends: its completion is applied once. */
  lockForCompletion(tx: Transaction, id: string): Promise<CheckoutSession | null> {
    return tx.findOne(CheckoutSession, { where: { id }, lock: { mode: "pessimistic_write" } });
  }

  async save(tx: Transaction, session: CheckoutSession): Promise<void> {
    await tx.save(session);
  }
}
