import type { PlanId } from "../../accounts/account.entity.js";
import type { PackId } from "../plans.js";
import type { CheckoutProviderName } from "./checkout-session.entity.js";

/** Plans bought through checkout; Free is reached by cancelling, Enterprise through sales. */
export const purchasablePlans = ["pro", "business"] as const satisfies readonly PlanId[];
export type PurchasablePlan = (typeof purchasablePlans)[number];

export type Purchase =
  { readonly kind: "plan"; readonly plan: PurchasablePlan } | { readonly kind: "pack"; readonly pack: PackId };

export interface CheckoutRequest {
  /** Our checkout id; the provider echoes it back on completion. */
  readonly checkoutId: string;
  readonly accountId: string;
  readonly purchase: Purchase;
  /** The provider's customer of this account, when an earlier checkout created one. */
  readonly customerId: string | null;
  readonly email: string | null;
}

export interface ProviderCheckout {
  /** The provider's own id (Stripe `cs_…`); null when ours is the only one. */
  readonly providerSessionId: string | null;
  readonly url: string;
  readonly expiresAt: Date;
}

/** Where a customer pays. Completion comes back through the provider's own channel. */
export interface BillingProvider {
  readonly name: CheckoutProviderName;
  createCheckout(request: CheckoutRequest): Promise<ProviderCheckout>;
  /** Ends a subscription that a newer checkout replaced (Stripe only). */
  cancelSubscription?(subscriptionId: string): Promise<void>;
}
