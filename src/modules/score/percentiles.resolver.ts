import { Ctx, FieldResolver, Resolver, Root } from "type-graphql";
import { loaderOf, type GraphQLContext } from "../../graphql/context.js";
import type { PercentilesService } from "./percentiles.service.js";
import { PercentilesType } from "./percentiles.types.js";
import { ScoreResultType } from "./score.types.js";

/** `ScoreResult.percentiles`: read only when selected, one statement per framework version of the request. */
@Resolver(() => ScoreResultType)
export class PercentilesResolver {
  constructor(private readonly service: PercentilesService) {}

  @FieldResolver(() => PercentilesType, {
    description:
      "The result against the latest full results of distinct sites of its framework version (docs/api.md §13). REST: in the product view (GET /api/products/{id}, POST /api/score/product).",
  })
  async percentiles(@Root() result: ScoreResultType, @Ctx() context: GraphQLContext): Promise<PercentilesType> {
    const answer = await loaderOf(context, "percentiles", () => this.service.loader()).load(result);
    return {
      available: answer.available,
      reason: answer.reason,
      population: answer.population,
      total: answer.total ? { ...answer.total } : null,
      dimensions: answer.dimensions.map((dimension) => ({ ...dimension })),
    };
  }
}
