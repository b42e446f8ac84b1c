import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { AlsoInTransaction, Transaction, Transactions } from "../../../db/transaction.js";
import { AppError } from "../../../errors.js";
import type { DomainEvent, DomainEventPayloads, DomainEvents } from "../../../events/domain-events.js";
import type { Account, PlanId } from "../../accounts/account.entity.js";
import type { AccountRepository } from "../../accounts/account.repository.js";
import type { UserRepository } from "../../accounts/user.repository.js";
import type { CreditLedger } from "../ledger.service.js";
import { isPackId, plans } from "../plans.js";
import type { BillingProvider, Purchase, PurchasablePlan } from "./billing-provider.js";
import type { CheckoutSession } from "./checkout-session.entity.js";
import type { CheckoutSessionRepository } from "./checkout-session.repository.js";
import type { ProviderEventRepository } from "./provider-event.repository.js";
import { planOfLookupKey } from "./stripe-provider.js";

export interface CheckoutStarted {
  readonly sessionId: string;
  readonly checkoutUrl: string;
}

export interface CheckoutCompleted {
  readonly sessionId: string;
  readonly purchase: Purchase;
  /** The account's plan once the checkout is applied. */
  readonly plan: PlanId;
}

interface Applied<T> {
  readonly result: T;
  readonly events: DomainEvent[];
  /** A Stripe subscription the completed checkout replaced: cancelled after commit. */
  readonly replacedSubscription?: string | null;
}

/** Subscription states in which the customer keeps the paid plan (past_due: Stripe is still retrying). */
const KEEPS_PLAN: ReadonlySet<string> = new Set(["active", "trialing", "past_due"]);

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === "string" ? value : value.id;

/**
 * Checkout and plan changes (docs/api.md §5). A completion (the local provider's dev
 * route, or Stripe's signed webhook) is applied once, in one transaction with the
 * plan change or pack grant and its `subscription.changed` event.
 */
export class BillingService {
  constructor(
    private readonly sessions: CheckoutSessionRepository,
    private readonly providerEvents: ProviderEventRepository,
    private readonly accounts: AccountRepository,
    private readonly users: UserRepository,
    private readonly transactions: Transactions,
    private readonly ledger: CreditLedger,
    private readonly events: DomainEvents,
    private readonly provider: BillingProvider | undefined,
    private readonly logger: Pick<Logger, "error" | "warn">,
    /** The Stripe API client, when Stripe is the provider: subscription events are re-read from it. */
    private readonly stripe?: Stripe,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async startCheckout(
    member: { readonly accountId: string; readonly userId: string },
    purchase: Purchase,
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<CheckoutStarted> {
    if (!this.provider) {
      throw new AppError("SERVICE_UNAVAILABLE", "Checkout is not available: no payment provider is configured.");
    }
    const account = await this.accounts.get(member.accountId);
    const current = plans[account.plan];
    if (purchase.kind === "plan" && account.plan === purchase.plan) {
      throw new AppError("VALIDATION_FAILED", `plan: the account is already on the ${current.name} plan`);
    }
    if (purchase.kind === "pack" && !current.packs) {
      throw new AppError(
        "PLAN_LIMIT_REACHED",
        `Score packs are for paid plans; the ${current.name} plan cannot buy them.`,
        {
          action: "Upgrade to Pro or Business first, then buy a score pack.",
        },
      );
    }
    const user = await this.users.findById(member.userId);
    const checkoutId = `chk_${randomBytes(24).toString("base64url")}`;
    // The row exists before the customer can pay, so a completion always finds it.
    await this.sessions.open({
      id: checkoutId,
      accountId: account.id,
      userId: member.userId,
      provider: this.provider.name,
      kind: purchase.kind,
      item: purchase.kind === "plan" ? purchase.plan : purchase.pack,
      expiresAt: this.clock(),
    });
    let created;
    try {
      created = await this.provider.createCheckout({
        checkoutId,
        accountId: account.id,
        purchase,
        customerId: account.stripeCustomerId,
        email: user?.email || null,
      });
    } catch (error) {
      await this.sessions.discard(checkoutId);
      throw error;
    }
    await this.sessions.attachProviderSession(
      checkoutId,
      { providerSessionId: created.providerSessionId, checkoutUrl: created.url, expiresAt: created.expiresAt },
      alsoInTransaction,
    );
    return { sessionId: checkoutId, checkoutUrl: created.url };
  }

  /** The checkout an idempotent request started, for its replay: the same session and payment page. */
  async startedCheckout(accountId: string, sessionId: string): Promise<CheckoutStarted> {
    const row = await this.sessions.findOfAccount(accountId, sessionId);
    if (!row?.checkoutUrl) throw new AppError("NOT_FOUND", "The checkout this Idempotency-Key started is gone.");
    return { sessionId: row.id, checkoutUrl: row.checkoutUrl };
  }

  /** What a local checkout is for (its "payment page"). */
  async describeLocalCheckout(
    sessionId: string,
  ): Promise<{ sessionId: string; status: string; purchase: Purchase; expiresAt: Date }> {
    const row = await this.sessions.findOf("local", sessionId);
    if (!row) throw new AppError("NOT_FOUND", "No such local checkout session.");
    return { sessionId: row.id, status: row.status, purchase: purchaseOf(row), expiresAt: row.expiresAt };
  }

  /** `POST /dev/checkout/{sessionId}/complete`: the local provider's stand-in for a payment. */
  async completeLocalCheckout(sessionId: string): Promise<CheckoutCompleted> {
    const row = await this.sessions.findOf("local", sessionId);
    if (!row) throw new AppError("NOT_FOUND", "No such local checkout session.");
    const applied = await this.transactions.run((tx) => this.complete(tx, sessionId, {}));
    return this.afterCommit(applied);
  }

  /**
   * A verified Stripe event. Each event id is applied at most once (recorded in the
   * transaction of its effect). Subscription events apply the subscription's current
   * state read back from Stripe, so events arriving out of order cannot roll a plan back.
   * Returns whether the event changed anything.
   */
  async applyStripeEvent(event: Stripe.Event): Promise<boolean> {
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded": {
        const session = event.data.object;
        // Delayed payment methods complete the session unpaid; async_payment_succeeded follows.
        if (session.payment_status === "unpaid") return false;
        const checkoutId = session.client_reference_id;
        if (!checkoutId) return false;
        const subscriptionId = idOf(session.subscription);
        // The subscription as it is now (read before any lock is taken): it may have been
        // cancelled before this completion reached us, and its period sets the billing cycle.
        const subscription = subscriptionId && this.stripe ? await this.readSubscription(subscriptionId) : undefined;
        const applied = await this.transactions.run(async (tx) => {
          if (!(await this.firstDelivery(tx, event))) return undefined;
          return this.complete(
            tx,
            checkoutId,
            { customerId: idOf(session.customer), subscriptionId, subscription },
            true,
          );
        });
        if (applied) await this.afterCommit(applied);
        return applied !== undefined;
      }
      case "customer.subscription.updated":
      case "customer.subscription.deleted": {
        const snapshot = event.data.object;
        const current = this.stripe ? await this.readSubscription(snapshot.id) : snapshot;
        const applied = await this.transactions.run(async (tx) => {
          if (!(await this.firstDelivery(tx, event))) return undefined;
          return this.applySubscription(tx, current);
        });
        if (applied) await this.afterCommit(applied);
        return applied !== undefined && applied.events.length > 0;
      }
      default:
        return false;
    }
  }

