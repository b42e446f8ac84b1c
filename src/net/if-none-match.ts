/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110 §13.1.2): `*`, or a list of
 * entity tags compared weakly, so `W/"x"` matches `"x"` (a cache or proxy may weaken a
 * tag it passes on, and a weak match is all a GET's revalidation needs). Tags are read
 * as quoted strings rather than split on commas, which an opaque tag may contain.
 */
export function ifNoneMatchNames(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(", ") : header;
  if (value.trim() === "*") return true;
  const wanted = opaqueTag(etag);
  for (const match of value.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (match[1] === wanted) return true;
  }
  return false;
}

const opaqueTag = (etag: string) => etag.replace(/^W\//, "").replace(/^"|"$/g, "");
