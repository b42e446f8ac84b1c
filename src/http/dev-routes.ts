import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.js";
import type { AccountsService } from "../modules/accounts/accounts.service.js";
import type { LocalIdentityProvider } from "../modules/accounts/session/local-identity-provider.js";
import type { SessionVerifier } from "../modules/accounts/session/session-verifier.js";
import { SESSION_COOKIE } from "../modules/accounts/viewer.js";
import type { BillingService } from "../modules/billing/checkout/billing.service.js";

/**
 * Development stand-ins (docs/api.md §5), registered only when the local identity
 * provider exists, which is never in production: there these paths answer 404.
 */
export function devRoutes(
  local: LocalIdentityProvider,
  sessions: SessionVerifier,
  accounts: AccountsService,
  billing: BillingService,
) {
  return async (app: FastifyInstance): Promise<void> => {
    /** POST /dev/login {email, name?}: a real signed `__session` cookie; a new e-mail gets a new Free account. */
    app.post("/dev/login", async (request, reply) => {
      const body = request.body;
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw new AppError("VALIDATION_FAILED", "body: must be a JSON object");
      const { email, name } = body as Record<string, unknown>;
      if (typeof email !== "string") throw new AppError("VALIDATION_FAILED", "email: is required");
      if (name !== undefined && typeof name !== "string")
        throw new AppError("VALIDATION_FAILED", "name: must be a string");
      const token = await local.issue({ email, ...(name ? { name } : {}) });
      // The same path a provider's cookie takes: what /dev/login hands out is what the service accepts.
      const claims = await sessions.verify(token);
      const member = await accounts.signIn(claims);
      reply.header(
        "set-cookie",
        `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${local.sessionLifetimeSeconds}`,
      );
      return { user: { id: member.userId, email: claims.email ?? email }, accountId: member.accountId };
    });

    /**
     * POST /dev/checkout/{sessionId}/complete: what a payment does at a real provider.
     * The session id is an unguessable secret handed to the buyer, like Stripe's.
     * Completing twice applies once and answers the same.
     */
    app.post<{ Params: { sessionId: string } }>("/dev/checkout/:sessionId/complete", async (request) => {
      const completed = await billing.completeLocalCheckout(request.params.sessionId);
      return {
        checkout: {
          sessionId: completed.sessionId,
          status: "completed",
          ...(completed.purchase.kind === "plan"
            ? { plan: completed.purchase.plan }
            : { pack: completed.purchase.pack }),
        },
        plan: completed.plan,
      };
    });

    /** GET /dev/checkout/{sessionId}: the local provider's "payment page", saying how to complete it. */
    app.get<{ Params: { sessionId: string } }>("/dev/checkout/:sessionId", async (request) => {
      const checkout = await billing.describeLocalCheckout(request.params.sessionId);
      return {
        checkout,
        complete: { method: "POST", path: `/dev/checkout/${encodeURIComponent(checkout.sessionId)}/complete` },
      };
    });
  };
}