  private async readSubscription(id: string): Promise<Stripe.Subscription> {
    try {
      return await this.stripe!.subscriptions.retrieve(id);
    } catch (error) {
      this.logger.error({ err: error, subscription: id }, "could not read a Stripe subscription back");
      // 503: Stripe redelivers the event later.
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        "The payment provider could not be reached; deliver the event again later.",
      );
    }
  }

  /** Records the event in the transaction of its effect: false when it was applied before. */
  private firstDelivery(tx: Transaction, event: Stripe.Event): Promise<boolean> {
    return this.providerEvents.recordFirstDelivery(tx, { provider: "stripe", id: event.id, type: event.type });
  }

  private async complete(
    tx: Transaction,
    checkoutId: string,
    details: {
      readonly customerId?: string | null;
      readonly subscriptionId?: string | null;
      readonly subscription?: Stripe.Subscription | undefined;
    },
    fromProvider = false,
  ): Promise<Applied<CheckoutCompleted>> {
    const row = await this.sessions.lockForCompletion(tx, checkoutId);
    if (!row) throw new AppError("NOT_FOUND", "No such checkout session.");
    const purchase = purchaseOf(row);
    const account = await this.accounts.lock(tx, row.accountId);
    if (row.status === "completed") {
      return { result: { sessionId: row.id, purchase, plan: account.plan }, events: [] };
    }
    // A provider that took the money is honoured even past our expiry; the local stand-in is not.
    if (!fromProvider && row.expiresAt.getTime() <= this.clock().getTime()) {
      throw new AppError(
        "VALIDATION_FAILED",
        `sessionId: this checkout expired at ${row.expiresAt.toISOString()}; start a new one`,
      );
    }

    const events: DomainEvent[] = [];
    let replacedSubscription: string | null = null;
    if (details.customerId && !account.stripeCustomerId) account.stripeCustomerId = details.customerId;
    if (purchase.kind === "plan" && details.subscription && !KEEPS_PLAN.has(details.subscription.status)) {
      // Cancelled (or ended) before its completion arrived: the paid plan is not restored.
      this.logger.warn(
        { checkout: row.id, subscription: details.subscription.id, status: details.subscription.status },
        "checkout completed for a subscription that has already ended; the plan stays as it is",
      );
    } else if (purchase.kind === "plan") {
      // A new paid period starts with the subscription: the billing cycle follows it, so an
      // upgrade late in a cycle does not grant a second month's credits days later.
      account.billingCycleAnchor = (details.subscription && periodStartOf(details.subscription)) ?? this.clock();
      if (details.subscriptionId) {
        if (account.stripeSubscriptionId && account.stripeSubscriptionId !== details.subscriptionId)
          replacedSubscription = account.stripeSubscriptionId;
        account.stripeSubscriptionId = details.subscriptionId;
      }
      const change = this.changePlan(account, purchase.plan, "checkout", row.id);
      if (change) events.push(await this.events.record(tx, "subscription.changed", change));
    } else {
      // Paid for: granted whatever the plan is by now.
      await this.ledger.purchasePack(account.id, purchase.pack, row.id, { manager: tx, paid: true });
    }
    await this.accounts.save(tx, account);
    row.status = "completed";
    row.completedAt = this.clock();
    await this.sessions.save(tx, row);
    return { result: { sessionId: row.id, purchase, plan: account.plan }, events, replacedSubscription };
  }

  private async applySubscription(tx: Transaction, subscription: Stripe.Subscription): Promise<Applied<null>> {
    const account = await this.accounts.lockBySubscription(tx, subscription.id);
    // Not the account's current subscription (e.g. one a newer checkout replaced): nothing to do.
    if (!account) return { result: null, events: [] };
    const events: DomainEvent[] = [];
    if (!KEEPS_PLAN.has(subscription.status)) {
      account.stripeSubscriptionId = null;
      const change = this.changePlan(account, "free", "subscription_cancelled", null);
      if (change) events.push(await this.events.record(tx, "subscription.changed", change));
    } else {
      const lookupKey = subscription.items.data[0]?.price.lookup_key;
      const plan = planOfLookupKey(lookupKey);
      if (!plan) {
        this.logger.warn(
          { subscription: subscription.id, lookupKey },
          "Stripe subscription price has no plan lookup key; plan unchanged",
        );
        return { result: null, events: [] };
      }
      const change = this.changePlan(account, plan, "subscription_updated", null);
      if (change) events.push(await this.events.record(tx, "subscription.changed", change));
      // Each renewal (and any change of the billing anchor at Stripe) moves the period: follow it.
      const periodStart = periodStartOf(subscription);
      if (periodStart && periodStart.getTime() !== account.billingCycleAnchor.getTime())
        account.billingCycleAnchor = periodStart;
    }
    await this.accounts.save(tx, account);
    return { result: null, events };
  }

  /** Sets the plan; the change to announce, or nothing when the plan stays. Credits follow on the ledger's next touch. */
  private changePlan(
    account: Account,
    plan: PlanId,
    reason: DomainEventPayloads["subscription.changed"]["reason"],
    checkoutSessionId: string | null,
  ): DomainEventPayloads["subscription.changed"] | undefined {
    if (account.plan === plan) return undefined;
    const previousPlan = account.plan;
    account.plan = plan;
    return { accountId: account.id, previousPlan, plan, reason, checkoutSessionId };
  }

  private async afterCommit<T>(applied: Applied<T>): Promise<T> {
    await this.events.publish(applied.events);
    if (applied.replacedSubscription && this.provider?.cancelSubscription) {
      // Failing here leaves two subscriptions; it is logged loudly for an operator, not hidden.
      await this.provider
        .cancelSubscription(applied.replacedSubscription)
        .catch((error: unknown) =>
          this.logger.error(
            { err: error, subscription: applied.replacedSubscription },
            "could not cancel the subscription a checkout replaced",
          ),
        );
    }
    return applied.result;
  }
}

/** The subscription's current period start (on its item since Stripe API 2025-03-31), if it carries one. */
function periodStartOf(subscription: Stripe.Subscription): Date | undefined {
  const start = subscription.items?.data?.[0]?.current_period_start;
  return typeof start === "number" && Number.isFinite(start) ? new Date(start * 1000) : undefined;
}

function purchaseOf(row: CheckoutSession): Purchase {
  if (row.kind === "pack" && isPackId(row.item)) return { kind: "pack", pack: row.item };
  if (row.kind === "plan" && (row.item === "pro" || row.item === "business"))
    return { kind: "plan", plan: row.item as PurchasablePlan };
  throw new Error(`checkout ${row.id} holds an unknown ${row.kind} "${row.item}"`);
}
