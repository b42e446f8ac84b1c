import type { BillingProvider, CheckoutRequest, ProviderCheckout } from "./billing-provider.js";

/** How long an unpaid checkout stays open: Stripe's default, 24 hours. */
export const CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * The embedded default: nothing is charged; `POST /dev/checkout/{sessionId}/complete`
 * (outside production only) completes the checkout as a provider's payment would.
 */
export class LocalCheckoutProvider implements BillingProvider {
  readonly name = "local" as const;

  constructor(
    private readonly publicBaseUrl: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async createCheckout(request: CheckoutRequest): Promise<ProviderCheckout> {
    return {
      providerSessionId: null,
      url: new URL(`/dev/checkout/${encodeURIComponent(request.checkoutId)}`, this.publicBaseUrl).toString(),
      expiresAt: new Date(this.clock().getTime() + CHECKOUT_LIFETIME_MS),
    };
  }
}
