import type { AuthChecker } from "type-graphql";
import { requireMember, requireSessionMember } from "../modules/accounts/viewer.js";
import type { GraphQLContext } from "./context.js";

/**
 * The roles `@Authorized(...)` takes. `@Authorized()`: any member of an account, by
 * session or API key. `@Authorized("session")`: a person signed in with a session,
 * as managing credentials, seats and billing needs (a key cannot mint keys).
 */
export type Role = "session";

/**
 * The one check behind `@Authorized`. It throws the catalogue's errors itself:
 * AUTH_REQUIRED for anonymous callers, FORBIDDEN for an API key on a session-only
 * field (type-graphql's own "Access denied" would carry no code). Reading the
 * viewer charges an API key's API call, also when the key is then refused.
 */
export const authChecker: AuthChecker<GraphQLContext, Role> = async ({ context }, roles) => {
  const viewer = await context.viewer();
  for (const role of roles) {
    if (role !== "session") throw new Error(`@Authorized: unknown role ${JSON.stringify(role)}`);
  }
  if (roles.includes("session")) requireSessionMember(viewer);
  else requireMember(viewer);
  return true;
};
