import { AppError } from "../../errors.js";
import type { AccountsService } from "./accounts.service.js";
import type { SessionVerifier } from "./session/session-verifier.js";

/** Who is calling: nobody, or a member of an account. */
export type Viewer = { readonly kind: "anonymous" } | { readonly kind: "member"; readonly userId: string; readonly accountId: string; readonly via: "session" };

export const ANONYMOUS: Viewer = { kind: "anonymous" };
export const SESSION_COOKIE = "__session";

/**
 * Credentials → viewer, for every front door. A present but invalid session is an
 * error (401), not silently anonymous: the caller should learn its session ended.
 */
export class Authenticator {
  constructor(
    private readonly sessions: SessionVerifier,
    private readonly accounts: AccountsService,
  ) {}

  async fromHeaders(headers: { readonly cookie?: string | undefined }): Promise<Viewer> {
    const token = cookieValue(headers.cookie, SESSION_COOKIE);
    if (token === undefined) return ANONYMOUS;
    const claims = await this.sessions.verify(token);
    const member = await this.accounts.signIn(claims);
    return { kind: "member", ...member, via: "session" };
  }
}

/** The member, or AUTH_REQUIRED: what operations that need an account call first. */
export function requireMember(viewer: Viewer): Extract<Viewer, { kind: "member" }> {
  if (viewer.kind !== "member") throw new AppError("AUTH_REQUIRED", "This operation needs a signed-in session.");
  return viewer;
}

/** One cookie's value from a Cookie header (RFC 6265 syntax; quoted values unwrapped). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}
