import type { FastifyBaseLogger } from "fastify";

/** A request-scoped pino logger (it carries the request id). */
export type RequestLogger = FastifyBaseLogger;

/**
 * What every resolver receives, built the same way for HTTP GraphQL, the REST
 * compatibility layer and graphql-ws, so the three doors cannot drift apart.
 */
export interface GraphQLContext {
  readonly requestId: string;
  readonly log: RequestLogger;
  /** The caller's address, honouring TRUST_PROXY. */
  readonly clientIp: string;
}

export interface ContextSource {
  requestId: string;
  log: RequestLogger;
  clientIp: string;
}

export function createContext(source: ContextSource): GraphQLContext {
  return { requestId: source.requestId, log: source.log, clientIp: source.clientIp };
}
