import type { FastifyInstance } from "fastify";
import { apiVersionHeaders, CURRENT_API_VERSION, requestedApiVersion } from "../api-versions.js";
import { toAppError } from "../errors.js";
import { sendError } from "./error-reply.js";

/**
 * Versioning at the door (docs/api.md §14): every API answer (REST under `prefix`, and
 * GraphQL) names the version it used in `Pms-Version`; an unknown version is refused
 * before anything runs. Here the answer says the version sent, or the newest; an
 * authenticated request without the header is corrected to its account's pinned
 * version when its credential is read (src/graphql/context.ts).
 */
export function registerApiVersions(app: FastifyInstance, paths: { rest: string; graphql: string }): void {
  const isApiPath = (url: string) => {
    const path = url.split("?")[0]!;
    return path === paths.graphql || path === paths.rest || path.startsWith(`${paths.rest}/`);
  };
  app.addHook("onRequest", async (request, reply) => {
    if (!isApiPath(request.url)) return;
    let version: string;
    try {
      version = requestedApiVersion(request.headers["pms-version"]) ?? CURRENT_API_VERSION;
    } catch (error) {
      reply.headers(apiVersionHeaders(CURRENT_API_VERSION));
      return sendError(reply, toAppError(error));
    }
    reply.headers(apiVersionHeaders(version));
  });
}
