import { Authorized, Query, Resolver } from "type-graphql";
import { CurrentMember, type Member } from "../../graphql/decorators/current-member.js";
import type { CreditLedger } from "./ledger.service.js";
import { Usage, type Plan } from "./usage.types.js";

@Resolver(() => Usage)
export class UsageResolver {
  constructor(private readonly ledger: CreditLedger) {}

  @Authorized()
  @Query(() => Usage, {
    description: "Live credit and quota consumption of the caller's account. Needs a session or an API key.",
  })
  async usage(@CurrentMember() member: Member): Promise<Usage> {
    const usage = await this.ledger.usage(member.accountId);
    return { ...usage, plan: usage.plan as Plan };
  }
}
