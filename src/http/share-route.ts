import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.js";
import type { ScoreResultsService } from "../modules/score/score-results.service.js";
import { badgeOf, resultBadgeUrls } from "../modules/score/badge.js";
import { ifNoneMatchNames } from "../net/if-none-match.js";
import { sendNotFoundPage } from "./not-found-page.js";
import { renderSharePage, sharePageCsp } from "./share-page.js";

export const SHARE_PATH = "/r/:id";

/**
 * `/r/{id}`: the share page of a result, for people. A result of an account never
 * changes, so its page is cacheable and revalidates by ETag: a match is answered 304
 * once the result is found final (a revalidation costs the read, not the rendering).
 * An unknown id is 404 and a held result 200 without an ETag, whatever the header says.
 */
export function shareRoute(results: ScoreResultsService, publicBaseUrl: string) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { id: string } }>(SHARE_PATH, async (request, reply) => {
      const etag = `"r-${request.params.id}-1"`;
      let html: string;
      let final = false;
      try {
        const result = await results.getPublicWithDetails(request.params.id);
        final = !result.held;
        if (final && ifNoneMatchNames(request.headers["if-none-match"], etag)) {
          return reply.code(304).header("etag", etag).header("cache-control", "public, max-age=300").send();
        }
        const badgeUrls = resultBadgeUrls(publicBaseUrl, result.id);
        html = renderSharePage(result, { publicBaseUrl, badge: badgeOf(result, badgeUrls.image, badgeUrls.page) });
      } catch (error) {
        if (error instanceof AppError && error.code === "NOT_FOUND") {
          return sendNotFoundPage(reply, {
            title: "Result not found",
            message:
              "This score result does not exist, or it was an anonymous result that was never claimed and has expired.",
          });
        }
        throw error;
      }
      // A held anonymous result may still be purged: it is not cached, and carries no ETag.
      if (final) reply.header("cache-control", "public, max-age=300").header("etag", etag);
      else reply.header("cache-control", "no-store");
      return reply
        .header("content-type", "text/html; charset=utf-8")
        .header("content-security-policy", sharePageCsp(html))
        .header("referrer-policy", "no-referrer")
        .send(html);
    });
  };
}
