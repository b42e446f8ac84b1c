import DataLoader from "dataloader";
import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from "type-graphql";
import { loaderOf, type GraphQLContext } from "../../graphql/context.js";
import { CurrentMember, type Member } from "../../graphql/decorators/current-member.js";
import { PageArgs } from "../../graphql/page.args.js";
import type { ScoreResultsService } from "../score/score-results.service.js";
import { toGraphQLResult } from "../score/score.mapping.js";
import { ScoreResultType } from "../score/score.types.js";
import {
  MonitorIntervalValue,
  MonitorType,
  ProductList,
  ProductResultPage,
  ProductType,
  TrendArgs,
  TrendPointType,
  UpdateProductInput,
} from "./products.types.js";
import type { ProductsService } from "./products.service.js";

@Resolver(() => ProductType)
export class ProductsResolver {
  constructor(
    private readonly service: ProductsService,
    private readonly scoreResults: ScoreResultsService,
  ) {}

  @Authorized()
  @Query(() => ProductType, {
    description:
      "A product of the caller's account with its results; another account's is NOT_FOUND. REST: GET /api/products/{id}.",
  })
  async product(
    @Arg("id", () => ID, { description: "The product id." }) id: string,
    @CurrentMember() member: Member,
  ): Promise<ProductType> {
    return this.service.get(member.accountId, id);
  }

  @Authorized()
  @Query(() => ProductList, { description: "The caller's products, newest first." })
  async products(@Args(() => PageArgs) page: PageArgs, @CurrentMember() member: Member): Promise<ProductList> {
    return this.service.list(member.accountId, page.size, page.cursor ?? undefined);
  }

  @Authorized()
  @Mutation(() => ProductType, {
    description:
      "Changes a product's settings: its re-scoring schedule (monitor; null stops) and whether its badge is public. Another account's product is NOT_FOUND; monitoring past the plan's monitored products is PLAN_LIMIT_REACHED. REST: PATCH /api/products/{id}.",
  })
  async updateProduct(
    @Arg("id", () => ID, { description: "The product id." }) id: string,
    @Arg("input", () => UpdateProductInput, { description: "The settings to change." }) input: UpdateProductInput,
    @CurrentMember() member: Member,
  ): Promise<ProductType> {
    return this.service.update(member.accountId, id, {
      ...(input.monitor === undefined ? {} : { monitor: input.monitor && { interval: input.monitor.interval } }),
      ...(input.publicBadge === undefined ? {} : { publicBadge: input.publicBadge }),
    });
  }

  @FieldResolver(() => MonitorType, {
    nullable: true,
    description:
      "Its re-scoring schedule; null when not monitored. Change it with updateProduct (PATCH /api/products/{id}).",
  })
  monitor(@Root() product: ProductType): MonitorType | null {
    return product.monitorInterval && product.monitorNextRunAt
      ? { interval: product.monitorInterval as MonitorIntervalValue, nextRunAt: product.monitorNextRunAt }
      : null;
  }

  @FieldResolver(() => [TrendPointType], {
    description:
      "Its last completed totals, oldest to newest (at most limit). Batched: any number of products costs one SQL statement.",
  })
  async trend(
    @Root() product: ProductType,
    @Args(() => TrendArgs) args: TrendArgs,
    @Ctx() context: GraphQLContext,
  ): Promise<TrendPointType[]> {
    const take = args.size;
    const loader = loaderOf(
      context,
      `productTrend:${take}`,
      () =>
        new DataLoader(async (ids: readonly string[]) => {
          const trends = await this.service.trends(ids, take);
          return ids.map((id) => trends.get(id) ?? []);
        }),
    );
    return loader.load(product.id);
  }

  @FieldResolver(() => [ScoreResultType], {
    description:
      "The product's latest results, newest first (product view): one page (limit 1–100, default 20); resultPage also gives the next page's cursor. Batched: any number of products costs two SQL statements.",
  })
  async results(
    @Root() product: ProductType,
    @Args(() => PageArgs) page: PageArgs,
    @Ctx() context: GraphQLContext,
  ): Promise<ScoreResultType[]> {
    return (await this.page(product, page, context)).results;
  }

  @FieldResolver(() => ProductResultPage, {
    description:
      "A page of the product's results with the cursor of the next page. REST: GET /api/products/{id}?limit&cursor.",
  })
  async resultPage(
    @Root() product: ProductType,
    @Args(() => PageArgs) page: PageArgs,
    @Ctx() context: GraphQLContext,
  ): Promise<ProductResultPage> {
    return this.page(product, page, context);
  }

  private async page(
    product: ProductType,
    { size, cursor }: PageArgs,
    context: GraphQLContext,
  ): Promise<ProductResultPage> {
    const loader = loaderOf(context, `productResults:${size}:${cursor ?? ""}`, () =>
      this.scoreResults.productResultsLoader(size, cursor ?? undefined),
    );
    const page = await loader.load(product.id);
    return { results: page.results.map(toGraphQLResult), nextCursor: page.nextCursor };
  }
}
