import { UseMiddleware, type MiddlewareFn } from "type-graphql";
import type { GraphQLContext } from "../context.js";

const identifyFirst: MiddlewareFn<GraphQLContext> = async ({ context }, next) => {
  await context.identify();
  return next();
};

/**
 * For fields open to anonymous callers that charge their own API call (scoring):
 * the caller's credentials are checked before the arguments are validated, so a
 * bad key or an ended session is AUTH_REQUIRED whatever the input, as on
 * `@Authorized` fields. Identifying charges nothing.
 */
export function IdentifyCaller() {
  return UseMiddleware(identifyFirst);
}
