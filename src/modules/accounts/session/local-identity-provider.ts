import { createHash } from "node:crypto";
import { generateKeyPair, SignJWT, type CryptoKey } from "jose";
import type { Config } from "../../../config.js";
import { AppError } from "../../../errors.js";

/**
 * The development stand-in for the external identity provider (docs/api.md §5): it
 * signs real session JWTs that the SessionVerifier checks exactly as it checks a
 * provider's, so the sign-in path under test is the one production runs.
 *
 * Its key pair lives in memory, generated once per process: nothing secret is ever
 * written to disk, and the price is that local sessions end when the process
 * restarts (sign in again with POST /dev/login).
 */

export const LOCAL_ISSUER = "pms-local-idp";
export const LOCAL_AUTHORIZED_PARTY = "pms-local";
const SESSION_LIFETIME_SECONDS = 7 * 24 * 60 * 60;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface LocalIdentity {
  readonly email: string;
  readonly name?: string;
}

export class LocalIdentityProvider {
  readonly issuer = LOCAL_ISSUER;
  readonly authorizedParty = LOCAL_AUTHORIZED_PARTY;
  readonly algorithm = "ES256" as const;
  /** For the cookie's Max-Age: it ends when the token does. */
  readonly sessionLifetimeSeconds = SESSION_LIFETIME_SECONDS;

  private constructor(
    private readonly privateKey: CryptoKey,
    /** What the verifier checks signatures against. */
    readonly publicKey: CryptoKey,
    private readonly clock: () => Date,
  ) {}

  /** Throws in production: there, anyone who reached /dev/login could be anyone. */
  static async create(
    config: Pick<Config, "isProduction">,
    options: { clock?: () => Date } = {},
  ): Promise<LocalIdentityProvider> {
    if (config.isProduction) {
      throw new Error(
        "The local identity provider is disabled in production; configure SESSION_JWKS_URL or SESSION_PUBLIC_KEY",
      );
    }
    // Non-extractable private key: not even a debugger dump of the object exports it.
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: false });
    return new LocalIdentityProvider(privateKey, publicKey, options.clock ?? (() => new Date()));
  }

  /** A signed session JWT for this person, valid for seven days. */
  async issue(identity: LocalIdentity): Promise<string> {
    const email = identity.email.trim().toLowerCase();
    if (email.length > 320 || !EMAIL.test(email)) {
      throw new AppError("VALIDATION_FAILED", "email: must be an e-mail address");
    }
    const name = identity.name?.trim();
    if (name !== undefined && name.length > 200) {
      throw new AppError("VALIDATION_FAILED", "name: must be at most 200 characters");
    }
    const issuedAt = Math.floor(this.clock().getTime() / 1000);
    return new SignJWT({ email, email_verified: true, azp: this.authorizedParty, ...(name ? { name } : {}) })
      .setProtectedHeader({ alg: this.algorithm, typ: "JWT" })
      .setSubject(localSubjectFor(email))
      .setIssuer(this.issuer)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + SESSION_LIFETIME_SECONDS)
      .sign(this.privateKey);
  }
}

/**
 * The same e-mail always gets the same subject, across restarts and key pairs, so
 * signing in again finds the same user; hashing keeps the address out of the id.
 */
export function localSubjectFor(email: string): string {
  const digest = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return `local|${digest.slice(0, 16)}`;
}

/** The service signs its own sessions only outside production and when no provider is configured. */
export function usesLocalIdentityProvider(config: Pick<Config, "isProduction" | "session">): boolean {
  return !config.isProduction && !config.session.jwksUrl && !config.session.publicKey;
}
