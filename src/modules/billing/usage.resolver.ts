import { Authorized, Ctx, Query, Resolver } from "type-graphql";
import type { GraphQLContext } from "../../graphql/context.js";
import { requireMember } from "../accounts/viewer.js";
import type { CreditLedger } from "./ledger.service.js";
import { Usage, type Plan } from "./usage.types.js";

@Resolver(() => Usage)
export class UsageResolver {
  constructor(private readonly ledger: CreditLedger) {}

  @Authorized()
  @Query(() => Usage, { description: "Live credit and quota consumption of the caller's account. Needs a session or an API key." })
  async usage(@Ctx() context: GraphQLContext): Promise<Usage> {
    const member = requireMember(await context.viewer());
    const usage = await this.ledger.usage(member.accountId);
    return { ...usage, plan: usage.plan as Plan };
  }
}
