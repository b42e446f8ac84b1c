import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * How an `Idempotency-Key` is kept: as a digest, so the table never holds what
 * callers sent; and how an anonymous job's claim token is kept beside it: sealed
 * (AES-256-GCM) under a key derived from the Idempotency-Key as sent and its scope.
 * A replay brings the key, so whichever process answers it opens the same token;
 * the table alone opens nothing. The seal is as strong as the key the caller
 * chose (the client and CLI send random UUIDs).
 */
export function idempotencyKeyDigest(key: string): string {
  return `sha256:${createHash("sha256").update(key, "utf8").digest("hex")}`;
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealKey(scope: string, key: string): Buffer {
  return Buffer.from(
    hkdfSync("sha256", Buffer.from(key, "utf8"), Buffer.from(scope, "utf8"), "pms claim token seal v1", 32),
  );
}

export function sealClaimToken(token: string, scope: string, key: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealKey(scope, key), iv);
  const sealed = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url")}`;
}

/** The sealed token, or undefined when the seal does not open with this key (or is not one). */
export function openClaimToken(sealed: string, scope: string, key: string): string | undefined {
  if (!sealed.startsWith(`${VERSION}.`)) return undefined;
  const bytes = Buffer.from(sealed.slice(VERSION.length + 1), "base64url");
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(scope, key), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    return undefined;
  }
}
