import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { validate, type GraphQLSchema } from "graphql";
import { AppError, toAppError } from "../src/errors.js";
import type { GraphQLContext } from "../src/graphql/context.js";
import { validationRules } from "../src/graphql/limits.js";
import { ifNoneMatchNames } from "../src/net/if-none-match.js";
import { strongEtag } from "../src/net/strong-etag.js";
import { refuseControlCharactersInRequest } from "../src/text/control-characters.js";
import { answerShape, executorFor, type Executor } from "./executor.js";
import { restFieldMessage } from "./field-messages.js";
import { unknownFieldsRefusal } from "./body-fields.js";
import { buildOpenApiDocument, requestBodySchemaOf } from "./openapi.js";
import type { AnswerStore, AnyRestRoute, HttpMethod, RestInput, RestMedia } from "./route.js";

const allMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** Where the table is mounted: every row's path starts with it. */
export const REST_PREFIX = "/api";
/** The table's OpenAPI document, served beside the table. */
export const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;

/** Sends an error answer (the HTTP layer's one writer, handed in: this layer does not import it). */
export type SendError = (reply: FastifyReply, error: AppError) => FastifyReply;

export interface RestCompatOptions {
  readonly schema: GraphQLSchema;
  readonly routes: readonly AnyRestRoute[];
  /** The same context as /graphql gets, for the request. */
  readonly contextFor: (request: FastifyRequest) => GraphQLContext;
  readonly sendError: SendError;
  /** Durable stores of final answers, by the name rows give (`immutable.store`). */
  readonly answerStores?: Readonly<Record<string, AnswerStore>>;
  /** What the OpenAPI document says of the service. */
  readonly openApi: { readonly version: string; readonly serverUrl: string };
  /** Tests only: sees every answer of the table as sent (the contract check of the OpenAPI document). */
  readonly observe?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;
}

/**
 * The compatibility table as a Fastify plugin, registered under `REST_PREFIX`: its
 * hooks (no-store, the control-character check, the contract observer) apply to
 * its own answers only, 404s and 405s under the prefix included.
 *
 * It serves the table in-process against the same schema as /graphql, running
 * graphql-js `execute` on documents validated once at boot, so it skips Apollo's
 * per-request parse and validation, not the resolvers' rules.
 */
