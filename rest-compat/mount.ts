import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { execute, validate, type GraphQLSchema } from "graphql";
import { AppError, toAppError } from "../src/errors.js";
import type { GraphQLContext } from "../src/graphql/context.js";
import type { AnyRestRoute, HttpMethod, RestInput } from "./route.js";

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
): void {
  const methodsByPath = new Map<string, HttpMethod[]>();
  for (const row of routes) {
    const problems = validate(schema, row.operation);
    if (problems.length > 0) {
      throw new Error(`REST route ${row.method} ${row.path}: its operation does not match the schema: ${problems[0]?.message}`);
    }
    methodsByPath.set(row.path, [...(methodsByPath.get(row.path) ?? []), row.method]);
    app.route({ method: row.method, url: row.path, handler: (request, reply) => serve(schema, row, contextFor(request), request, reply) });
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

async function serve(schema: GraphQLSchema, row: AnyRestRoute, contextValue: GraphQLContext, request: FastifyRequest, reply: FastifyReply) {
  const input: RestInput = {
    params: request.params as Record<string, string>,
    query: request.query as Record<string, string | string[]>,
    body: request.body,
  };
  const result = await execute({
    schema,
    document: row.operation,
    variableValues: row.variables(input),
    contextValue,
  });
  const firstError = result.errors?.[0];
  if (firstError || !result.data) {
    const error = toAppError(firstError ?? new Error("operation returned no data"));
    if (error.code === "INTERNAL") request.log.error({ err: firstError?.originalError ?? firstError }, "unexpected error in REST route");
    return sendError(reply, error);
  }
  const data = result.data;
  const status = row.status?.(data) ?? 200;
  return status === 204 ? reply.code(204).send() : reply.code(status).send(row.body(data));
}

export function sendError(reply: FastifyReply, error: AppError) {
  return reply.code(error.status).headers(error.headers).send(error.toEnvelope());
}
