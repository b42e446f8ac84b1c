/**
 * The input limits the contract promises (docs/api.md "Input limits", §4), declared once:
 * the GraphQL input classes state them with class-validator, the services that must
 * re-check them (their callers are not only GraphQL) read them, and so does the
 * OpenAPI document. A leaf module: it imports nothing, so any layer may read it.
 */

/** A web address to score, or a webhook's destination, in characters. */
export const MAX_URL_LENGTH = 2_048;

/** The optional context sent with a score, in characters. */
export const MAX_CONTEXT_LENGTH = 5_000;

/** One chat message, in characters. */
export const MAX_CHAT_MESSAGE_LENGTH = 4_000;

/** Webhooks one account may have (docs/api.md §7). */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

/** An API key's name, in characters, at least one (docs/api.md §5). */
export const MAX_API_KEY_NAME_LENGTH = 100;

/** `limit` of every paginated field and route. */
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

/** An `Idempotency-Key` header, in visible ASCII characters (docs/api.md §3). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A request body, in bytes. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A product's trend: the last N completed totals (`Product.trend(limit)`, default 12, at most 52: a year of weekly runs). */
export const TREND_POINTS = { min: 1, max: 52, default: 12 } as const;

/** Monitored products one scheduler claim transaction takes at most (a tick runs claims until none is due). */
export const MONITOR_CLAIM_BATCH = 200;
/** Addresses in one batch (`POST /api/score/batch`, docs/api.md §13). */
export const MAX_BATCH_URLS = 100;
