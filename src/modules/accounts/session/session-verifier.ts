import { errors, jwtVerify, type JWTPayload } from "jose";
import type { Config } from "../../../config.js";
import { AppError } from "../../../errors.js";
import type { LocalIdentityProvider } from "./local-identity-provider.js";
import {
  defaultJwksSettings,
  IdentityProviderUnavailable,
  publicKeySource,
  remoteKeySource,
  staticKeySource,
  type SessionKeySource,
} from "./session-keys.js";

/** What a verified `__session` JWT tells us about the person signed in. */
export interface SessionClaims {
  /** The provider's `sub`: the stable identity, unlike the e-mail address. */
  readonly subject: string;
  readonly email?: string;
  /** The provider's `email_verified` claim; only a verified address can accept an invitation. */
  readonly emailVerified: boolean;
  readonly name?: string;
  readonly issuer: string;
  readonly authorizedParty?: string;
  readonly expiresAt: Date;
}

export interface SessionVerifierOptions {
  /** The verifier's notion of now for `exp`/`nbf`; tests inject a fixed one. */
  readonly clock?: () => Date;
  /** Skew allowed between our clock and the provider's, both ways. Default 30 s. */
  readonly clockToleranceSeconds?: number;
  readonly fetchTimeoutMs?: number;
  readonly jwksCooldownMs?: number;
  readonly jwksCacheMaxAgeMs?: number;
  /** Required, and only allowed, when neither SESSION_JWKS_URL nor SESSION_PUBLIC_KEY is set. */
  readonly localIdentityProvider?: LocalIdentityProvider;
}

interface SessionVerifierSettings {
  readonly keys: SessionKeySource;
  /** Undefined accepts any issuer (outside production only: config requires SESSION_ISSUER there). */
  readonly issuer: string | undefined;
  /** Empty accepts any `azp`, or none. */
  readonly authorizedParties: readonly string[];
  /** Empty accepts any `aud`, or none (outside production only, unless parties are checked). */
  readonly audiences: readonly string[];
  readonly clock: () => Date;
  readonly clockToleranceSeconds: number;
}

/**
 * Checks a session JWT: signature, algorithm, `exp`/`nbf` (with skew), issuer,
 * audience, authorized party and subject. A refusal is AUTH_REQUIRED (401) with a short
 * reason that names the failed check and nothing else; a provider we cannot reach
 * is SERVICE_UNAVAILABLE (503), because signing in again would not help.
 */
export class SessionVerifier {
  constructor(private readonly settings: SessionVerifierSettings) {}

  async verify(token: string): Promise<SessionClaims> {
    const { keys, issuer, audiences, clock, clockToleranceSeconds } = this.settings;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys.getKey, {
        algorithms: [...keys.algorithms],
        issuer,
        // jose refuses a token whose `aud` (string or list) names none of these, or that has none.
        ...(audiences.length > 0 ? { audience: [...audiences] } : {}),
        // A session without `exp` would never end, and without `iss` its `sub` has
        // no namespace: both are refused even where the issuer is not pinned.
        requiredClaims: ["sub", "iss", "exp"],
        clockTolerance: clockToleranceSeconds,
        currentDate: clock(),
      }));
    } catch (error) {
      throw refusal(error);
    }
    return this.claimsOf(payload);
  }

  private claimsOf(payload: JWTPayload): SessionClaims {
    const {
      sub,
      iss,
      exp,
      azp,
      email,
      name,
      email_verified: emailVerified,
    } = payload as JWTPayload & Record<"azp" | "email" | "name" | "email_verified", unknown>;
    if (typeof sub !== "string" || sub === "") throw refused("session has no subject");
    if (typeof iss !== "string" || iss === "") throw refused("session issuer not accepted");
    const parties = this.settings.authorizedParties;
    if (parties.length > 0 && (typeof azp !== "string" || !parties.includes(azp))) {
      throw refused("session authorized party not accepted");
    }
    return {
      subject: sub,
      issuer: iss,
      // jose has checked that `exp` is a number; the claim is in seconds.
      expiresAt: new Date((exp as number) * 1000),
      // Profile claims are informational: a provider sending another type is ignored, not fatal.
      ...(typeof email === "string" && email !== "" ? { email } : {}),
      emailVerified: emailVerified === true,
      ...(typeof name === "string" && name !== "" ? { name } : {}),
      ...(typeof azp === "string" ? { authorizedParty: azp } : {}),
    };
  }
}

