import { Ctx, Query, Resolver } from "type-graphql";
import type { GraphQLContext } from "../../graphql/context.js";
import { HealthService } from "./health.service.js";
import { Health } from "./health.types.js";

@Resolver(() => Health)
export class HealthResolver {
  constructor(private readonly service: HealthService) {}

  @Query(() => Health, {
    description:
      "Component-level health: database, identity provider, billing, scoring engine, environment. Public. In production, details that name providers, hosts and models are shown only to an operator (X-Operator-Token).",
  })
  health(@Ctx() context: GraphQLContext): Promise<Health> {
    return this.service.check({ detailed: context.operator });
  }
}
