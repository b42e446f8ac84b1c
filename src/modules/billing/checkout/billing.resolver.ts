import { Arg, Authorized, Ctx, Mutation, Resolver } from "type-graphql";
import { AppError } from "../../../errors.js";
import { idempotentCall, type GraphQLContext } from "../../../graphql/context.js";
import type { IdempotentRequests } from "../../idempotency/idempotent-requests.js";
import { SessionMember, type MemberBySession } from "../../../graphql/decorators/current-member.js";
import { purchasablePlans, type Purchase, type PurchasablePlan } from "./billing-provider.js";
import type { BillingService } from "./billing.service.js";
import { CheckoutInput, CheckoutSessionType } from "./billing.types.js";

@Resolver(() => CheckoutSessionType)
export class BillingResolver {
  constructor(
    private readonly billing: BillingService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @Authorized("session")
  @Mutation(() => CheckoutSessionType, {
    description:
      "Starts a checkout for a plan upgrade or a score pack (signed-in session). Honours Idempotency-Key: a replay answers the same checkout. REST: POST /api/billing/checkout.",
  })
  async startCheckout(
    @Arg("input", () => CheckoutInput, { description: "A plan or a pack: exactly one." }) input: CheckoutInput,
    @SessionMember() member: MemberBySession,
    @Ctx() context: GraphQLContext,
  ): Promise<CheckoutSessionType> {
    const purchase = purchaseOf(input);
    return this.idempotency.once(idempotentCall(context), member.accountId, "checkout.start", purchase, {
      run: async (complete) => {
        const started = await this.billing.startCheckout(member, purchase, complete);
        return { answer: started, resourceId: started.sessionId };
      },
      replay: (id) => this.billing.startedCheckout(member.accountId, id),
    });
  }
}

export function purchaseOf(input: CheckoutInput): Purchase {
  const { plan, pack } = input;
  if ((plan == null) === (pack == null))
    throw new AppError("VALIDATION_FAILED", "plan, pack: send exactly one of them");
  if (pack != null) return { kind: "pack", pack };
  if (plan === "enterprise") {
    throw new AppError("VALIDATION_FAILED", "plan: Enterprise is arranged with sales, not through checkout", {
      action: "Contact sales for Enterprise.",
    });
  }
  if (!(purchasablePlans as readonly string[]).includes(plan!)) {
    throw new AppError(
      "VALIDATION_FAILED",
      "plan: checkout buys pro or business; to return to Free, cancel the subscription",
    );
  }
  return { kind: "plan", plan: plan as PurchasablePlan };
}
