import { createPublicKey } from "node:crypto";
import { createRemoteJWKSet, errors, importSPKI, type CryptoKey, type JWTVerifyGetKey } from "jose";

/**
 * Where the keys that sign sessions come from: the provider's JWKS, a configured
 * PEM public key, or the local identity provider's key. Each source also fixes the
 * algorithms a token may claim, so a token can never choose how it is checked.
 */

/**
 * Asymmetric algorithms only. "none" would accept unsigned tokens, and HS* with a
 * public key is the classic confusion attack: the public key (which anyone may
 * read) would become the HMAC secret.
 */
export const sessionAlgorithms = ["RS256", "ES256", "EdDSA"] as const;
export type SessionAlgorithm = (typeof sessionAlgorithms)[number];

export interface SessionKeySource {
  readonly getKey: JWTVerifyGetKey;
  readonly algorithms: readonly SessionAlgorithm[];
}

/**
 * The JWKS could not be fetched or read. It is the provider's fault, not the
 * caller's: the verifier answers 503 (retryable) rather than 401, so clients retry
 * instead of sending the user to a sign-in that cannot succeed either.
 */
export class IdentityProviderUnavailable extends Error {
  constructor(cause: unknown) {
    super("identity provider unavailable", { cause });
    this.name = "IdentityProviderUnavailable";
  }
}

export interface JwksSettings {
  /** After a successful fetch, an unknown `kid` triggers no new fetch for this long. */
  readonly cooldownMs: number;
  /** Keys older than this are refetched before use, so a removed key stops verifying. */
  readonly cacheMaxAgeMs: number;
  /** A cold-cache request waits at most this long for the provider. */
  readonly fetchTimeoutMs: number;
}

export const defaultJwksSettings: JwksSettings = {
  cooldownMs: 30_000,
  cacheMaxAgeMs: 10 * 60_000,
  fetchTimeoutMs: 3_000,
};

/**
 * jose caches the set, shares one in-flight fetch between concurrent requests, and
 * on a `kid` it does not know refetches once, unless the last successful fetch is
 * younger than the cooldown (so random `kid`s cannot make us hammer the provider).
 * A failed fetch does not start the cooldown: the next request tries again.
 */
export function remoteKeySource(jwksUrl: string, settings: JwksSettings): SessionKeySource {
  const remote = createRemoteJWKSet(new URL(jwksUrl), {
    cooldownDuration: settings.cooldownMs,
    cacheMaxAge: settings.cacheMaxAgeMs,
    timeoutDuration: settings.fetchTimeoutMs,
  });
  const getKey: JWTVerifyGetKey = async (protectedHeader, token) => {
    try {
      return await remote(protectedHeader, token);
    } catch (error) {
      // These judge the token against a set we hold; anything else (network,
      // timeout, non-200, malformed set) is the provider failing us.
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported
      ) {
        throw error;
      }
      throw new IdentityProviderUnavailable(error);
    }
  };
  return { getKey, algorithms: sessionAlgorithms };
}

/**
 * SESSION_PUBLIC_KEY (SPKI PEM). The algorithm follows from the key itself, so a
 * token cannot pick another one. Errors name the variable but never echo the key.
 */
export async function publicKeySource(pem: string): Promise<SessionKeySource> {
  // Environment variables often carry PEMs on one line with literal "\n".
  const text = pem.includes("\\n") ? pem.replace(/\\n/g, "\n") : pem;
  if (!text.includes("-----BEGIN PUBLIC KEY-----")) {
    throw new Error("SESSION_PUBLIC_KEY must be a PEM public key (-----BEGIN PUBLIC KEY-----)");
  }
  const algorithm = algorithmOfPem(text);
  let key: CryptoKey;
  try {
    key = await importSPKI(text, algorithm);
  } catch {
    throw new Error(`SESSION_PUBLIC_KEY could not be read as a ${algorithm} public key`);
  }
  return staticKeySource(key, algorithm);
}

/** One known key, e.g. the local identity provider's. */
export function staticKeySource(key: CryptoKey, algorithm: SessionAlgorithm): SessionKeySource {
  return { getKey: () => key, algorithms: [algorithm] };
}

function algorithmOfPem(pem: string): SessionAlgorithm {
  let type: string | undefined;
  let curve: string | undefined;
  try {
    const key = createPublicKey({ key: pem, format: "pem" });
    type = key.asymmetricKeyType;
    curve = key.asymmetricKeyDetails?.namedCurve;
  } catch {
    throw new Error("SESSION_PUBLIC_KEY is not a readable PEM public key");
  }
  if (type === "rsa") return "RS256";
  if (type === "ec" && curve === "prime256v1") return "ES256";
  if (type === "ed25519") return "EdDSA";
  throw new Error(
    `SESSION_PUBLIC_KEY has an unsupported key type (${type ?? "unknown"}${curve ? ` ${curve}` : ""}); use RSA, EC P-256 or Ed25519`,
  );
}
