import { IsInt, IsOptional, Max, Min } from "class-validator";
import { ArgsType, Field, GraphQLISODateTime, ID, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { TREND_POINTS } from "../../limits.js";
import type { MonitorInterval } from "./product.entity.js";
import { ScoreResultType } from "../score/score.types.js";

/** The monitor periods, spelled as the REST contract's strings. */
export enum MonitorIntervalValue {
  weekly = "weekly",
  monthly = "monthly",
}

registerEnumType(MonitorIntervalValue, {
  name: "MonitorInterval",
  description: "How often a monitored product is re-scored (each run is charged as a score).",
  valuesConfig: {
    weekly: { description: "Every 7 days." },
    monthly: { description: "Every 30 days." },
  },
});

@ObjectType("Monitor", { description: "A product's re-scoring schedule (docs/api.md §13)." })
export class MonitorType {
  @Field(() => MonitorIntervalValue, { description: "The period between re-scores." })
  interval: MonitorIntervalValue;

  @Field(() => GraphQLISODateTime, {
    description:
      "When the next re-score is due (a scheduler starts it within its tick, MONITOR_TICK_MS). Skipped, with a monitor.skipped event, when the account cannot pay; skipped silently while the previous re-score is still queued or running.",
  })
  nextRunAt: Date;
}

@ObjectType("TrendPoint", { description: "One completed total of a product: a point of its trend." })
export class TrendPointType {
  @Field(() => ID, { description: "The result this total belongs to." })
  resultId: string;

  @Field(() => Int, { description: "Its total score, 0–100." })
  total: number;

  @Field(() => String, { description: "Its stage name." })
  stage: string;

  @Field(() => GraphQLISODateTime, { description: "When it completed." })
  createdAt: Date;
}

const trendRange = { message: `must be a whole number from ${TREND_POINTS.min} to ${TREND_POINTS.max}` };

@ArgsType()
export class TrendArgs {
  @Field(() => Int, {
    nullable: true,
    description: `How many of the latest totals, ${TREND_POINTS.min}–${TREND_POINTS.max}, default ${TREND_POINTS.default}.`,
  })
  @IsOptional()
  @IsInt(trendRange)
  @Min(TREND_POINTS.min, trendRange)
  @Max(TREND_POINTS.max, trendRange)
  limit?: number | null;

  get size(): number {
    return this.limit ?? TREND_POINTS.default;
  }
}

@InputType("MonitorInput", { description: "Turns monitoring on, or changes its period." })
export class MonitorInput {
  @Field(() => MonitorIntervalValue, { description: "weekly or monthly." })
  interval: MonitorIntervalValue;
}

@InputType({ description: "Changes to a product's settings; fields left out stay as they are." })
export class UpdateProductInput {
  @Field(() => MonitorInput, {
    nullable: true,
    description:
      "Re-score the product on this schedule, charged as a score each run; null stops. Monitored products per plan: Free 0, Pro 5, Business 25, Enterprise unlimited (beyond: PLAN_LIMIT_REACHED).",
  })
  monitor?: MonitorInput | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "Whether the product's badge of its latest result is public (GET /api/products/{id}/badge.svg).",
  })
  publicBadge?: boolean | null;
}

@ObjectType({ description: "A page of a product's results, newest first. REST: GET /api/products/{id}?limit&cursor." })
export class ProductResultPage {
  @Field(() => [ScoreResultType], { description: "A page of results (product view)." })
  results: ScoreResultType[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page." })
  nextCursor: string | null;
}

@ObjectType("Product", { description: "A product of the account, scored with the product framework over time." })
export class ProductType {
  @Field(() => ID, { description: "Product identifier (UUID)." })
  id: string;

  @Field(() => String, { description: "The detected company name of its latest result." })
  name: string;

  @Field(() => String, { description: "The normalized address." })
  url: string;

  @Field(() => ID, { description: "The owning account." })
  accountId: string;

  @Field(() => GraphQLISODateTime, { description: "When it was first scored." })
  createdAt: Date;

  /** The stored schedule, read by the `monitor` field. */
  monitorInterval: MonitorInterval | null;
  monitorNextRunAt: Date | null;

  @Field(() => Boolean, {
    description: "Whether its latest result's badge is public (off until the owner turns it on).",
  })
  publicBadge: boolean;
}

@ObjectType({ description: "The account's products, newest first." })
export class ProductList {
  @Field(() => [ProductType], { description: "A page of products." })
  products: ProductType[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page." })
  nextCursor: string | null;
}