/**
 * The verifier the configuration asks for: the provider's JWKS, else its PEM public
 * key, else (outside production) the local identity provider's key, issuer and party.
 * Throws at boot, with the variable to fix, when none or more than one applies.
 */
export async function createSessionVerifier(
  config: Pick<Config, "isProduction" | "session">,
  options: SessionVerifierOptions = {},
): Promise<SessionVerifier> {
  const { jwksUrl, publicKey, issuer, authorizedParties, audiences } = config.session;
  const local = options.localIdentityProvider;
  if (jwksUrl && publicKey) {
    throw new Error("Set SESSION_JWKS_URL or SESSION_PUBLIC_KEY, not both: one source of session keys");
  }
  if ((jwksUrl || publicKey) && local) {
    // Its cookies would be refused by this verifier: /dev/login would sign nobody in.
    throw new Error("The local identity provider is only used when no SESSION_JWKS_URL or SESSION_PUBLIC_KEY is set");
  }
  const clockToleranceSeconds = options.clockToleranceSeconds ?? 30;
  if (!Number.isFinite(clockToleranceSeconds) || clockToleranceSeconds < 0) {
    // jose would only notice at verify time, turning a setup mistake into 401s.
    throw new Error("clockToleranceSeconds must be a non-negative number");
  }
  const common = { clock: options.clock ?? (() => new Date()), clockToleranceSeconds };

  if (jwksUrl) {
    const keys = remoteKeySource(jwksUrl, {
      cooldownMs: options.jwksCooldownMs ?? defaultJwksSettings.cooldownMs,
      cacheMaxAgeMs: options.jwksCacheMaxAgeMs ?? defaultJwksSettings.cacheMaxAgeMs,
      fetchTimeoutMs: options.fetchTimeoutMs ?? defaultJwksSettings.fetchTimeoutMs,
    });
    return new SessionVerifier({ keys, issuer, authorizedParties, audiences, ...common });
  }
  if (publicKey) {
    return new SessionVerifier({
      keys: await publicKeySource(publicKey),
      issuer,
      authorizedParties,
      audiences,
      ...common,
    });
  }
  if (local && !config.isProduction) {
    return new SessionVerifier({
      keys: staticKeySource(local.publicKey, local.algorithm),
      issuer: local.issuer,
      authorizedParties: [local.authorizedParty],
      audiences: [],
      ...common,
    });
  }
  throw new Error(
    config.isProduction
      ? "SESSION_JWKS_URL or SESSION_PUBLIC_KEY is required in production"
      : "No session keys: set SESSION_JWKS_URL or SESSION_PUBLIC_KEY, or pass the local identity provider",
  );
}

function refused(reason: string, cause?: unknown): AppError {
  return new AppError("AUTH_REQUIRED", reason, cause === undefined ? {} : { cause });
}

/** The jose claim a JWTClaimValidationFailed names → what the caller is told. */
const claimReasons: Readonly<Record<string, string>> = {
  nbf: "session not yet valid",
  exp: "session has no valid expiry",
  iss: "session issuer not accepted",
  aud: "session audience not accepted",
  sub: "session has no subject",
};

/**
 * jose's messages are precise but written for developers (and its claim errors
 * carry the payload): the caller gets a fixed reason, and no cause is kept for
 * token errors, so logs never hold a token's claims.
 */
function refusal(error: unknown): AppError {
  if (error instanceof IdentityProviderUnavailable) {
    return new AppError("SERVICE_UNAVAILABLE", "identity provider unavailable", { cause: error.cause });
  }
  if (error instanceof errors.JWTExpired) return refused("session expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    return refused(claimReasons[error.claim] ?? "session claims not accepted");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused("session signature invalid");
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refused("session algorithm not accepted");
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    // Multiple: the set holds several keys a `kid`-less token could mean; it must name one.
    return refused("session signing key not recognised");
  }
  if (error instanceof errors.JOSEError) return refused("session token malformed");
  // Not jose's verdict (a bug, or an input jose did not expect): still a refusal,
  // but the cause stays for the logs.
  return refused("session could not be verified", error);
}
