import { AppError } from "../../errors.js";

/**
 * Keyset cursors: the (createdAt, id) of the last item, opaque to callers. Timestamps
 * keep their microseconds as an ISO string with the id as the tie-breaker.
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString("base64url");
}

export function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof at === "string" && typeof id === "string" && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/i.test(id)) return { at, id };
  } catch {
    // fall through
  }
  throw new AppError("VALIDATION_FAILED", "cursor: is not a cursor this API returned");
}

/** `limit`: 1–100, default 20 (DESIGN.md §3). */
export function pageLimit(limit: number | null | undefined): number {
  if (limit == null) return 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new AppError("VALIDATION_FAILED", "limit: must be a whole number from 1 to 100");
  return limit;
}
