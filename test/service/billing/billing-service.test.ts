import type Stripe from "stripe";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions } from "../../../src/db/transaction.js";
import { DomainEventRepository } from "../../../src/events/domain-event.repository.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { UserRepository } from "../../../src/modules/accounts/user.repository.js";
import { BillingService } from "../../../src/modules/billing/checkout/billing.service.js";
import { CheckoutSessionRepository } from "../../../src/modules/billing/checkout/checkout-session.repository.js";
import { LocalCheckoutProvider } from "../../../src/modules/billing/checkout/local-provider.js";
import { ProviderEventRepository } from "../../../src/modules/billing/checkout/provider-event.repository.js";
import { CreditBalanceRepository } from "../../../src/modules/billing/credit-balance.repository.js";
import { CreditEntryRepository } from "../../../src/modules/billing/credit-entry.repository.js";
import { CreditLedger } from "../../../src/modules/billing/ledger.service.js";
import { openClonedDatabase } from "../../support/database.js";
import { createAccount } from "./support.js";

/** BillingService over its real repositories (and a real ledger) on a cloned database. */
let dataSource: DataSource;
let close: () => Promise<void>;
let ledger: CreditLedger;
let billing: BillingService;

const silent = { error: () => undefined, warn: () => undefined };

beforeAll(async () => {
  ({ dataSource, close } = await openClonedDatabase());
  const transactions = new Transactions(dataSource);
  ledger = new CreditLedger(
    new CreditEntryRepository(dataSource),
    new CreditBalanceRepository(dataSource),
    transactions,
  );
  billing = new BillingService(
    new CheckoutSessionRepository(dataSource),
    new ProviderEventRepository(),
    new AccountRepository(dataSource),
    new UserRepository(dataSource),
    transactions,
    ledger,
    new DomainEvents(silent, new DomainEventRepository()),
    new LocalCheckoutProvider("http://billing.test"),
    silent,
  );
});
afterAll(async () => {
  await close?.();
});

/** A Stripe completion event of our checkout (only the fields the service reads). */
const completion = (eventId: string, checkoutId: string) =>
  ({
    id: eventId,
    type: "checkout.session.completed",
    data: {
      object: {
        payment_status: "paid",
        client_reference_id: checkoutId,
        subscription: null,
        customer: "cus_service_test",
      },
    },
  }) as unknown as Stripe.Event;

describe("BillingService", () => {
  it("applies a provider event delivered twice once: the pack's credits are added once", async () => {
    const member = await createAccount(dataSource, "pro", new Date(Date.now() - 86_400_000));
    const { sessionId } = await billing.startCheckout(member, { kind: "pack", pack: "small" });
    expect((await ledger.usage(member.accountId)).credits.packBalance).toBe(0);

    expect(await billing.applyStripeEvent(completion("evt_pack_1", sessionId))).toBe(true);
    const once = await ledger.usage(member.accountId);
    expect(once.credits.packBalance).toBe(200);

    expect(await billing.applyStripeEvent(completion("evt_pack_1", sessionId))).toBe(false);
    expect(await ledger.usage(member.accountId)).toEqual(once);
    const recorded = (await dataSource.query(
      `SELECT "id" FROM "provider_events" WHERE "id" = 'evt_pack_1'`,
    )) as unknown[];
    expect(recorded).toHaveLength(1);
    const purchases = (await dataSource.query(
      `SELECT "amount_tenths" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'pack_purchase'`,
      [member.accountId],
    )) as Array<{ amount_tenths: number }>;
    expect(purchases).toEqual([{ amount_tenths: 2_000 }]);
  });
});
