import { describe, expect, it } from "vitest";
import type { DataSource } from "typeorm";
import { Transactions } from "../../../src/db/transaction.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { UserRepository } from "../../../src/modules/accounts/user.repository.js";
import { BillingService } from "../../../src/modules/billing/checkout/billing.service.js";
import { CheckoutSessionRepository } from "../../../src/modules/billing/checkout/checkout-session.repository.js";
import { ProviderEventRepository } from "../../../src/modules/billing/checkout/provider-event.repository.js";
import type { CreditLedger } from "../../../src/modules/billing/ledger.service.js";
import { rejectionOf } from "../../support/app-error.js";

describe("checkout without a payment provider (production without Stripe)", () => {
  it("answers 503 SERVICE_UNAVAILABLE before touching anything", async () => {
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error("the database must not be used");
        },
      },
    ) as DataSource;
    const billing = new BillingService(
      new CheckoutSessionRepository(untouchable),
      new ProviderEventRepository(),
      new AccountRepository(untouchable),
      new UserRepository(untouchable),
      new Transactions(untouchable),
      {} as CreditLedger,
      new DomainEvents({ error: () => undefined }),
      undefined,
      { error: () => undefined, warn: () => undefined },
    );
    const error = await rejectionOf(
      billing.startCheckout({ accountId: "a", userId: "u" }, { kind: "plan", plan: "pro" }),
    );
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryable: true });
  });
});
