import { Query, Resolver } from "type-graphql";
import { HealthService } from "./health.service.js";
import { Health } from "./health.types.js";

@Resolver(() => Health)
export class HealthResolver {
  constructor(private readonly service: HealthService) {}

  @Query(() => Health, {
    description: "Component-level health: database, identity provider, billing, scoring engine, environment. Public.",
  })
  health(): Promise<Health> {
    return this.service.check();
  }
}
