import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AnyRestRoute } from "../../rest-compat/route.js";
import { cookieValue, SESSION_COOKIE } from "../modules/accounts/viewer.js";

/**
 * Cross-origin access (docs/api.md §11, §14), decided per route and method:
 *
 * - public reads (the table's `public` rows, the OpenAPI document) answer
 *   `Access-Control-Allow-Origin: *` to everyone: they need no credential;
 * - routes an API key may call (and /graphql) answer the origins in CORS_ORIGINS
 *   (`*` there: any origin), never with credentials: the key travels in a header the
 *   page sets, so nothing a browser attaches on its own is trusted cross-origin;
 * - session-only routes, and any request carrying the session cookie to a
 *   non-public route, get no CORS headers: a cookie's authority never crosses origins
 *   (the browser then refuses the answer to the page).
 *
 * Preflights (OPTIONS with Access-Control-Request-Method) are answered here, 204,
 * before any route runs; a refused one falls through to the route's plain OPTIONS
 * answer, which carries no CORS headers.
 */
type Access = "public" | "key" | "none";

/** Request headers a page may send cross-origin. */
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, Pms-Version";
/** Answer headers a page may read cross-origin (besides the CORS-safelisted ones). */
const EXPOSED_HEADERS = [
  "Retry-After",
  "RateLimit-Policy",
  "RateLimit",
  "X-Request-Id",
  "Pms-Version",
  "Idempotent-Replayed",
  "Location",
  "ETag",
  "Deprecation",
  "Sunset",
].join(", ");
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

export interface CorsOptions {
  /** CORS_ORIGINS: origins allowed on key-authenticated routes; `["*"]`: any. */
  readonly origins: readonly string[];
  readonly routes: readonly AnyRestRoute[];
  /** Further routes by pattern and method (the OpenAPI document, /graphql). */
  readonly extra: ReadonlyArray<{
    readonly path: string;
    readonly methods: readonly string[];
    readonly access: Access;
  }>;
}

export function registerCors(app: FastifyInstance, options: CorsOptions): void {
  const byPath = new Map<string, Map<string, Access>>();
  const add = (path: string, method: string, access: Access) => {
    const methods = byPath.get(path) ?? byPath.set(path, new Map()).get(path)!;
    methods.set(method, access);
    if (method === "GET") methods.set("HEAD", access);
  };
  for (const row of options.routes) add(row.path, row.method, accessOf(row.doc.auth));
  for (const entry of options.extra) for (const method of entry.methods) add(entry.path, method, entry.access);

  const anyOrigin = options.origins.includes("*");
  const originAllowed = (origin: string) => anyOrigin || options.origins.includes(origin);
  /** The Access-Control-Allow-Origin a request from `origin` gets for `access`, or undefined. */
  const allowOrigin = (access: Access, origin: string | undefined, request: FastifyRequest): string | undefined => {
    if (access === "public") return "*";
    if (access === "none" || origin === undefined || !originAllowed(origin)) return undefined;
    if (cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined) return undefined;
    return anyOrigin ? "*" : origin;
  };

  app.addHook("onRequest", async (request, reply) => {
    const methods = byPath.get(request.routeOptions.url ?? "");
    if (!methods) return;
    const origin = request.headers.origin;
    const requested = request.headers["access-control-request-method"];
    if (request.method === "OPTIONS" && origin !== undefined && typeof requested === "string") {
      const allowed = [...methods]
        .filter(([method, access]) => method !== "HEAD" && allowOrigin(access, origin, request) !== undefined)
        .map(([method]) => method);
      if (!allowed.includes(requested.toUpperCase())) return;
      const access = methods.get(requested.toUpperCase())!;
      if (access !== "public") reply.header("vary", "Origin");
      return reply
        .headers({
          "access-control-allow-origin": allowOrigin(access, origin, request)!,
          "access-control-allow-methods": allowed.join(", "),
          "access-control-allow-headers": ALLOWED_HEADERS,
          "access-control-max-age": String(PREFLIGHT_MAX_AGE),
        })
        .code(204)
        .send();
    }
    const access = methods.get(request.method);
    if (access === undefined) return;
    // The answer depends on Origin wherever the origin decides it (caches must keep them apart).
    if (access === "key" && options.origins.length > 0) reply.header("vary", "Origin");
    const allow = allowOrigin(access, origin, request);
    if (allow === undefined) return;
    reply.header("access-control-allow-origin", allow).header("access-control-expose-headers", EXPOSED_HEADERS);
  });
}

function accessOf(auth: AnyRestRoute["doc"]["auth"]): Access {
  switch (auth) {
    case "public":
      return "public";
    case "anonymous":
    case "member":
      return "key";
    case "session":
      return "none";
  }
}
