import Stripe from "stripe";
import type { Logger } from "pino";
import { AppError } from "../../../errors.js";
import type { PlanId } from "../../accounts/account.entity.js";
import { scorePacks } from "../plans.js";
import {
  purchasablePlans,
  type BillingProvider,
  type CheckoutRequest,
  type ProviderCheckout,
  type PurchasablePlan,
} from "./billing-provider.js";

/**
 * Plan prices live in Stripe, found by lookup key, so prices change in the Stripe
 * dashboard without a deploy: the operator gives the monthly Price of each plan the
 * lookup key `pms_<plan>_monthly`. Packs are one-time payments at the contract's prices.
 */
export const planLookupKey = (plan: PurchasablePlan): string => `pms_${plan}_monthly`;

export function planOfLookupKey(lookupKey: string | null | undefined): PlanId | undefined {
  return purchasablePlans.find((plan) => planLookupKey(plan) === lookupKey);
}

export interface StripeClientOptions {
  readonly secretKey: string;
  /** Another API endpoint (a local fake in tests); Stripe's own when absent. */
  readonly apiUrl?: string | undefined;
}

export function createStripeClient({ secretKey, apiUrl }: StripeClientOptions): Stripe {
  const endpoint = apiUrl ? new URL(apiUrl) : undefined;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
    ...(endpoint
      ? {
          host: endpoint.hostname,
          port: endpoint.port || (endpoint.protocol === "https:" ? 443 : 80),
          protocol: endpoint.protocol === "http:" ? "http" : "https",
        }
      : {}),
  });
}

/** Checkout through Stripe Checkout; completion arrives as a signed webhook (`StripeWebhooks`). */
export class StripeCheckoutProvider implements BillingProvider {
  readonly name = "stripe" as const;

  constructor(
    private readonly stripe: Stripe,
    private readonly publicBaseUrl: string,
    private readonly logger: Pick<Logger, "error">,
  ) {}

  async createCheckout(request: CheckoutRequest): Promise<ProviderCheckout> {
    const { purchase, checkoutId, accountId } = request;
    const common = {
      client_reference_id: checkoutId,
      metadata: { checkout_id: checkoutId, account_id: accountId },
      success_url: new URL(`/?checkout=success&session_id={CHECKOUT_SESSION_ID}`, this.publicBaseUrl)
        .toString()
        .replace("%7B", "{")
        .replace("%7D", "}"),
      cancel_url: new URL(`/?checkout=cancelled`, this.publicBaseUrl).toString(),
      ...(request.customerId
        ? { customer: request.customerId }
        : request.email
          ? { customer_email: request.email }
          : {}),
    };
    const params: Stripe.Checkout.SessionCreateParams =
      purchase.kind === "plan"
        ? {
            ...common,
            mode: "subscription",
            line_items: [{ price: await this.planPrice(purchase.plan), quantity: 1 }],
            subscription_data: { metadata: { account_id: accountId } },
          }
        : {
            ...common,
            mode: "payment",
            ...(request.customerId ? {} : { customer_creation: "always" as const }),
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: "usd",
                  unit_amount: scorePacks[purchase.pack].priceUsdCents,
                  product_data: {
                    name: `${scorePacks[purchase.pack].name} score pack (${scorePacks[purchase.pack].scores} scores)`,
                  },
                },
              },
            ],
          };
    // Our checkout id as Stripe's idempotency key: a retried create makes one session.
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create(params, { idempotencyKey: `checkout-${checkoutId}` }),
    );
    if (!session.url) throw this.unavailable(new Error(`Stripe returned checkout session ${session.id} without a url`));
    return { providerSessionId: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000) };
  }

  async cancelSubscription(subscriptionId: string): Promise<void> {
    await this.call(() => this.stripe.subscriptions.cancel(subscriptionId));
  }

  private async planPrice(plan: PurchasablePlan): Promise<string> {
    const prices = await this.call(() =>
      this.stripe.prices.list({ lookup_keys: [planLookupKey(plan)], active: true, limit: 1 }),
    );
    const price = prices.data[0];
    if (!price) {
      this.logger.error({ lookupKey: planLookupKey(plan) }, "no active Stripe price carries this plan's lookup key");
      throw new AppError("SERVICE_UNAVAILABLE", `Checkout for the ${plan} plan is not available right now.`);
    }
    return price.id;
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw this.unavailable(error);
    }
  }

  private unavailable(cause: unknown): AppError {
    this.logger.error({ err: cause }, "Stripe request failed");
    return new AppError("SERVICE_UNAVAILABLE", "The payment provider could not be reached; no checkout was created.");
  }
}

/** Verifies Stripe's `stripe-signature` (HMAC over the raw body, 5-minute tolerance) and parses the event. */
export class StripeWebhooks {
  constructor(
    private readonly stripe: Stripe,
    private readonly secret: string,
  ) {}

  parse(rawBody: Buffer, signature: string | undefined): Stripe.Event {
    if (!signature) throw new AppError("VALIDATION_FAILED", "stripe-signature: header is required");
    try {
      return this.stripe.webhooks.constructEvent(rawBody, signature, this.secret);
    } catch (error) {
      const reason =
        error instanceof Stripe.errors.StripeSignatureVerificationError
          ? "does not match the body, or is too old"
          : "is malformed";
      throw new AppError("VALIDATION_FAILED", `stripe-signature: ${reason}`);
    }
  }
}
