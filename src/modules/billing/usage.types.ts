import { Field, Float, GraphQLISODateTime, Int, ObjectType, registerEnumType } from "type-graphql";

/** Plan ids spelled as the REST contract's strings, like every enum here. */
export enum Plan {
  free = "free",
  pro = "pro",
  business = "business",
  enterprise = "enterprise",
}

registerEnumType(Plan, {
  name: "Plan",
  description: "A subscription plan (the contract's plan table).",
  valuesConfig: {
    free: { description: "Free: 80 credits, 3 scores and 30 chat messages a month, 1 product, 1 seat." },
    pro: { description: "Pro: 1,000 credits a month, 5 products, 3 seats." },
    business: { description: "Business: 2,000 credits a month, API access (25,000 calls), 25 products, 10 seats." },
    enterprise: { description: "Enterprise: unlimited credits, 100,000 API calls a month, custom seats." },
  },
});

@ObjectType({ description: "The current billing cycle." })
export class BillingPeriod {
  @Field(() => GraphQLISODateTime, { description: "When this cycle (and its plan credits) started." })
  start: Date;

  @Field(() => GraphQLISODateTime, { description: "When the next cycle starts and plan credits reset." })
  end: Date;
}

@ObjectType({ description: "Credits, exact to the tenth (an API call costs 0.1)." })
export class CreditUsage {
  @Field(() => Float, { nullable: true, description: "Plan credits granted this cycle; null means unlimited." })
  limit: number | null;

  @Field(() => Float, { description: "Plan credits spent this cycle." })
  used: number;

  @Field(() => Float, { nullable: true, description: "Plan credits left this cycle; null means unlimited." })
  remaining: number | null;

  @Field(() => Float, { description: "Credits from score packs: they never expire and are spent after plan credits." })
  packBalance: number;
}

@ObjectType({ description: "A monthly count and its ceiling." })
export class CountUsage {
  @Field(() => Int, { nullable: true, description: "The plan's ceiling; null means unlimited." })
  limit: number | null;

  @Field(() => Int, { description: "Used this cycle (products and seats: in use now)." })
  used: number;
}

@ObjectType({ description: "Live credit and quota consumption of the caller's account. REST: GET /api/usage." })
export class Usage {
  @Field(() => Plan, { description: "The account's plan." })
  plan: Plan;

  @Field(() => BillingPeriod, { description: "The current billing cycle." })
  period: BillingPeriod;

  @Field(() => CreditUsage, { description: "Credits of this cycle and of score packs." })
  credits: CreditUsage;

  @Field(() => CountUsage, { description: "URL scores this cycle." })
  scores: CountUsage;

  @Field(() => CountUsage, { description: "Chat messages this cycle." })
  chatMessages: CountUsage;

  @Field(() => CountUsage, { description: "API calls (requests authenticated with an API key) this cycle." })
  apiCalls: CountUsage;

  @Field(() => CountUsage, { description: "Products stored." })
  products: CountUsage;

  @Field(() => CountUsage, { description: "Members of the account." })
  seats: CountUsage;
}
