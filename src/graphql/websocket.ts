import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { GraphQLError, type GraphQLSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import { toAppError } from "../errors.js";
import { createContext, type GraphQLContext } from "./context.js";

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
 * graphql-ws on the same path as HTTP GraphQL. Upgrades to any other path are
 * refused before a socket is accepted.
 */
export function attachGraphQLWebSocket(
  server: Server,
  options: { schema: GraphQLSchema; path: string; logger: Logger; clientIp: (request: IncomingMessage) => string },
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
      context: (ctx): GraphQLContext => {
        const requestId = `ws_${randomUUID()}`;
        return createContext({
          requestId,
          log: options.logger.child({ requestId }),
          clientIp: options.clientIp(ctx.extra.request),
        });
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
