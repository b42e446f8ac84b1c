import { createParameterDecorator } from "type-graphql";
import { requireMember, requireSessionMember, type Viewer } from "../../modules/accounts/viewer.js";
import type { GraphQLContext } from "../context.js";

export type Member = Extract<Viewer, { kind: "member" }>;
export type MemberBySession = Extract<Viewer, { via: "session" }>;

/**
 * Who is calling, member or anonymous. Resolving it charges an API key's API call
 * (once per request, however many fields ask); subscriptions' `subscribe` reads it
 * here too, as they have no parameters.
 */
export const currentViewer = ({ context }: { readonly context: GraphQLContext }): Promise<Viewer> => context.viewer();

/** The caller, anonymous included: for fields that also answer anonymous callers. */
export function CurrentViewer() {
  return createParameterDecorator<GraphQLContext>(currentViewer);
}

/**
 * The member calling (session or API key). Pair it with `@Authorized()`, which
 * refuses anyone else before the arguments are validated; this check is the net.
 */
export function CurrentMember() {
  return createParameterDecorator<GraphQLContext>(async (data) => requireMember(await currentViewer(data)));
}

/** The person signed in with a session (not an API key). Pair it with `@Authorized("session")`. */
export function SessionMember() {
  return createParameterDecorator<GraphQLContext>(async (data) => requireSessionMember(await currentViewer(data)));
}
