import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * Key format (docs/api.md §5): `pms_live_` + 32 random bytes in base62 + a 6-character
 * base62 CRC-32 of that random part, as GitHub's tokens do, so leak scanners can
 * recognise a real key without asking us, and a mistyped key is refused without a
 * database lookup.
 */
export const KEY_PREFIX = "pms_live_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 43; // ceil(256 bits / log2(62))
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
/** Characters shown in lists: enough to tell keys apart, far too few to use. */
export const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 4;

export function newSecret(): string {
  const body = base62(randomBytes(32), BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** Well-formed with a valid checksum: only then is the database asked. */
export function isWellFormed(secret: string): boolean {
  if (!SHAPE.test(secret)) return false;
  const body = secret.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return secret.endsWith(checksum(body));
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
