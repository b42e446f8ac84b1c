import type { FastifyInstance, FastifyReply } from "fastify";
import type { GraphQLSchema } from "graphql";
import { executorFor } from "../../rest-compat/executor.js";
import { ResultBadgeDocument } from "../../rest-compat/generated/operations.js";
import { BADGE_HEADERS } from "../../rest-compat/routes.js";
import { toAppError } from "../errors.js";
import { renderBadgeSvg, unavailableBadgeSpec } from "../modules/score/badge-svg.js";
import { ifNoneMatchNames } from "../net/if-none-match.js";
import { strongEtag } from "../net/strong-etag.js";
import { requestContext } from "./server.js";

export const RESULT_BADGE_PATH = "/r/:id/badge.svg";

/** A result's badge never changes once it belongs to an account. */
export const FINAL_BADGE_CACHE = "public, max-age=31536000, immutable";
/** A held result may still be purged: caches keep it but ask every time, so a purge is seen. */
export const HELD_BADGE_CACHE = "public, no-cache";

/** What an unknown, malformed or purged id answers: the same image for each, so none is told apart. */
const NOT_FOUND_SVG = Buffer.from(renderBadgeSvg(unavailableBadgeSpec("not found")), "utf8");

/**
 * `/r/{id}/badge.svg`: the badge of a result, shown exactly when its share page is
 * (the same public read, `scoreResult`, run as the `ResultBadge` operation, so the
 * image is the `ScoreResult.badge.svg` GraphQL answers). A miss is a 404 that is
 * still an image: a README's <img> shows "not found" rather than a broken icon.
 */
export function resultBadgeRoute(schema: GraphQLSchema) {
  const run = executorFor(schema, { operation: ResultBadgeDocument });
  // Final badges never change: repeats (README views through a CDN that revalidates,
  // many results' badges on one page) are served from memory without the operation.
  const finals = new Map<string, { readonly bytes: Buffer; readonly etag: string }>();
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { id: string } }>(RESULT_BADGE_PATH, async (request, reply) => {
      reply.headers(BADGE_HEADERS).header("content-type", "image/svg+xml");
      const cached = finals.get(request.params.id);
      if (cached) return sendBadge(request.headers["if-none-match"], reply, cached, FINAL_BADGE_CACHE);
      // A public field: no credential is read, and no anonymous cap or API call is counted.
      const result = await run({ id: request.params.id }, requestContext(request));
      const error = result.errors?.[0];
      const answer = result.data?.scoreResult as { held: boolean; badge: { svg: string } } | undefined;
      if (error || !answer) {
        const appError = toAppError(error ?? new Error("ResultBadge returned no data"));
        if (appError.code !== "NOT_FOUND") throw appError;
        return reply.code(404).header("cache-control", "no-store").send(NOT_FOUND_SVG);
      }
      const bytes = Buffer.from(answer.badge.svg, "utf8");
      const badge = { bytes, etag: strongEtag(bytes) };
      if (!answer.held) {
        finals.set(request.params.id, badge);
        if (finals.size > FINAL_BADGES_KEPT) finals.delete(finals.keys().next().value!);
      }
      return sendBadge(
        request.headers["if-none-match"],
        reply,
        badge,
        answer.held ? HELD_BADGE_CACHE : FINAL_BADGE_CACHE,
      );
    });
  };
}

/** About 1 KB each: a few MB at most. */
const FINAL_BADGES_KEPT = 4_096;

function sendBadge(
  ifNoneMatch: string | string[] | undefined,
  reply: FastifyReply,
  badge: { readonly bytes: Buffer; readonly etag: string },
  cacheControl: string,
) {
  reply.header("etag", badge.etag).header("cache-control", cacheControl);
  if (ifNoneMatchNames(ifNoneMatch, badge.etag)) return reply.code(304).send();
  return reply.send(badge.bytes);
}
