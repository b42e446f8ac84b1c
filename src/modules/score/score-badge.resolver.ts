import { FieldResolver, Resolver, Root } from "type-graphql";
import { badgeOf, resultBadgeUrls } from "./badge.js";
import { BadgeType } from "./badge.types.js";
import { ScoreResultType } from "./score.types.js";

/**
 * `ScoreResult.badge`: drawn from the result's own total and stage, so it costs no
 * read beyond the result's, and is readable wherever the result is (share links).
 */
@Resolver(() => ScoreResultType)
export class ScoreBadgeResolver {
  constructor(
    /** PUBLIC_BASE_URL: the snippets must work outside this service's origin. */
    private readonly publicBaseUrl: string,
  ) {}

  @FieldResolver(() => BadgeType, {
    description:
      'The result\'s badge ("maturity | 72 · Scaling") with its image address and Markdown/HTML snippets linking to the share page. REST: GET /r/{id}/badge.svg.',
  })
  badge(@Root() result: ScoreResultType): BadgeType {
    const urls = resultBadgeUrls(this.publicBaseUrl, result.id);
    return badgeOf(result, urls.image, urls.page);
  }
}
