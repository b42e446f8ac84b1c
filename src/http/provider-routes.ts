import type { FastifyInstance } from "fastify";
import type { BillingService } from "../modules/billing/checkout/billing.service.js";
import type { StripeWebhooks } from "../modules/billing/checkout/stripe-provider.js";

export const STRIPE_WEBHOOK_PATH = "/webhooks/stripe";

/**
 * Stripe's webhook intake (checkout completion, subscription updates and
 * cancellations). The signature covers the exact bytes sent, so this scope reads the
 * body raw; 2xx tells Stripe the event is done, anything else makes it redeliver.
 */
export function stripeWebhookRoute(webhooks: StripeWebhooks, billing: BillingService) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => {
      scope.removeContentTypeParser("application/json");
      scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
      // Stripe's events can outgrow the API's 64 KiB body limit (expanded objects); the signature bounds who may send them.
      scope.post(STRIPE_WEBHOOK_PATH, { bodyLimit: 512 * 1024 }, async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers["stripe-signature"];
        const event = webhooks.parse(raw, Array.isArray(signature) ? signature[0] : signature);
        const applied = await billing.applyStripeEvent(event);
        request.log.info({ stripeEvent: event.id, type: event.type, applied }, "Stripe event received");
        return { received: true };
      });
    });
  };
}
