import { createHash } from "node:crypto";

/** A strong ETag naming exactly these bytes (a hash of them): equal bytes, equal tag, on any process. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}
