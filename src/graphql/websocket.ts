import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import { validationRules } from "./limits.js";
import { useServer } from "graphql-ws/use/ws";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import { AppError, toAppError } from "../errors.js";
import { refuseControlCharacters, refuseControlCharactersInDocument } from "../text/control-characters.js";
import { rawRefusal } from "../net/raw-refusal.js";
import type { Authenticator } from "../modules/accounts/viewer.js";
import { createContext, type ContextStreams, type GraphQLContext } from "./context.js";

export interface GraphQLWebSocket {
  close(): Promise<void>;
}

/**
 * Same catalogue mapping as the HTTP door, for results streamed over the socket.
 * What is masked (INTERNAL) or a dependency failing is logged, as the HTTP door's
 * plugin does; a socket has no X-Request-Id header, so every error carries its
 * request id in `extensions.requestId` (as over HTTP) for the caller to quote.
 */
function formatErrors(
  errors: readonly GraphQLError[],
  log: Pick<Logger, "error" | "warn">,
  requestId: string,
): GraphQLError[] {
  return errors.map((error) => {
    const appError = toAppError(error);
    const extensions: Record<string, unknown> = appError.toGraphQLExtensions(requestId);
    if (appError.code === "INTERNAL") {
      log.error({ err: error.originalError ?? error, requestId }, "unexpected GraphQL error");
      extensions.action = "Retry later; if it persists, contact support quoting this error's requestId.";
    } else if (appError.code === "SERVICE_UNAVAILABLE") {
      log.warn({ err: error.originalError ?? error, requestId }, "dependency unavailable");
    }
    // Source and positions keep the locations of an error without nodes (a syntax error).
    return new GraphQLError(appError.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions,
    });
  });
}

/**
 * Why a document could not be parsed: graphql-js's syntax error (with its location),
 * or, when nesting ran the parser out of stack, a syntax error of ours saying so.
 */
function parseRefusal(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  return new GraphQLError("Syntax Error: the document is nested too deeply to parse.");
}

/** graphql-js's suggestion suffix on a validation error: " Did you mean "x" or "y"?" */
const DID_YOU_MEAN = / Did you mean .+\?$/;

