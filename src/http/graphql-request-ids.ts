/**
 * Every GraphQL error answered over HTTP names its request in `extensions.requestId`,
 * as the REST envelope does (docs/api.md §4). Apollo formats errors without the
 * request (`formatError` sees only the error), and some are answered before any
 * plugin runs (a missing query, a mutation over GET, the CSRF check), so the id is
 * written into the answer on its way out. Answers without errors pass untouched,
 * unparsed.
 */
export function withGraphQLRequestId(payload: unknown, requestId: string): unknown {
  if (typeof payload !== "string" || !payload.includes('"errors"')) return payload;
  let body: { errors?: unknown };
  try {
    body = JSON.parse(payload) as { errors?: unknown };
  } catch {
    return payload;
  }
  if (!Array.isArray(body.errors)) return payload;
  for (const error of body.errors as Array<{ extensions?: Record<string, unknown> } | null>) {
    if (error === null || typeof error !== "object") continue;
    const { docUrl, ...rest } = error.extensions ?? {};
    // After the catalogue's fields and `param`, before `docUrl`: the envelope's order.
    error.extensions = { ...rest, requestId, ...(docUrl === undefined ? {} : { docUrl }) };
  }
  return JSON.stringify(body);
}