export const restCompat: FastifyPluginAsync<RestCompatOptions> = async (api, options) => {
  const { schema, routes, contextFor, sendError, answerStores = {} } = options;
  const relative = (path: string) => {
    if (!path.startsWith(`${api.prefix}/`))
      throw new Error(`REST route ${path} is outside the table's prefix ${api.prefix}`);
    return path.slice(api.prefix.length);
  };

  // A route's answers are never cached by anyone unless it says so (immutable answers do).
  api.addHook("onSend", async (request, reply, payload) => {
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    options.observe?.(request, reply, payload);
    return payload;
  });
  // NUL and other control characters in a body, query string or path parameter are
  // refused naming the field (GraphQL checks its variables and literals itself).
  api.addHook("preHandler", async (request) => refuseControlCharactersInRequest(request));

  const methodsByPath = new Map<string, HttpMethod[]>();
  const immutableAnswers: AnswerCache = new Map();
  const toRestError = (error: AppError) => restFieldMessage(error, schema);
  for (const row of routes) {
    // The table's own operations keep within the limits every caller has.
    const problems = validate(schema, row.operation, validationRules({ introspection: false }));
    if (problems.length > 0) {
      throw new Error(
        `REST route ${row.method} ${row.path}: its operation does not match the schema: ${problems[0]?.message}`,
      );
    }
  }
  // Built from operations known to match: the document, and the body fields each route knows.
  const document = buildOpenApiDocument(schema, routes, options.openApi);
  for (const row of routes) {
    methodsByPath.set(row.path, [...(methodsByPath.get(row.path) ?? []), row.method]);
    const run = executorFor(schema, row);
    const storeName = row.immutable?.store;
    const store = storeName ? answerStores[storeName] : undefined;
    // Without its store (a test mounting the table alone) the route keeps its memory cache only.
    const durable = store ? { store, shape: answerShape(row) } : undefined;
    const url = relative(row.path);
    const bodySchema = requestBodySchemaOf(document, row);
    const register = (scope: FastifyInstance) =>
      scope.route({
        method: row.method,
        url,
        handler: (request, reply) => {
          // Before the operation: a refused request is neither charged nor counted.
          const unknownFields = unknownFieldsRefusal(bodySchema, request.body);
          if (unknownFields) return sendError(reply, unknownFields);
          return serve(
            run,
            row,
            contextFor(request),
            request,
            reply,
            sendError,
            immutableAnswers,
            durable,
            toRestError,
          );
        },
      });
    if (row.doc.csvRequest) {
      // Only this route reads a text/csv body (its own scope's parser); every other route stays JSON-only.
      // text/csv is not a "simple" type: a cross-site page cannot send it without a CORS preflight.
      await api.register(async (scope) => {
        scope.addContentTypeParser("text/csv", { parseAs: "string" }, (_request, body, done) => done(null, body));
        register(scope);
      });
    } else {
      register(api);
    }
  }
  serveOpenApiDocument(api, document, relative(OPENAPI_PATH));

  // Refusals (405, and 404 for unknown paths under the prefix) are decided by method
  // and path alone: a body is read up to the size limit but never parsed, so a
  // malformed body cannot turn a 404 or 405 into a 400.
  await api.register(async (refusals) => {
    refusals.removeAllContentTypeParsers();
    refusals.addContentTypeParser("*", { parseAs: "buffer" }, (_request, _body, done) => done(null, undefined));

    for (const [path, methods] of methodsByPath) {
      const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
      const allow = [...allowed, "OPTIONS"].join(", ");
      refusals.route({
        method: allMethods.filter((method) => !allowed.includes(method)),
        url: relative(path),
        handler: async (request, reply) => {
          if (request.method === "OPTIONS") return reply.header("allow", allow).code(204).send();
          const message = `${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}.`;
          return sendError(reply, new AppError("METHOD_NOT_ALLOWED", message, { headers: { allow } }));
        },
      });
    }
    const unknownPath = async (request: FastifyRequest, reply: FastifyReply) =>
      sendError(reply, new AppError("NOT_FOUND", `No route for ${request.method} ${request.url.split("?")[0]}.`));
    // "/*" does not match the prefix itself: "/" answers /api and /api/ here too, with the table's no-store.
    refusals.all("/", unknownPath);
    refusals.all("/*", unknownPath);
  });
};

/** `GET /api/openapi.json`: the document generated at boot from the table, revalidated by its ETag. */
function serveOpenApiDocument(api: FastifyInstance, document: Record<string, unknown>, url: string): void {
  const json = Buffer.from(JSON.stringify(document));
  const etag = `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"`;
  api.get(url, (request, reply) => {
    reply
      .header("etag", etag)
      .header("cache-control", "public, max-age=300")
      .header("access-control-allow-origin", "*");
    if (ifNoneMatchNames(request.headers["if-none-match"], etag)) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(json);
  });
}

/** Serialized immutable answers, bounded by their total size (UTF-16 code units ≈ bytes for JSON), oldest out first. */
const IMMUTABLE_CACHE_CHARS = 16 * 1024 * 1024;
/** Per route: answers by key, and the characters they hold. */
type AnswerCache = Map<AnyRestRoute, { readonly answers: Map<string, string>; chars: number }>;

