import { Arg, Ctx, FieldResolver, ID, Query, Resolver, Root } from "type-graphql";
import { loaderOf, type GraphQLContext } from "../../graphql/context.js";
import { BadgeType } from "../score/badge.types.js";
import type { ProductBadgeService } from "./product-badge.service.js";
import { ProductType } from "./products.types.js";

/** Product badges (docs/api.md §13): kept apart from the product's own fields and mutations. */
@Resolver(() => ProductType)
export class ProductBadgeResolver {
  constructor(private readonly badges: ProductBadgeService) {}

  @Query(() => BadgeType, {
    description:
      "A product's public badge: its latest result's, or \"not scored yet\", for anyone, while its owner has publicBadge on; otherwise NOT_FOUND for everyone, the owner included (as for an unknown id). REST: GET /api/products/{id}/badge.svg.",
  })
  async productBadge(@Arg("id", () => ID, { description: "The product id." }) id: string): Promise<BadgeType> {
    return this.badges.publicBadge(id);
  }

  @FieldResolver(() => BadgeType, {
    nullable: true,
    description:
      "The product's public badge (as productBadge answers it to anyone); null while publicBadge is off. Batched: any number of products costs one SQL statement.",
  })
  async badge(@Root() product: ProductType, @Ctx() context: GraphQLContext): Promise<BadgeType | null> {
    return loaderOf(context, "productBadges", () => this.badges.loader()).load(product.id);
  }
}
