import { IsInt, IsOptional, Max, Min } from "class-validator";
import { ArgsType, Field, Int } from "type-graphql";
import { PAGE_SIZE } from "../limits.js";

// One message for every way a limit can be wrong, as the REST contract words it ("limit: …").
const outOfRange = { message: `must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}` };

/**
 * `limit` and `cursor` of a paginated field (docs/api.md "Input limits"): newest first, keyset
 * cursors. Neither has a GraphQL default: an absent or null `limit` is the default
 * page size, which `size` answers.
 */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: `${PAGE_SIZE.min}–${PAGE_SIZE.max}, default ${PAGE_SIZE.default}.` })
  @IsOptional()
  @IsInt(outOfRange)
  @Min(PAGE_SIZE.min, outOfRange)
  @Max(PAGE_SIZE.max, outOfRange)
  limit?: number | null;

  @Field(() => String, { nullable: true, description: "The nextCursor of the previous page." })
  cursor?: string | null;

  /** The page size asked for, or the default. */
  get size(): number {
    return this.limit ?? PAGE_SIZE.default;
  }
}

/**
 * PageArgs whose `limit` the committed schema describes in words ("1 to 100") on the
 * fields of an account's sub-resources; its validation is PageArgs' own.
 */
@ArgsType()
export class WordedPageArgs extends PageArgs {
  // Only the description differs. `undefined` keeps the argument without a GraphQL default.
  @Field(() => Int, {
    nullable: true,
    description: `${PAGE_SIZE.min} to ${PAGE_SIZE.max}, default ${PAGE_SIZE.default}.`,
  })
  override limit?: number | null = undefined;
}
