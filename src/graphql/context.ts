import type { FastifyBaseLogger } from "fastify";
import { ANONYMOUS, type Viewer } from "../modules/accounts/viewer.js";

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
  /** Who is calling, resolved on first use (public operations never verify credentials). */
  viewer(): Promise<Viewer>;
}

export interface ContextSource {
  requestId: string;
  log: RequestLogger;
  clientIp: string;
  /** Resolves the caller's credentials; absent: anonymous. */
  authenticate?: () => Promise<Viewer>;
}

export function createContext(source: ContextSource): GraphQLContext {
  let viewer: Promise<Viewer> | undefined;
  return {
    requestId: source.requestId,
    log: source.log,
    clientIp: source.clientIp,
    viewer: () => (viewer ??= source.authenticate ? source.authenticate() : Promise.resolve(ANONYMOUS)),
  };
}
