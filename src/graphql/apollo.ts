import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { GraphQLError, Kind, type GraphQLFormattedError, type GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import { AppError, toAppError } from "../errors.js";
import type { GraphQLContext } from "./context.js";
import { OperationLimitsRule } from "./limits.js";
import { refuseControlCharacters, refuseControlCharactersInDocument } from "../text/control-characters.js";
import type { ServiceMetrics } from "../metrics.js";
import { addResponseHeaders } from "../modules/billing/rate-limit/rate-limit-headers.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../modules/idempotency/idempotent-requests.js";

/** Apollo's own codes that clients act on (automatic persisted queries): kept as they are. */
const apolloProtocolCodes = new Set(["PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_NOT_SUPPORTED"]);

/**
 * Every GraphQL error leaves in the catalogue's shape: `extensions.{code, action,
 * retryable}`. Unknown errors are masked; their detail goes to the log only.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (typeof code === "string" && apolloProtocolCodes.has(code)) {
    return { ...formatted, extensions: { code, action: "Send the full query text with the hash.", retryable: true } };
  }
  // Apollo's own HTTP refusals: a mutation over GET is a 405 (with Allow: POST), and says so in its code.
  const status = (error as { extensions?: { http?: { status?: number } } } | null)?.extensions?.http?.status;
  const appError = status === 405 ? new AppError("METHOD_NOT_ALLOWED", formatted.message.trim()) : toAppError(error);
  return {
    message: appError.message.trim(),
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: appError.toGraphQLExtensions(),
  };
}

/** Logs what was masked, with the request id the caller also sees in X-Request-Id. */
const errorLogging: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          const appError = toAppError(error);
          if (appError.code === "INTERNAL")
            contextValue.log.error({ err: error.originalError ?? error }, "unexpected GraphQL error");
          else if (appError.code === "SERVICE_UNAVAILABLE")
            contextValue.log.warn({ err: error.originalError ?? error }, "dependency unavailable");
        }
      },
    };
  },
};

/**
 * Control characters in any string (variables or literals) are refused before the
 * operation runs: 400-class VALIDATION_FAILED naming the field, never a database
 * error. Every door (HTTP GraphQL, the REST table, graphql-ws) comes through here
 * or through the HTTP layer's check of bodies.
 */
const controlCharacters: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, document }) {
        try {
          refuseControlCharactersInDocument(document);
          refuseControlCharacters(request.variables ?? {});
        } catch (error) {
          throw asRequestError(error);
        }
      },
    };
  },
};

/**
 * Subscriptions are served over graphql-ws only: over HTTP their resolvers would run
 * without a stream (an INTERNAL error anyone could trigger). Refused before anything runs.
 */
const subscriptionsOverSocketOnly: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== "subscription") return;
        throw asRequestError(
          new AppError(
            "VALIDATION_FAILED",
            "Subscriptions are served over a WebSocket on this path (graphql-ws, protocol graphql-transport-ws), not over HTTP.",
          ),
        );
      },
    };
  },
};

/**
 * An AppError raised before execution, as Apollo answers request errors: with the
 * catalogue's HTTP status (Apollo would otherwise answer 500 for a plugin's throw).
 */
export function asRequestError(error: unknown): GraphQLError {
  const appError = toAppError(error);
  return new GraphQLError(appError.message, { extensions: { code: appError.code, http: { status: appError.status } } });
}

/**
 * Headers an operation asked for (rate-limit state, Idempotent-Replayed) go out on the
 * HTTP answer, as on REST, and so do a refusal's own (Retry-After with its RateLimit
 * state). A replayed answer also says so in `extensions.idempotentReplayed`.
 */
const responseHeaders: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          const original = error.originalError;
          if (original instanceof AppError) addResponseHeaders(contextValue.responseHeaders, original.headers);
        }
      },
      async willSendResponse({ response, contextValue }) {
        for (const [name, value] of Object.entries(contextValue.responseHeaders))
          response.http.headers.set(name, value);
        if (contextValue.responseHeaders[IDEMPOTENT_REPLAYED_HEADER] === "true" && response.body.kind === "single") {
          const result = response.body.singleResult;
          result.extensions = { ...result.extensions, idempotentReplayed: true };
        }
      },
    };
  },
};

/**
 * Operations by root field (bounded by the schema, unlike operation names, which the
 * caller picks) and outcome; error codes answered.
 */
function operationMetrics(metrics: ServiceMetrics): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response }) {
          const first = operation?.selectionSet.selections[0];
          const field = first?.kind === Kind.FIELD ? first.name.value : "unknown";
          const errors = response.body.kind === "single" ? (response.body.singleResult.errors ?? []) : [];
          const codes = errors.map((error) => String(error.extensions?.code ?? "INTERNAL"));
          metrics.graphqlOperations.inc({ field, outcome: codes[0] ?? "ok" });
          for (const code of codes) metrics.errors.inc({ code });
        },
      };
    },
  };
}

/**
 * Apollo's default landing page loads Apollo Sandbox from a CDN, which these
 * machines cannot reach: a browser opening /graphql is sent to our own GraphiQL.
 */
function landingPageRedirect(graphiqlPath: string): ApolloServerPlugin<GraphQLContext> {
  const html = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${graphiqlPath}"><title>GraphQL</title><a href="${graphiqlPath}">Open GraphiQL</a>`;
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}

export async function startApollo(
  schema: GraphQLSchema,
  logger: Logger,
  options: { graphiqlPath: string; introspection?: boolean; metrics?: ServiceMetrics },
) {
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    logger,
    introspection: options.introspection ?? true,
    // Where introspection is off, "Did you mean …?" must not hand out the schema field by field.
    hideSchemaDetailsFromClientErrors: !(options.introspection ?? true),
    // Depth, alias, field and cost limits and one scoring mutation per operation, before anything runs.
    validationRules: [OperationLimitsRule],
    // One operation per HTTP request: a batch would multiply every limit above.
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    // Cookie-authenticated mutations must not be triggerable by a cross-site form post.
    csrfPrevention: true,
    plugins: [
      errorLogging,
      controlCharacters,
      subscriptionsOverSocketOnly,
      responseHeaders,
      landingPageRedirect(options.graphiqlPath),
      ...(options.metrics ? [operationMetrics(options.metrics)] : []),
    ],
  });
  await apollo.start();
  return apollo;
}
