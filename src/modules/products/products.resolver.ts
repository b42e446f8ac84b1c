import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from "type-graphql";
import { loaderOf, type GraphQLContext } from "../../graphql/context.js";
import { requireMember } from "../accounts/viewer.js";
import { pageLimit } from "../score/cursor.js";
import type { ScoreResultsService } from "../score/score-results.service.js";
import { toGraphQLResult } from "../score/score.mapping.js";
import { ScoreResultType } from "../score/score.types.js";
import { ProductList, ProductResultPage, ProductType } from "./products.types.js";
import type { ProductsService } from "./products.service.js";

@Resolver(() => ProductType)
export class ProductsResolver {
  constructor(
    private readonly service: ProductsService,
    private readonly scoreResults: ScoreResultsService,
  ) {}

  @Query(() => ProductType, { description: "A product of the caller's account with its results; another account's is NOT_FOUND. REST: GET /api/products/{id}." })
  async product(@Arg("id", () => ID, { description: "The product id." }) id: string, @Ctx() context: GraphQLContext): Promise<ProductType> {
    const member = requireMember(await context.viewer());
    return this.service.get(member.accountId, id);
  }

  @Query(() => ProductList, { description: "The caller's products, newest first." })
  async products(
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1–100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<ProductList> {
    const member = requireMember(await context.viewer());
    return this.service.list(member.accountId, pageLimit(limit), cursor ?? undefined);
  }

  @FieldResolver(() => [ScoreResultType], {
    description: "The product's latest results, newest first (product view): one page (limit 1–100, default 20); resultPage also gives the next page's cursor. Batched: any number of products costs two SQL statements.",
  })
  async results(
    @Root() product: ProductType,
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1–100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<ScoreResultType[]> {
    return (await this.page(product, context, limit, cursor)).results;
  }

  @FieldResolver(() => ProductResultPage, { description: "A page of the product's results with the cursor of the next page. REST: GET /api/products/{id}?limit&cursor." })
  async resultPage(
    @Root() product: ProductType,
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1–100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<ProductResultPage> {
    return this.page(product, context, limit, cursor);
  }

  private async page(product: ProductType, context: GraphQLContext, limit: number | null | undefined, cursor: string | null | undefined): Promise<ProductResultPage> {
    const size = pageLimit(limit);
    const loader = loaderOf(context, `productResults:${size}:${cursor ?? ""}`, () => this.scoreResults.productResultsLoader(size, cursor ?? undefined));
    const page = await loader.load(product.id);
    return { results: page.results.map(toGraphQLResult), nextCursor: page.nextCursor };
  }
}
