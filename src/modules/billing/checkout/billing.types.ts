import { Field, InputType, ObjectType, registerEnumType } from "type-graphql";
import { Plan } from "../usage.types.js";

/** Pack ids spelled as the REST contract's strings. */
export enum ScorePackSize {
  small = "small",
  medium = "medium",
  large = "large",
}

registerEnumType(ScorePackSize, {
  name: "ScorePack",
  description: "A one-time score top-up for paid plans; its credits never expire.",
  valuesConfig: {
    small: { description: "Small: 20 scores (200 credits), USD 29." },
    medium: { description: "Medium: 50 scores (500 credits), USD 49." },
    large: { description: "Large: 150 scores (1,500 credits), USD 99." },
  },
});

@InputType({ description: "What to buy: exactly one of a plan upgrade or a score pack." })
export class CheckoutInput {
  @Field(() => Plan, {
    nullable: true,
    description: "The plan to move to: pro or business (Enterprise is arranged with sales; Free by cancelling).",
  })
  plan?: Plan | null;

  @Field(() => ScorePackSize, { nullable: true, description: "The score pack to buy (paid plans only)." })
  pack?: ScorePackSize | null;
}

@ObjectType({ description: "A started checkout. REST: POST /api/billing/checkout (201)." })
export class CheckoutSessionType {
  @Field(() => String, {
    description: "The checkout's id; completion is reported to webhooks (subscription.changed) and in usage.",
  })
  sessionId: string;

  @Field(() => String, { description: "Where the customer pays: the payment provider's hosted page." })
  checkoutUrl: string;
}
