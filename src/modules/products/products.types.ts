import { Field, GraphQLISODateTime, ID, ObjectType } from "type-graphql";
import { ScoreResultType } from "../score/score.types.js";

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
}

@ObjectType({ description: "The account's products, newest first." })
export class ProductList {
  @Field(() => [ProductType], { description: "A page of products." })
  products: ProductType[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page." })
  nextCursor: string | null;
}
