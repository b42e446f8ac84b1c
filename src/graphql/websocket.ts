import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { GraphQLError, validate, type GraphQLSchema } from "graphql";
import { validationRules } from "./limits.js";
import { useServer } from "graphql-ws/use/ws";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import { AppError, toAppError } from "../errors.js";
import { findControlCharacter } from "../http/control-characters.js";
import type { Authenticator } from "../modules/accounts/viewer.js";
import { createContext, type ContextStreams, type GraphQLContext } from "./context.js";

export interface GraphQLWebSocket {
  close(): Promise<void>;
}

/** Same catalogue mapping as the HTTP door, for results streamed over the socket. */
function formatErrors(errors: readonly GraphQLError[]): GraphQLError[] {
  return errors.map((error) => {
    const appError = toAppError(error);
    return new GraphQLError(appError.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: appError.toGraphQLExtensions(),
    });
  });
}

/**
 * Credentials of a socket: an API key sent in `connectionParams`
 * (`{ authorization: "Bearer <key>" }`), or the session cookie of the upgrade
 * request, but only from the service's own origin. A page elsewhere could
 * otherwise open a socket that rides on the visitor's session
 * (cross-site WebSocket hijacking).
 */
function socketCredentials(request: IncomingMessage, params: Readonly<Record<string, unknown>> | undefined) {
  const authorization = params?.authorization ?? params?.Authorization;
  const origin = request.headers.origin;
  const sameOrigin = origin === undefined || hostOf(origin) === request.headers.host;
  return {
    authorization: typeof authorization === "string" ? authorization : undefined,
    cookie: sameOrigin ? request.headers.cookie : undefined,
  };
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * graphql-ws on the same path as HTTP GraphQL. Upgrades to any other path are
 * refused before a socket is accepted.
 */
export function attachGraphQLWebSocket(
  server: Server,
  options: {
    schema: GraphQLSchema;
    path: string;
    logger: Logger;
    clientIp: (request: IncomingMessage) => string;
    /** Resolves credentials; absent: every operation is anonymous. */
    authenticator?: Authenticator;
    streams?: ContextStreams;
    /** Schema introspection over the socket (GRAPHQL_INTROSPECTION). */
    introspection?: boolean;
  },
): GraphQLWebSocket {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
    if (pathname !== options.path) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
  };
  server.on("upgrade", onUpgrade);

  const cleanup = useServer(
    {
      schema: options.schema,
      // The same rules as HTTP: the operation limits, and no introspection where it is off.
      validate: (schema, document) => validate(schema, document, validationRules({ introspection: options.introspection ?? true })),
      context: (ctx): GraphQLContext => {
        const requestId = `ws_${randomUUID()}`;
        const { authenticator } = options;
        return createContext({
          requestId,
          log: options.logger.child({ requestId }),
          clientIp: options.clientIp(ctx.extra.request),
          streams: options.streams,
          ...(authenticator
            ? {
                identify: () => authenticator.identify({ id: requestId, headers: socketCredentials(ctx.extra.request, ctx.connectionParams) }),
                chargeApiCall: (viewer, manager) => authenticator.chargeApiCall(viewer, requestId, manager ? { manager } : {}),
              }
            : {}),
        });
      },
      // Control characters in variables are refused before anything runs, as over HTTP.
      onSubscribe: (_ctx, _id, payload) => {
        const found = findControlCharacter(payload.variables ?? {});
        if (!found) return undefined;
        return formatErrors([new GraphQLError(`${found.path}: must not contain control characters.`, { originalError: new AppError("VALIDATION_FAILED", `${found.path}: must not contain control characters.`) })]);
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: formatErrors(result.errors) } : result,
      onError: (_ctx, _id, _payload, errors) => formatErrors(errors),
    },
    sockets,
  );

  return {
    async close() {
      server.off("upgrade", onUpgrade);
      await cleanup.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
