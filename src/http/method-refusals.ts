import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "./error-reply.js";
import { answerNotFound } from "./not-found-page.js";
import type { AnyRestRoute } from "../../rest-compat/route.js";
import { AppError } from "../errors.js";

/**
 * README: a known path with another method answers 405 METHOD_NOT_ALLOWED with an
 * Allow header, and OPTIONS answers 204 with it. The REST table refuses the seven
 * common methods on its own paths (rest-compat/mount.ts). Everything else used to
 * end in a 404: other methods Node accepts (TRACE, QUERY, PROPFIND …) fall to the
 * table's `/api/*` catch-all or to Fastify's not-found handler, and so does any
 * method a route outside the table (`/api/openapi.json`, `/docs`, `/graphql` …)
 * does not serve. Those requests are answered here, in `onRequest`, from path and
 * method alone: no body is read, so a malformed one cannot turn a 404/405 into a 400.
 */
export function registerMethodRefusals(app: FastifyInstance, restRoutes: readonly AnyRestRoute[]): void {
  const known = new KnownPaths();
  // The table's paths carry its own methods; Fastify also sees the table's refusal routes
  // (every other method) on them, which are not methods the path serves.
  const restPaths = new Set(restRoutes.map((row) => row.path));
  for (const row of restRoutes) known.add(row.path, [row.method]);
  const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0]!;
    const match = known.find(path);
    // A method the path serves that still missed (a parameter over the router's length limit) is a 404 too.
    if (!match || match.methods.includes(request.method)) {
      if (!request.is404) return; // a catch-all answers its own 404
      return answerNotFound(request, reply);
    }
    const allow = [...match.methods, "OPTIONS"].join(", ");
    if (request.method === "OPTIONS") return reply.header("allow", allow).code(204).send();
    const message = `${request.method} is not allowed on ${match.pattern}; allowed: ${match.methods.join(", ")}.`;
    return sendError(reply, new AppError("METHOD_NOT_ALLOWED", message, { headers: { allow } }));
  };

  app.addHook("onRoute", (route) => {
    // A catch-all (the table's `/api/*`) answers only what no route serves; a request it took
    // for a method the path does not serve is refused first.
    if (route.url.includes("*")) route.onRequest = [...[route.onRequest ?? []].flat(), refuse];
    else if (!restPaths.has(route.url)) known.add(route.url, [route.method].flat());
  });
  // Misses: a request a route took is that route's to answer. But a plain OPTIONS (a preflight was answered
  // by the CORS hook already) is 204 with Allow on every known path, also where the route itself takes
  // OPTIONS: Apollo's `/graphql` would refuse it as a CSRF attempt (400).
  app.addHook("onRequest", async (request, reply) => {
    if (request.is404) return refuse(request, reply);
    if (request.method !== "OPTIONS") return;
    const match = known.find(request.url.split("?")[0]!);
    if (match)
      return reply
        .header("allow", [...match.methods, "OPTIONS"].join(", "))
        .code(204)
        .send();
  });
}

export { notFound } from "./not-found-page.js";

const PARAM = /^:[A-Za-z_$][\w$]*$/;

interface KnownPath {
  readonly pattern: string;
  /** Per segment: its text, or undefined for a `:param`. */
  readonly segments: ReadonlyArray<string | undefined>;
  /** The methods its routes serve, HEAD after GET, without OPTIONS (as rest-compat lists them). */
  methods: string[];
}

/**
 * Route patterns and the methods they serve, matched against a request's path the way
 * Fastify's router does for the patterns this service uses: static segments (decoded,
 * case-sensitive, trailing slash ignored) before `:param` segments. A pattern with a
 * wildcard, a regular expression or several parameters in one segment is not indexed,
 * so its other methods stay 404 rather than risk a wrong Allow.
 */
class KnownPaths {
  private readonly paths = new Map<string, KnownPath>();

  add(pattern: string, methods: readonly string[]): void {
    const segments = splitPath(pattern).map((segment) => (PARAM.test(segment) ? undefined : segment));
    if (segments.some((segment) => segment !== undefined && /[:*(]/.test(segment))) return;
    const key = segments.map((segment) => segment ?? ":").join("/");
    const entry = this.paths.get(key) ?? { pattern, segments, methods: [] };
    this.paths.set(key, entry);
    const declared = [
      ...entry.methods.filter((method) => method !== "HEAD"),
      ...methods.filter((method) => method !== "HEAD" && method !== "OPTIONS"),
    ];
    const unique = [...new Set(declared)];
    entry.methods = unique.includes("GET") ? [...unique, "HEAD"] : unique;
  }

  /** The most specific pattern matching `path` (static segments win, left to right). */
  find(path: string): KnownPath | undefined {
    let segments: string[];
    try {
      segments = splitPath(path).map((segment) => decodeURIComponent(segment));
    } catch {
      return undefined;
    }
    let best: KnownPath | undefined;
    for (const candidate of this.paths.values()) {
      if (candidate.methods.length === 0 || !matches(candidate.segments, segments)) continue;
      if (!best || moreSpecific(candidate.segments, best.segments)) best = candidate;
    }
    return best;
  }
}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/").slice(1);
}

function matches(pattern: ReadonlyArray<string | undefined>, segments: readonly string[]): boolean {
  return (
    pattern.length === segments.length &&
    pattern.every((part, index) => (part === undefined ? segments[index] !== "" : part === segments[index]))
  );
}

function moreSpecific(a: ReadonlyArray<string | undefined>, b: ReadonlyArray<string | undefined>): boolean {
  const index = a.findIndex((part, i) => (part === undefined) !== (b[i] === undefined));
  return index !== -1 && a[index] !== undefined;
}
