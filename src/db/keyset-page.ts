import type { ObjectLiteral, SelectQueryBuilder } from "typeorm";
import { AppError } from "../errors.js";
import { isUuid } from "./uuid.js";
import { PAGE_SIZE } from "../limits.js";

/**
 * Keyset cursors: the (createdAt, id) of the last item, opaque to callers. Every
 * table paged this way stores created_at to the millisecond (timestamptz(3)), as a
 * JavaScript Date holds it, so the cursor names the row exactly; the id breaks ties.
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString("base64url");
}

/**
 * Only the exact `toISOString()` form this API writes, years 0001–9999: `at` goes to
 * Postgres as text, which rejects or misreads much of what `Date.parse` accepts ("1",
 * "March 7", the ±YYYYYY extended years, year 0000), and that would be a 500.
 */
const ISSUED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isIssuedAt = (at: unknown): at is string =>
  typeof at === "string" &&
  ISSUED_AT.test(at) &&
  !at.startsWith("0000") &&
  !Number.isNaN(Date.parse(at)) &&
  new Date(at).toISOString() === at;

export function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(decoded) && decoded.length === 2) {
      const [at, id] = decoded as unknown[];
      if (isIssuedAt(at) && isUuid(id)) return { at, id };
    }
  } catch {
    // fall through
  }
  throw new AppError("VALIDATION_FAILED", "cursor: is not a cursor this API returned");
}

/** `limit`: 1–100, default 20 (docs/api.md §3); the GraphQL door checks it first, in PageArgs, with this message. */
export function pageLimit(limit: number | null | undefined): number {
  if (limit == null) return PAGE_SIZE.default;
  if (!Number.isInteger(limit) || limit < PAGE_SIZE.min || limit > PAGE_SIZE.max) {
    throw new AppError("VALIDATION_FAILED", `limit: must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`);
  }
  return limit;
}

/**
 * One page of a query, newest first by (created_at, id) of `alias`, after the
 * cursor; `nextCursor` is null on the last page. One statement: it reads limit + 1 rows.
 */
export async function keysetPage<T extends ObjectLiteral & { createdAt: Date; id: string }>(
  query: SelectQueryBuilder<T>,
  alias: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ rows: T[]; nextCursor: string | null }> {
  query
    .orderBy(`${alias}.created_at`, "DESC")
    .addOrderBy(`${alias}.id`, "DESC")
    .take(limit + 1);
  if (cursor) {
    const after = decodeCursor(cursor);
    // Names of their own: the caller's query may already bind `:id` (chat did: its conversation's id was
    // overwritten by the cursor's, and every page after the first came back empty).
    query.andWhere(`(${alias}.created_at, ${alias}.id) < (:keysetAt, :keysetId)`, {
      keysetAt: after.at,
      keysetId: after.id,
    });
  }
  const rows = await query.getMany();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}