/** Operations one socket may have running at once (a page follows a few jobs, not thousands). */
export const MAX_ACTIVE_OPERATIONS = 25;
/** Sockets one client address may hold open at once. */
export const MAX_SOCKETS_PER_ADDRESS = 100;
/** Operations one client address may start per window, over all its sockets: each may read the database. */
export const MAX_OPERATIONS_PER_WINDOW = 200;
const OPERATION_WINDOW_MS = 10_000;

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
    // A credential that is there but not a string is a wrong credential (answered 401), never "anonymous".
    authorization:
      authorization === undefined || authorization === null
        ? undefined
        : typeof authorization === "string"
          ? authorization
          : JSON.stringify(authorization),
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

  // Sockets open and operations started per client address (in this process), so one
  // address cannot make the database answer thousands of subscriptions a second.
  const openByAddress = new Map<string, number>();
  const startedByAddress = new Map<string, { since: number; count: number }>();
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
    if (pathname !== options.path) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const address = options.clientIp(request);
    if ((openByAddress.get(address) ?? 0) >= MAX_SOCKETS_PER_ADDRESS) {
      const refusal = new AppError(
        "SCORING_RATE_LIMITED",
        `At most ${MAX_SOCKETS_PER_ADDRESS} sockets may be open from one address; close one first.`,
      );
      socket.end(rawRefusal(429, refusal.toEnvelope(), { "Retry-After": "10" }));
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      openByAddress.set(address, (openByAddress.get(address) ?? 0) + 1);
      ws.once("close", () => {
        const left = (openByAddress.get(address) ?? 1) - 1;
        if (left > 0) openByAddress.set(address, left);
        else openByAddress.delete(address);
      });
      sockets.emit("connection", ws, request);
    });
  };
  server.on("upgrade", onUpgrade);

  const cleanup = useServer(
    {
      schema: options.schema,
      // The same rules as HTTP: the operation limits, and no introspection where it is off.
      validate: (schema, document) =>
        validate(schema, document, validationRules({ introspection: options.introspection ?? true })),
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
                identify: () =>
                  authenticator.identify({
                    id: requestId,
                    headers: socketCredentials(ctx.extra.request, ctx.connectionParams),
                  }),
                chargeApiCall: (viewer, manager) =>
                  authenticator.chargeApiCall(viewer, requestId, manager ? { manager } : {}),
              }
            : {}),
        });
      },
      // Before anything runs: the socket's and the address's share, then control characters in the
      // document's literals and in the variables, refused naming the field as over HTTP.
      onSubscribe: (ctx, id, payload) => {
        const refuse = (error: AppError) =>
          formatErrors([new GraphQLError(error.message, { originalError: error })], options.logger, `ws_${id}`);
        if (Object.keys(ctx.subscriptions).length > MAX_ACTIVE_OPERATIONS) {
          return refuse(
            new AppError(
              "VALIDATION_FAILED",
              `At most ${MAX_ACTIVE_OPERATIONS} operations may be active on one socket; complete one first.`,
            ),
          );
        }
        const address = options.clientIp(ctx.extra.request);
        const now = Date.now();
        let window = startedByAddress.get(address);
        if (!window || now - window.since >= OPERATION_WINDOW_MS) {
          if (startedByAddress.size >= 10_000)
            for (const [key, value] of startedByAddress)
              if (now - value.since >= OPERATION_WINDOW_MS) startedByAddress.delete(key);
          startedByAddress.set(address, (window = { since: now, count: 0 }));
        }
        if (++window.count > MAX_OPERATIONS_PER_WINDOW) {
          // The wait goes out as the error's extensions.retryAfter (a socket has no headers).
          const retryAfter = Math.max(1, Math.ceil((window.since + OPERATION_WINDOW_MS - now) / 1000));
          return refuse(
            new AppError(
              "SCORING_RATE_LIMITED",
              `At most ${MAX_OPERATIONS_PER_WINDOW} operations may start per ${OPERATION_WINDOW_MS / 1000} s from one address; retry in ${retryAfter} seconds.`,
              { headers: { "Retry-After": String(retryAfter) } },
            ),
          );
        }
        let document: DocumentNode;
        try {
          document = parse(payload.query);
        } catch (error) {
          // Answered as this operation's error, the socket kept: left to graphql-ws, the document is
          // parsed again outside any handler, the error printed to stderr and the socket closed with 4500.
          return formatErrors([parseRefusal(error)], options.logger, `ws_${id}`);
        }
        try {
          refuseControlCharactersInDocument(document);
          refuseControlCharacters(payload.variables ?? {});
        } catch (error) {
          return refuse(toAppError(error));
        }
        return undefined;
      },
      onNext: (_ctx, _id, _payload, args, result) => {
        if (!result.errors) return result;
        const { log, requestId } = args.contextValue as GraphQLContext;
        return { ...result, errors: formatErrors(result.errors, log, requestId) };
      },
      // As over HTTP: where introspection is off, a validation error does not suggest the schema's names.
      onError: (_ctx, id, _payload, errors) =>
        formatErrors(
          options.introspection === false
            ? errors.map((error) =>
                DID_YOU_MEAN.test(error.message)
                  ? new GraphQLError(error.message.replace(DID_YOU_MEAN, ""), {
                      nodes: error.nodes,
                      extensions: error.extensions,
                    })
                  : error,
              )
            : errors,
          options.logger,
          `ws_${id}`,
        ),
    },
    sockets,
  );
  // graphql-ws prints a socket's errors (a frame over the 64 KiB limit, say: ws then closes it
  // with 1009) to stderr with a stack; they are the client's doing: one JSON line instead.
  sockets.on("connection", (ws) => {
    ws.removeAllListeners("error");
    ws.on("error", (error: Error & { code?: string }) =>
      options.logger.info({ code: error.code, reason: error.message }, "graphql-ws socket error; closed"),
    );
  });

  // Once: a shutdown closes the sockets early (before the HTTP drain), and the server's onClose again.
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        server.off("upgrade", onUpgrade);
        // Every socket is closed with 1001 (going away): a graphql-ws client reconnects and subscribes
        // again, and the process it reaches streams from the stored job.
        await cleanup.dispose();
        await new Promise<void>((resolve) => sockets.close(() => resolve()));
      })();
      return closing;
    },
  };
}
