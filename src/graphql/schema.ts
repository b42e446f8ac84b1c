import "reflect-metadata";
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from "graphql";
import { buildSchemaSync, type ContainerType } from "type-graphql";
import { ApiKeysResolver } from "../modules/accounts/api-keys/api-keys.resolver.js";
import { WebhooksResolver } from "../modules/webhooks/webhooks.resolver.js";
import { LifecycleResolver } from "../modules/lifecycle/lifecycle.resolver.js";
import { ChatResolver } from "../modules/chat/chat.resolver.js";
import { MembersResolver } from "../modules/accounts/members.resolver.js";
import { BillingResolver } from "../modules/billing/checkout/billing.resolver.js";
import { UsageResolver } from "../modules/billing/usage.resolver.js";
import { ProductsResolver } from "../modules/products/products.resolver.js";
import { ProductBadgeResolver } from "../modules/products/product-badge.resolver.js";
import { ScoreResolver } from "../modules/score/score.resolver.js";
import { ScoreBatchResolver } from "../modules/score/batch/score-batch.resolver.js";
import { ScoreBadgeResolver } from "../modules/score/score-badge.resolver.js";
import { PercentilesResolver } from "../modules/score/percentiles.resolver.js";
import { HealthResolver } from "../modules/health/health.resolver.js";
import { authChecker } from "./auth-checker.js";

/** Every resolver of the API; a feature joins the schema by adding its resolver here. */
export const resolvers = [
  HealthResolver,
  UsageResolver,
  ApiKeysResolver,
  MembersResolver,
  BillingResolver,
  ScoreResolver,
  PercentilesResolver,
  ScoreBatchResolver,
  ProductsResolver,
  ScoreBadgeResolver,
  ProductBadgeResolver,
  WebhooksResolver,
  LifecycleResolver,
  ChatResolver,
] as const;

const rootDescriptions = {
  Query: "Reads. Each REST GET under /api maps onto one of these fields.",
  Mutation: "Writes. Each REST POST, PATCH and DELETE under /api maps onto one of these fields.",
  Subscription: "Live streams over graphql-ws at /graphql.",
} as const;

export function buildAppSchema(container: ContainerType): GraphQLSchema {
  const schema = buildSchemaSync({
    resolvers,
    container,
    authChecker,
    // Subscriptions bring their own `subscribe` (a job's progress stream); no topic pub/sub is used.
    pubSub: noTopics,
    validate: { forbidUnknownValues: false },
  });
  // type-graphql has no option for root type descriptions; they are part of the reviewed contract.
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (root) root.description = rootDescriptions[root.name as keyof typeof rootDescriptions];
  }
  return schema;
}

const noTopics = {
  publish() {
    throw new Error("topic pub/sub is not used: subscriptions define their own subscribe");
  },
  subscribe(): AsyncIterable<never> {
    throw new Error("topic pub/sub is not used: subscriptions define their own subscribe");
  },
};

/** The committed contract: sorted so that a diff shows real changes, not reordering. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** A container for building the schema without serving it (schema emission, checks). */
export const unservedContainer: ContainerType = {
  get(type) {
    throw new Error(`${(type as { name?: string }).name ?? "resolver"} is not served by this schema instance`);
  },
};
