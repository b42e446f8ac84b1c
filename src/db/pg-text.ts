/**
 * What Postgres refuses in text it is given: U+0000 (in `text`, and as `\u0000` in
 * `jsonb`) and, in `jsonb`, a UTF-16 surrogate without its pair (JSON.stringify writes
 * it as a lone `\ud83d` escape, which Postgres rejects). Text from outside (crawled
 * pages, a model's answer) can carry either, and a string cut to a length can split
 * a pair; one such character would fail the whole insert it travels in.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The text with NUL removed (a browser drops it from a page's text too) and each lone
 * surrogate replaced by U+FFFD, as a UTF-8 encoder would. Most text has neither, and
 * comes back as the same string.
 */
export function storableText(text: string): string {
  UNSTORABLE.lastIndex = 0;
  if (!UNSTORABLE.test(text)) return text;
  return text.replace(UNSTORABLE, (found) => (found === "\u0000" ? "" : "\uFFFD"));
}

/** `value` with every string in it, keys included, made storable; other values as they are. */
export function storableDeep<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => storableDeep(item)) as T;
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [storableText(key), storableDeep(inner)]),
    ) as T;
  }
  return value;
}
