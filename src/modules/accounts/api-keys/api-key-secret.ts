import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * Key format (docs/api.md §5): a prefix naming the mode (`pms_live_` or `pms_test_`)
 * + 32 random bytes in base62 + a 6-character base62 CRC-32 of that random part, as
 * GitHub's tokens do, so leak scanners can recognise a real key without asking us,
 * and tell a live key from a test one by its prefix; a mistyped key is refused
 * without a database lookup.
 */
export const apiKeyModes = ["live", "test"] as const;
export type ApiKeyMode = (typeof apiKeyModes)[number];
export const KEY_PREFIXES: Readonly<Record<ApiKeyMode, string>> = { live: "pms_live_", test: "pms_test_" };
const PREFIX_LENGTH = 9; // both prefixes
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 43; // ceil(256 bits / log2(62))
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(`^pms_(live|test)_[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
/** Characters shown in lists: enough to tell keys apart, far too few to use. */
export const VISIBLE_PREFIX_LENGTH = PREFIX_LENGTH + 4;

export function newSecret(mode: ApiKeyMode = "live"): string {
  const body = base62(randomBytes(32), BODY_LENGTH);
  return `${KEY_PREFIXES[mode]}${body}${checksum(body)}`;
}

/** The mode of a well-formed secret with a valid checksum (only then is the database asked), else undefined. */
export function modeOf(secret: string): ApiKeyMode | undefined {
  const shape = SHAPE.exec(secret);
  if (!shape) return undefined;
  const body = secret.slice(PREFIX_LENGTH, PREFIX_LENGTH + BODY_LENGTH);
  return secret.endsWith(checksum(body)) ? (shape[1] as ApiKeyMode) : undefined;
}

export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

function base62(bytes: Buffer, length: number): string {
  let value = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (out.length < length) {
    out = ALPHABET[Number(value % 62n)]! + out;
    value /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  return base62(Buffer.from(crc32(body).toString(16).padStart(8, "0"), "hex"), CHECKSUM_LENGTH);
}
