import type { Transaction } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import { actionCostTenths } from "../billing/plans.js";
import type { CreditLedger, LedgerOptions } from "../billing/ledger.service.js";
import { apiCallAllowanceHeaders } from "../billing/rate-limit/rate-limit-headers.js";
import type { AccountsService } from "./accounts.service.js";
import type { ApiKeyMode } from "./api-keys/api-key-secret.js";
import type { ApiKeysService } from "./api-keys/api-keys.service.js";
import type { SessionVerifier } from "./session/session-verifier.js";

/**
 * Who is calling: nobody, or a member of an account. `apiVersion` is the account's
 * pinned API version where the credential check read it (docs/api.md §14).
 */
export type Viewer =
  | { readonly kind: "anonymous" }
  | {
      readonly kind: "member";
      readonly accountId: string;
      readonly userId: string;
      readonly via: "session";
      readonly apiVersion?: string;
    }
  | {
      readonly kind: "member";
      readonly accountId: string;
      readonly apiKeyId: string;
      readonly via: "api_key";
      /** A test key is metered as a session is: no API call (docs/api.md §14). */
      readonly keyMode: ApiKeyMode;
      readonly apiVersion?: string;
    };

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
    private readonly apiKeys: ApiKeysService,
    private readonly ledger: CreditLedger,
  ) {}

  /**
   * An API key (Authorization: Bearer) wins over a cookie. Each request it
   * authenticates is one API call: 0.1 credit and one unit of the monthly ceiling,
   * charged here, before the operation runs.
   */
  async fromRequest(request: CredentialSource): Promise<Viewer> {
    const viewer = await this.identify(request);
    await this.chargeApiCall(viewer, request.id);
    return viewer;
  }

  /** Who the credentials name, charging nothing. */
  async identify(request: CredentialSource): Promise<Viewer> {
    const { authorization, cookie } = request.headers;
    if (authorization !== undefined) {
      const [scheme, secret, ...rest] = authorization.trim().split(/\s+/);
      if (scheme?.toLowerCase() !== "bearer" || !secret || rest.length > 0) {
        throw new AppError("AUTH_REQUIRED", "Send the API key as 'Authorization: Bearer <key>'.");
      }
      const key = await this.apiKeys.authenticate(secret);
      return {
        kind: "member",
        accountId: key.accountId,
        apiKeyId: key.keyId,
        via: "api_key",
        keyMode: key.mode,
        apiVersion: key.apiVersion,
      };
    }
    const token = cookieValue(cookie, SESSION_COOKIE);
    if (token === undefined) return ANONYMOUS;
    const claims = await this.sessions.verify(token);
    const member = await this.accounts.signIn(claims);
    return { kind: "member", ...member, via: "session" };
  }

  /**
   * One API call for a live-key-authenticated viewer (nothing for others), optionally inside
   * the caller's transaction. Answers the RateLimit headers of the monthly allowance
   * after this call, from the count the charge itself wrote (undefined: nothing charged,
   * or no ceiling). A test key is charged as its account's session would be: the
   * operation's own credits and quotas, no API call, since Free and Pro have no API-call
   * allowance and test keys exist to try the API on any plan.
   */
  async chargeApiCall(
    viewer: Viewer,
    requestId: string,
    options: LedgerOptions = {},
  ): Promise<Record<string, string> | undefined> {
    if (viewer.kind !== "member" || viewer.via !== "api_key" || viewer.keyMode === "test") return undefined;
    const spent = await this.ledger.spendCounted(
      viewer.accountId,
      "api_call",
      actionCostTenths.api_call,
      `request:${requestId}`,
      options,
    );
    return apiCallAllowanceHeaders(spent, new Date());
  }
}

/**
 * A caller whose operation charges its own API call (an API key's), after the
 * refusals that must cost nothing (rate limit, not found) and inside the
 * transaction of what it does.
 */
export interface MeteredCaller {
  readonly viewer: Viewer;
  /** Rate-limit headers to send with the answer. */
  readonly setHeaders: (headers: Readonly<Record<string, string>>) => void;
  /** Called once the API call was charged inside the operation's transaction. */
  readonly apiCallCharged: () => void;
  /** Charges one API call for an API-key viewer inside the given transaction. */
  readonly chargeApiCall: (tx: Transaction) => Promise<void>;
}

export interface CredentialSource {
  readonly headers: { readonly cookie?: string | undefined; readonly authorization?: string | undefined };
  readonly id: string;
}

/** The member, or AUTH_REQUIRED: what operations that need an account call first. */
export function requireMember(viewer: Viewer): Extract<Viewer, { kind: "member" }> {
  if (viewer.kind !== "member")
    throw new AppError("AUTH_REQUIRED", "This operation needs a signed-in session or an API key.");
  return viewer;
}

/** A person signed in with a session: what managing credentials needs (a key cannot mint keys). */
export function requireSessionMember(viewer: Viewer): Extract<Viewer, { via: "session" }> {
  const member = requireMember(viewer);
  if (member.via !== "session")
    throw new AppError("FORBIDDEN", "This operation needs a signed-in session, not an API key.");
  return member;
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
