import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { AppError, type ErrorCode } from "../src/errors.js";
import type { Shape } from "./shape.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** What a route may read from the HTTP request; it never sees the raw request. */
export interface RestInput {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | string[]>>;
  /** The parsed JSON body (POST/PATCH), the text of a `text/csv` body (rows whose doc takes CSV), or undefined. */
  readonly body: unknown;
}

/**
 * One row of the compatibility table: `METHOD /path` → a named GraphQL operation,
 * how its variables come from the request, and which status and body it answers.
 * A row holds no business logic: anything that decides is in the operation's resolver.
 */
export interface RestRoute<TData = unknown, TVariables = Record<string, unknown>> {
  readonly method: HttpMethod;
  /** Fastify path syntax: `/api/score/:id`. */
  readonly path: string;
  readonly operation: TypedDocumentNode<TData, TVariables>;
  readonly variables: (input: RestInput) => TVariables;
  /** The HTTP status of a successful answer (default 200). */
  readonly status?: (data: TData) => number;
  /** Headers of a successful answer taken from the operation's data (e.g. where to follow a job). */
  readonly headers?: (data: TData) => Record<string, string>;
  /** The JSON body of a successful answer, taken from the operation's data (with `media`: its text). */
  readonly body: (data: TData) => unknown;
  /**
   * A successful answer that is not JSON (an SVG badge): `body(data)` is its text,
   * sent as `type` with a strong ETag of its bytes and this Cache-Control. The
   * operation always runs, so If-None-Match answers 304 only where the same request
   * would have answered 200 with that ETag.
   */
  readonly media?: RestMedia;
  /** What the OpenAPI document says of this row (see rest-compat/openapi.ts). */
  readonly doc: RouteDoc;
  /** The answer as CSV, sent instead of the JSON body when the request's Accept names `text/csv`. */
  readonly csv?: (data: TData) => string;
  /**
   * For answers that never change once they exist (completed results): the key that
   * names the answer. Repeats are served from memory without running the operation,
   * with an ETag (If-None-Match answers 304) and this Cache-Control.
   */
  readonly immutable?: {
    readonly key: (input: RestInput) => string;
    readonly cacheControl: string;
    /** Whether this answer is final (e.g. not a held result that may still be purged); default yes. */
    readonly cacheable?: (data: TData) => boolean;
    /**
     * The name of a durable store of final answers (see `AnswerStore`): a final answer
     * is written there once, and a read that misses the memory cache is served from
     * it with one primary-key read instead of running the operation.
     */
    readonly store?: string;
  };
}

/** A non-JSON answer of a route: its media type, caching and own headers (e.g. a CSP for SVG). */
export interface RestMedia {
  readonly type: string;
  readonly cacheControl: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The parts of a route's contract its operation cannot say: who may call it, how
 * the request maps onto the operation's variables, the shape of each successful
 * answer (as `body` builds it) and the error codes particular to it. The generator
 * adds what every route shares (the credential codes, 400/413/415 on bodies,
 * 500/503) and takes types and descriptions from the schema.
 */
export interface RouteDoc {
  /** `public`: no credential; `anonymous`: a credential is optional; `member`: session or API key; `session`: a session only. */
  readonly auth: "public" | "anonymous" | "member" | "session";
  /** A short title; the description is the operation's root field description. */
  readonly summary: string;
  readonly tag: string;
  /** Path parameter → the operation variable it fills (default: the same name). */
  readonly params?: Readonly<Record<string, string>>;
  /** Query parameter → the operation variable it fills. */
  readonly query?: Readonly<Record<string, string>>;
  /** The JSON body: the operation variable whose input type it is, or a schema when REST reshapes it. */
  readonly requestBody?:
    | { readonly variable: string; readonly omit?: readonly string[] }
    | { readonly schema: Readonly<Record<string, unknown>> };
  /** Each successful status and the shape of its answer (`null`: no body). */
  readonly responses: Readonly<Partial<Record<200 | 201 | 202 | 204 | 503, Shape | null>>>;
  /** Error codes particular to this route. */
  readonly errors: readonly ErrorCode[];
  /** Honours `Idempotency-Key`. */
  readonly idempotent?: boolean;
  /** Takes a `text/csv` body besides JSON (its text reaches `variables` as `body`). */
  readonly csvRequest?: { readonly description: string };
  /** Where a 202 points (its `Location` header), when not a scoring job. */
  readonly location?: string;
  /** Answers `RateLimit-Policy`/`RateLimit` and, when refused, `Retry-After`. */
  readonly rateLimited?: boolean;
}

/** A row of any operation: the table is heterogeneous, each row is checked by `route()`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRestRoute = RestRoute<any, any>;

/** Keeps each row's types tied to its operation's generated types. */
export function route<TData, TVariables>(row: RestRoute<TData, TVariables>): RestRoute<TData, TVariables> {
  return row;
}

/** Reads a JSON object body, refusing arrays and scalars with a field-naming message. */
export function objectBody(input: RestInput): Readonly<Record<string, unknown>> {
  const { body } = input;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("VALIDATION_FAILED", "body: must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/**
 * Durable final answers of an immutable route, by key. `shape` names the route's
 * operation (a hash of its document), so an answer stored by an older deploy whose
 * selection differed is never served.
 */
export interface AnswerStore {
  get(key: string, shape: string): Promise<string | undefined>;
  put(key: string, shape: string, body: string): Promise<void>;
}
