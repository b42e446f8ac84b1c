import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { ApolloServer } from "@apollo/server";
import fastifyApollo from "@as-integrations/fastify";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { OPENAPI_PATH, REST_PREFIX, restCompat } from "../../rest-compat/mount.js";
import type { AnswerStore } from "../../rest-compat/route.js";
import type { AnyRestRoute } from "../../rest-compat/route.js";
import { restRoutes } from "../../rest-compat/routes.js";
import type { Config } from "../config.js";
import { answeredErrorCode, type ServiceMetrics } from "../metrics.js";
import { AppError, toAppError } from "../errors.js";
import type { Authenticator } from "../modules/accounts/viewer.js";
import { createContext, type ContextStreams, type GraphQLContext } from "../graphql/context.js";
import { trustProxyFunction } from "./client-ip.js";
import { registerGraphiql } from "./graphiql.js";
import { registerApiDocs } from "./api-docs.js";
import { registerApiVersions } from "./api-version.js";
import { registerCors } from "./cors.js";
import { withGraphQLRequestId } from "./graphql-request-ids.js";
import { registerHomePage } from "./home-page.js";
import { refuseControlCharactersInRequest } from "../text/control-characters.js";
import { sendError } from "./error-reply.js";
import { answerClientError, answerFrameworkError, parseJsonBody } from "./malformed-requests.js";
import { registerMethodRefusals } from "./method-refusals.js";
import { answerNotFound } from "./not-found-page.js";
import { BODY_LIMIT_BYTES } from "../limits.js";

export const GRAPHQL_PATH = "/graphql";
export const GRAPHIQL_PATH = "/graphiql";

export function newRequestId(): string {
  return `req_${randomBytes(12).toString("hex")}`;
}

export interface BuildOptions {
  config: Config;
  logger: Logger;
  schema: GraphQLSchema;
  apollo: ApolloServer<GraphQLContext>;
  /** The REST compatibility table; the service's own unless a test mounts another. */
  routes?: readonly AnyRestRoute[];
  /** Resolves credentials into a viewer; absent (tests of the HTTP layer alone): everyone is anonymous. */
  authenticator?: Authenticator;
  /** Sources of subscriptions, for contexts. */
  streams?: ContextStreams;
  /** Routes outside the API: development stand-ins (never in production) and provider callbacks. */
  extraRoutes?: ReadonlyArray<(app: FastifyInstance) => Promise<void>>;
  /** Request durations by route pattern and status, and error envelopes by code. */
  metrics?: ServiceMetrics;
  /** Tests only: sees every `/api` answer as sent (the contract check of the OpenAPI document). */
  observeApiResponse?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;
  /** Durable stores of final REST answers, by the name routes give (`immutable.store`). */
  answerStores?: Readonly<Record<string, AnswerStore>>;
}

