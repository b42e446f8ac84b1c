import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { execute, print, validate, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import { AppError, toAppError } from "../src/errors.js";
import { restFieldMessage } from "./field-messages.js";
import type { GraphQLContext } from "../src/graphql/context.js";
import type { AnswerStore, AnyRestRoute, HttpMethod, RestInput } from "./route.js";
import { validationRules } from "../src/graphql/limits.js";
import { answeredErrorCode } from "../src/metrics.js";
import { ifNoneMatchNames } from "../src/http/if-none-match.js";

const allMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Serves the compatibility table in-process against the same schema as /graphql.
 * It runs graphql-js `execute` on documents validated once at boot, so it skips
 * Apollo's per-request parse and validation, not the resolvers' rules.
 */
export function mountRestCompat(
  app: FastifyInstance,
  schema: GraphQLSchema,
  routes: readonly AnyRestRoute[],
  contextFor: (request: FastifyRequest) => GraphQLContext,
  answerStores: Readonly<Record<string, AnswerStore>> = {},
): void {
  const methodsByPath = new Map<string, HttpMethod[]>();
  const immutableAnswers: AnswerCache = new Map();
  const toRestError = (error: AppError) => restFieldMessage(error, schema);
  for (const row of routes) {
    // The table's own operations keep within the limits every caller has.
    const problems = validate(schema, row.operation, validationRules({ introspection: false }));
    if (problems.length > 0) {
      throw new Error(`REST route ${row.method} ${row.path}: its operation does not match the schema: ${problems[0]?.message}`);
    }
    methodsByPath.set(row.path, [...(methodsByPath.get(row.path) ?? []), row.method]);
    const run = executorFor(schema, row);
    const storeName = row.immutable?.store;
    const store = storeName ? answerStores[storeName] : undefined;
    // Without its store (a test mounting the table alone) the route keeps its memory cache only.
    const durable = store ? { store, shape: answerShape(row) } : undefined;
    app.route({ method: row.method, url: row.path, handler: (request, reply) => serve(run, row, contextFor(request), request, reply, immutableAnswers, durable, toRestError) });
  }

  // Refusals (405, and 404 for unknown /api paths) are decided by method and path
  // alone: a body is read up to the size limit but never parsed, so a malformed
  // body cannot turn a 404 or 405 into a 400.
  app.register(async (refusals) => {
    refusals.removeAllContentTypeParsers();
    refusals.addContentTypeParser("*", { parseAs: "buffer" }, (_request, _body, done) => done(null, undefined));

    for (const [path, methods] of methodsByPath) {
      const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
      const allow = [...allowed, "OPTIONS"].join(", ");
      refusals.route({
        method: allMethods.filter((method) => !allowed.includes(method)),
        url: path,
        handler: async (request, reply) => {
          if (request.method === "OPTIONS") return reply.header("allow", allow).code(204).send();
          const message = `${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}.`;
          return sendError(reply, new AppError("METHOD_NOT_ALLOWED", message, { headers: { allow } }));
        },
      });
    }
    refusals.all("/api/*", async (request, reply) =>
      sendError(reply, new AppError("NOT_FOUND", `No route for ${request.method} ${request.url.split("?")[0]}.`)),
    );
  });
}

/** Serialized immutable answers, bounded by their total size (UTF-16 code units ≈ bytes for JSON), oldest out first. */
const IMMUTABLE_CACHE_CHARS = 16 * 1024 * 1024;
/** Per route: answers by key, and the characters they hold. */
type AnswerCache = Map<AnyRestRoute, { readonly answers: Map<string, string>; chars: number }>;

/** Names a route's operation in stored answers: a hash of its document, so another selection never serves them. */
export function answerShape(row: AnyRestRoute): string {
  return createHash("sha256").update(print(row.operation)).digest("base64url").slice(0, 22);
}

export type Executor = (variables: Record<string, unknown>, context: GraphQLContext) => Promise<ExecutionResult>;

/**
 * The table runs a fixed set of known documents, so each is compiled once at boot
 * (graphql-jit: the same resolvers, variable coercion and errors, without
 * graphql-js's per-request walk of the document). A document graphql-jit cannot
 * compile runs on graphql-js `execute`.
 */
export function executorFor(schema: GraphQLSchema, row: AnyRestRoute): Executor {
  const compiled = compileQuery(schema, row.operation);
  if (isCompiledQuery(compiled)) {
    return async (variables, context) => compiled.query(undefined, context, variables) as ExecutionResult | Promise<ExecutionResult>;
  }
  return async (variables, context) => execute({ schema, document: row.operation, variableValues: variables, contextValue: context });
}

async function serve(
  run: Executor,
  row: AnyRestRoute,
  contextValue: GraphQLContext,
  request: FastifyRequest,
  reply: FastifyReply,
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
      if (durable) durable.store.put(key, durable.shape, body).catch((error: unknown) => request.log.warn({ err: error }, "could not store a final answer"));
      return sendFinal(body, status);
    };
  }
  const result = await run(row.variables(input), contextValue);
  reply.headers(contextValue.responseHeaders);
  const firstError = result.errors?.[0];
  if (firstError || !result.data) {
    const error = toAppError(firstError ?? new Error("operation returned no data"));
    if (error.code === "INTERNAL") request.log.error({ err: firstError?.originalError ?? firstError }, "unexpected error in REST route");
    return sendError(reply, toRestError(error));
  }
  const data = result.data;
  const status = row.status?.(data) ?? 200;
  if (row.headers) reply.headers(row.headers(data));
  if (status === 204) return reply.code(204).send();
  if (answerFinal && (row.immutable?.cacheable?.(data) ?? true)) return answerFinal(JSON.stringify(row.body(data)), status);
  return reply.code(status).send(row.body(data));
}

export function sendError(reply: FastifyReply, error: AppError) {
  answeredErrorCode.set(reply, error.code);
  // A 503 says when to come back, as a 429 does: a dependency that blipped is usually back within seconds.
  const retryAfter = error.status === 503 && !Object.keys(error.headers).some((name) => name.toLowerCase() === "retry-after") ? { "Retry-After": String(SERVICE_UNAVAILABLE_RETRY_SECONDS) } : {};
  return reply.code(error.status).headers({ ...error.headers, ...retryAfter }).send(error.toEnvelope());
}

/** Retry-After of a 503 that names no wait of its own. */
export const SERVICE_UNAVAILABLE_RETRY_SECONDS = 5;