async function serve(
  run: Executor,
  row: AnyRestRoute,
  contextValue: GraphQLContext,
  request: FastifyRequest,
  reply: FastifyReply,
  sendError: SendError,
  immutableAnswers: AnswerCache,
  durable?: { readonly store: AnswerStore; readonly shape: string },
  toRestError: (error: AppError) => AppError = (error) => error,
) {
  const input: RestInput = {
    params: request.params as Record<string, string>,
    query: request.query as Record<string, string | string[]>,
    body: request.body,
  };
  let answerFinal: ((body: string, status: number) => FastifyReply) | undefined;
  if (row.immutable) {
    const { cacheControl } = row.immutable;
    const key = row.immutable.key(input);
    const etag = `"${createHash("sha256").update(`${row.path}\n${key}`).digest("base64url").slice(0, 27)}"`;
    // The ETag is a hash of the key, which anyone can compute for any id: a match says
    // nothing until the answer is known to exist and be final, so 304 only where a 200
    // would have carried this ETag (a memory or stored answer, or a final result).
    const revalidated = ifNoneMatchNames(request.headers["if-none-match"], etag);
    const sendFinal = (body: string, status = 200) => {
      reply.header("etag", etag).header("cache-control", cacheControl);
      if (revalidated) return reply.code(304).send();
      return reply.code(status).header("content-type", "application/json; charset=utf-8").send(body);
    };
    const cache = immutableAnswers.get(row) ?? { answers: new Map<string, string>(), chars: 0 };
    immutableAnswers.set(row, cache);
    const cached = cache.answers.get(key);
    if (cached !== undefined) return sendFinal(cached);
    const keep = (body: string) => {
      if (body.length > IMMUTABLE_CACHE_CHARS / 64) return;
      cache.answers.set(key, body);
      cache.chars += body.length;
      while (cache.chars > IMMUTABLE_CACHE_CHARS) {
        const [oldest, value] = cache.answers.entries().next().value!;
        cache.answers.delete(oldest);
        cache.chars -= value.length;
      }
    };
    // Not in memory: a final answer stored durably costs one primary-key read.
    const stored = durable ? await durable.store.get(key, durable.shape).catch(() => undefined) : undefined;
    if (stored !== undefined) {
      keep(stored);
      return sendFinal(stored);
    }
    answerFinal = (body, status) => {
      keep(body);
      // Written once, off the answer's path; a failed write only means the next miss runs the operation.
      if (durable)
        durable.store
          .put(key, durable.shape, body)
          .catch((error: unknown) => request.log.warn({ err: error }, "could not store a final answer"));
      return sendFinal(body, status);
    };
  }
  const result = await run(row.variables(input), contextValue);
  reply.headers(contextValue.responseHeaders);
  const firstError = result.errors?.[0];
  if (firstError || !result.data) {
    const error = toAppError(firstError ?? new Error("operation returned no data"));
    if (error.code === "INTERNAL")
      request.log.error({ err: firstError?.originalError ?? firstError }, "unexpected error in REST route");
    return sendError(reply, toRestError(error));
  }
  const data = result.data;
  const status = row.status?.(data) ?? 200;
  if (row.headers) reply.headers(row.headers(data));
  if (status === 204) return reply.code(204).send();
  if (row.media) return sendMedia(request, reply, row.media, String(row.body(data)), status);
  if (answerFinal && (row.immutable?.cacheable?.(data) ?? true))
    return answerFinal(JSON.stringify(row.body(data)), status);
  if (row.csv) {
    reply.header("vary", "Accept");
    if (acceptsCsv(request.headers.accept))
      return reply.code(status).header("content-type", "text/csv; charset=utf-8").send(row.csv(data));
  }
  return reply.code(status).send(row.body(data));
}

/** Whether the request asks for CSV (`Accept: text/csv`, alone or among others). */
function acceptsCsv(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
}

/** A non-JSON answer (`RestRoute.media`): tagged by a hash of its bytes, 304 when the caller holds them. */
function sendMedia(request: FastifyRequest, reply: FastifyReply, media: RestMedia, text: string, status: number) {
  const bytes = Buffer.from(text, "utf8");
  const etag = strongEtag(bytes);
  reply
    .headers(media.headers ?? {})
    .header("etag", etag)
    .header("cache-control", media.cacheControl);
  if (ifNoneMatchNames(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.code(status).header("content-type", media.type).send(bytes);
}
