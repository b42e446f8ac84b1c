import type { FastifyBaseLogger } from "fastify";
import { apiVersionHeaders } from "../api-versions.js";
import { ANONYMOUS, type MeteredCaller, type Viewer } from "../modules/accounts/viewer.js";
import type { ScoreProgressStreams } from "../modules/score/score-progress.js";
import type { BatchProgressStreams } from "../modules/score/batch/batch-progress.js";
import type { Transaction } from "../db/transaction.js";
import { addResponseHeaders } from "../modules/billing/rate-limit/rate-limit-headers.js";
import { IDEMPOTENT_REPLAYED_HEADER, type IdempotentCall } from "../modules/idempotency/idempotent-requests.js";

import type { ChatInput, ChatReplyEvent } from "../modules/chat/chat.service.js";

/** Live streams subscriptions read from (graphql-ws). */
export interface ContextStreams extends ScoreProgressStreams, Partial<BatchProgressStreams> {
  /** A chat message's reply as it is produced (present when chat is wired in). */
  chatReply?(viewer: Viewer, input: ChatInput): AsyncIterable<ChatReplyEvent>;
}

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
  /** The request's `Idempotency-Key` header, when it sent one. */
  readonly idempotencyKey: string | undefined;
  /** Headers the operation adds to the HTTP answer (rate-limit state); both HTTP doors send them. */
  readonly responseHeaders: Record<string, string>;
  /**
   * Who is calling, resolved on first use (public operations never verify
   * credentials). A request authenticated by an API key is charged its API call here.
   */
  viewer(): Promise<Viewer>;
  /**
   * Who is calling, without charging the API call yet: for operations whose
   * earlier layers (rate limit, plan quota) may refuse the request, which must then
   * cost nothing. They charge it themselves, inside their own transaction, and
   * call `apiCallCharged()`.
   */
  identify(): Promise<Viewer>;
  apiCallCharged(): void;
  /** Charges the API call of a key-authenticated viewer inside the caller's transaction. */
  chargeApiCallIn(viewer: Viewer, tx: Transaction): Promise<void>;
  /** Per-request DataLoaders, created on first use (see `loaderOf`). */
  readonly loaders: Map<string, unknown>;
  /** The request carried the configured operator token (X-Operator-Token). */
  readonly operator: boolean;
  /** Sources of subscriptions; absent where none are served. */
  readonly streams: ContextStreams | undefined;
}

/** The request's loader named `name`, created once per request. */
export function loaderOf<T>(context: GraphQLContext, name: string, create: () => T): T {
  let loader = context.loaders.get(name) as T | undefined;
  if (loader === undefined) {
    loader = create();
    context.loaders.set(name, loader);
  }
  return loader;
}

/** The caller, identified without charging: the operation charges its API call itself. */
export async function meteredCaller(context: GraphQLContext): Promise<MeteredCaller> {
  const viewer = await context.identify();
  return {
    viewer,
    setHeaders: (headers) => addResponseHeaders(context.responseHeaders, headers),
    apiCallCharged: () => context.apiCallCharged(),
    chargeApiCall: (tx) => context.chargeApiCallIn(viewer, tx),
  };
}

/** The request's Idempotency-Key, and how an operation marks its answer as a replay. */
export function idempotentCall(context: GraphQLContext): IdempotentCall {
  return {
    key: context.idempotencyKey,
    replayed: () => addResponseHeaders(context.responseHeaders, { [IDEMPOTENT_REPLAYED_HEADER]: "true" }),
  };
}

export interface ContextSource {
  requestId: string;
  log: RequestLogger;
  clientIp: string;
  idempotencyKey?: string | undefined;
  /** The API version the request asked for (`Pms-Version`, already checked), if it did. */
  requestedApiVersion?: string | undefined;
  /** Resolves the caller's credentials; absent: anonymous. */
  identify?: () => Promise<Viewer>;
  /**
   * Charges one API call for a key-authenticated viewer; answers the monthly
   * allowance's RateLimit headers after it, when there are any.
   */
  chargeApiCall?: (viewer: Viewer, tx?: Transaction) => Promise<Readonly<Record<string, string>> | undefined>;
  streams?: ContextStreams | undefined;
  operator?: boolean;
}

export function createContext(source: ContextSource): GraphQLContext {
  let identified: Promise<Viewer> | undefined;
  let charged: Promise<Viewer> | undefined;
  let chargedElsewhere = false;
  /** The allowance headers of a charge inside an operation's transaction: sent once it says the charge committed. */
  let pendingAllowance: Readonly<Record<string, string>> | undefined;
  const responseHeaders: Record<string, string> = {};
  // Without `Pms-Version`, an authenticated request uses its account's pinned version, and says so.
  const identify = () =>
    (identified ??= (source.identify ? source.identify() : Promise.resolve(ANONYMOUS)).then((viewer) => {
      if (source.requestedApiVersion === undefined && viewer.kind === "member" && viewer.apiVersion)
        Object.assign(responseHeaders, apiVersionHeaders(viewer.apiVersion));
      return viewer;
    }));
  return {
    requestId: source.requestId,
    log: source.log,
    clientIp: source.clientIp,
    idempotencyKey: source.idempotencyKey,
    responseHeaders,
    loaders: new Map(),
    streams: source.streams,
    operator: source.operator ?? false,
    identify,
    viewer: () =>
      (charged ??= identify().then(async (viewer) => {
        if (!chargedElsewhere && source.chargeApiCall) {
          const allowance = await source.chargeApiCall(viewer);
          if (allowance) addResponseHeaders(responseHeaders, allowance);
        }
        return viewer;
      })),
    apiCallCharged: () => {
      chargedElsewhere = true;
      if (pendingAllowance) addResponseHeaders(responseHeaders, pendingAllowance);
    },
    chargeApiCallIn: async (viewer, tx) => {
      if (source.chargeApiCall) pendingAllowance = await source.chargeApiCall(viewer, tx);
    },
  };
}