export async function buildHttpServer(options: BuildOptions): Promise<FastifyInstance> {
  const { config, logger, schema, apollo, routes = restRoutes, authenticator } = options;
  const contextFor = (request: FastifyRequest) =>
    requestContext(request, authenticator, options.streams, config.operatorToken);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: newRequestId,
    trustProxy: trustProxyFunction(config.http.trustProxy),
    return503OnClosing: true,
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: (error, socket) =>
      answerClientError(error, socket, newRequestId(), logger as FastifyBaseLogger),
  });

  // CSRF, the REST equivalent of Apollo's prevention: a cross-site page can only send
  // "simple" requests (form-encoded, multipart or text/plain bodies) without a CORS
  // preflight. JSON is the only body type accepted, so such a request is refused
  // (415) before any route runs; DELETE/PATCH are never simple. The session cookie
  // is also SameSite=Lax.
  app.removeContentTypeParser("text/plain");
  // Fastify's JSON parser reports a __proto__/constructor.prototype key as invalid JSON; ours names it.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, parseJsonBody);

  const { metrics } = options;
  if (metrics) {
    app.addHook("onResponse", async (request, reply) => {
      // The route pattern (/api/score/:id), never the path a caller typed.
      metrics.httpDuration.observe(
        { method: request.method, route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      const code = answeredErrorCode.get(reply);
      if (code) metrics.errors.inc({ code });
    });
  }

  // Every response, errors included, names its request; the same id is in the logs.
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", "nosniff");
  });
  // Cross-origin access by route: public reads for anyone, key routes for CORS_ORIGINS, never a session.
  registerCors(app, {
    origins: config.http.corsOrigins,
    routes,
    extra: [
      { path: OPENAPI_PATH, methods: ["GET"], access: "public" },
      { path: GRAPHQL_PATH, methods: ["GET", "POST"], access: "key" },
    ],
  });
  // An unknown Pms-Version is refused, and every API answer names its version.
  registerApiVersions(app, { rest: REST_PREFIX, graphql: GRAPHQL_PATH });
  // 405 with Allow (204 for OPTIONS) on known paths, and 404s, before a body is read.
  registerMethodRefusals(app, routes);
  // Once the server is closing (SIGTERM), every answer still in flight closes its connection: a client's
  // keep-alive socket would otherwise hold the drain open until its idle timeout (72 s).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (closing) reply.header("connection", "close");
    return payload;
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = fromHttpLayerError(error) ?? toAppError(error);
    if (appError.code === "INTERNAL") request.log.error({ err: error }, "unexpected error");
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => answerNotFound(request, reply));

  await app.register(async (graphql) => {
    graphql.addHook("onSend", async (request, _reply, payload) => withGraphQLRequestId(payload, request.id));
    await graphql.register(fastifyApollo(apollo), {
      path: GRAPHQL_PATH,
      context: async (request) => contextFor(request),
    });
  });
  await app.register(restCompat, {
    prefix: REST_PREFIX,
    schema,
    routes,
    contextFor,
    sendError,
    openApi: { version: config.version, serverUrl: config.publicBaseUrl },
    ...(options.answerStores ? { answerStores: options.answerStores } : {}),
    ...(options.observeApiResponse ? { observe: options.observeApiResponse } : {}),
  });
  // Pages and routes outside the API refuse control characters as the table does
  // (GraphQL checks its variables and literals itself).
  await app.register(async (pages) => {
    pages.addHook("preHandler", async (request) => refuseControlCharactersInRequest(request));
    await registerHomePage(pages, { endpoint: GRAPHQL_PATH });
    await registerGraphiql(pages, { path: GRAPHIQL_PATH, endpoint: GRAPHQL_PATH });
    await registerApiDocs(pages);
    for (const register of options.extraRoutes ?? []) await register(pages);
  });
  return app;
}

/** The same context for /graphql and the REST table: one way to learn who is calling. */
export function requestContext(
  request: FastifyRequest,
  authenticator?: Authenticator,
  streams?: ContextStreams,
  operatorToken?: string,
): GraphQLContext {
  return createContext({
    requestId: request.id,
    operator: isOperator(headerValue(request.headers["x-operator-token"]), operatorToken),
    log: request.log,
    clientIp: request.ip,
    idempotencyKey: headerValue(request.headers["idempotency-key"]),
    // Checked for every API request in onRequest (api-version.ts); what is left here is known.
    requestedApiVersion: headerValue(request.headers["pms-version"])?.trim(),
    streams,
    ...(authenticator
      ? {
          identify: () => authenticator.identify(request),
          chargeApiCall: (viewer, manager) =>
            authenticator.chargeApiCall(viewer, request.id, manager ? { manager } : {}),
        }
      : {}),
  });
}

/** Constant-time comparison of the operator token (hashes of equal length). */
function isOperator(sent: string | undefined, expected: string | undefined): boolean {
  if (!sent || !expected) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Errors raised by the HTTP layer before any route runs: body size, media type, JSON syntax. */
function fromHttpLayerError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("PAYLOAD_TOO_LARGE", `The request body exceeds ${BODY_LIMIT_BYTES / 1024} KiB.`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", "The request body must be JSON (Content-Type: application/json).");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new AppError("VALIDATION_FAILED", "body: is empty; send a JSON object.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError("VALIDATION_FAILED", "The Content-Length header does not match the body.");
    default:
      break;
  }
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || (error instanceof SyntaxError && error.statusCode === 400)) {
    return new AppError("VALIDATION_FAILED", "body: is not valid JSON.");
  }
  if (
    typeof error.statusCode === "number" &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    error.code?.startsWith("FST_")
  ) {
    return new AppError("VALIDATION_FAILED", "The request is malformed.");
  }
  return undefined;
}
