import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { closeWithin } from "./bounded-close.js";
import type { Config } from "./config.js";
import { connectRedis } from "./redis.js";
import { openDatabase, type Database } from "./db/database.js";
import { startApollo } from "./graphql/apollo.js";
import { ResolverContainer } from "./graphql/container.js";
import { buildAppSchema } from "./graphql/schema.js";
import { attachGraphQLWebSocket } from "./graphql/websocket.js";
import { clientIp, trustProxyFunction } from "./http/client-ip.js";
import { buildHttpServer, GRAPHIQL_PATH, GRAPHQL_PATH, type BuildOptions } from "./http/server.js";
import { devRoutes } from "./http/dev-routes.js";
import { stripeWebhookRoute } from "./http/provider-routes.js";
import { DomainEvents } from "./events/domain-events.js";
import { DomainEventRepository } from "./events/domain-event.repository.js";
import { MembersResolver } from "./modules/accounts/members.resolver.js";
import { MembersService } from "./modules/accounts/members.service.js";
import { AccountRepository } from "./modules/accounts/account.repository.js";
import { ApiKeyRepository } from "./modules/accounts/api-keys/api-key.repository.js";
import { InvitationRepository } from "./modules/accounts/invitation.repository.js";
import { UserRepository } from "./modules/accounts/user.repository.js";
import { Transactions } from "./db/transaction.js";
import type { BillingProvider } from "./modules/billing/checkout/billing-provider.js";
import { BillingResolver } from "./modules/billing/checkout/billing.resolver.js";
import { BillingService } from "./modules/billing/checkout/billing.service.js";
import { CheckoutSessionRepository } from "./modules/billing/checkout/checkout-session.repository.js";
import { ProviderEventRepository } from "./modules/billing/checkout/provider-event.repository.js";
import { LocalCheckoutProvider } from "./modules/billing/checkout/local-provider.js";
import {
  createStripeClient,
  StripeCheckoutProvider,
  StripeWebhooks,
} from "./modules/billing/checkout/stripe-provider.js";
import { shareRoute } from "./http/share-route.js";
import { resultBadgeRoute } from "./http/badge-route.js";
import { ProductsResolver } from "./modules/products/products.resolver.js";
import { ProductBadgeRepository } from "./modules/products/product-badge.repository.js";
import { ProductBadgeResolver } from "./modules/products/product-badge.resolver.js";
import { ProductBadgeService } from "./modules/products/product-badge.service.js";
import { ScoreBadgeResolver } from "./modules/score/score-badge.resolver.js";
import { startMonitor } from "./modules/monitor/monitor-scheduler.js";
import { ScoreResolver } from "./modules/score/score.resolver.js";
import { PercentilesResolver } from "./modules/score/percentiles.resolver.js";
import { ScoreBatchResolver } from "./modules/score/batch/score-batch.resolver.js";
import { ScoreJobRepository } from "./modules/score/score-job.repository.js";
import { createScoringRuntime, type ScoringOverrides } from "./modules/score/scoring-runtime.js";
import { AccountsService } from "./modules/accounts/accounts.service.js";
import { ApiKeysResolver } from "./modules/accounts/api-keys/api-keys.resolver.js";
import { AddressGuard, type Resolver } from "./modules/crawl/address-guard.js";
import { WebhookDispatcher, type DispatcherOptions } from "./modules/webhooks/webhook-dispatcher.js";
import { WebhookDeliveryRepository } from "./modules/webhooks/webhook-delivery.repository.js";
import { WebhookHealthRepository } from "./modules/webhooks/webhook-health.repository.js";
import { WebhookLeaseRepository } from "./modules/webhooks/webhook-lease.repository.js";
import { WebhookRepository } from "./modules/webhooks/webhook.repository.js";
import { WebhooksResolver } from "./modules/webhooks/webhooks.resolver.js";
import { WebhooksService } from "./modules/webhooks/webhooks.service.js";
import { AssessmentRepository } from "./modules/lifecycle/assessment.repository.js";
import { LifecycleResolver } from "./modules/lifecycle/lifecycle.resolver.js";
import { LifecycleService } from "./modules/lifecycle/lifecycle.service.js";
import { ChatRepository } from "./modules/chat/chat.repository.js";
import { ChatResolver } from "./modules/chat/chat.resolver.js";
import { ChatService, chatReplyStream, startChatSweep } from "./modules/chat/chat.service.js";
import type { ContextStreams } from "./graphql/context.js";
import { ServiceMetrics } from "./metrics.js";
import { ResultAnswerRepository } from "../rest-compat/final-answers/result-answer.repository.js";
import { ResultAnswerStore } from "../rest-compat/final-answers/result-answer-store.js";
import { storeFinalResultAnswers } from "../rest-compat/final-answers/final-result-answers.js";
import { DeterministicChatEngine } from "./modules/chat/deterministic-chat.js";
import { OpenAiChatEngine } from "./modules/chat/openai-chat.js";
import type { ChatEngine } from "./modules/chat/chat-engine.js";
import { ApiKeysService } from "./modules/accounts/api-keys/api-keys.service.js";
import {
  LocalIdentityProvider,
  usesLocalIdentityProvider,
} from "./modules/accounts/session/local-identity-provider.js";
import { createSessionVerifier } from "./modules/accounts/session/session-verifier.js";
import { Authenticator } from "./modules/accounts/viewer.js";
import { CreditLedger } from "./modules/billing/ledger.service.js";
import { CreditBalanceRepository } from "./modules/billing/credit-balance.repository.js";
import { CreditEntryRepository } from "./modules/billing/credit-entry.repository.js";
import { UsageResolver } from "./modules/billing/usage.resolver.js";
import { HealthResolver } from "./modules/health/health.resolver.js";
import { HealthService } from "./modules/health/health.service.js";

export interface App {
  readonly http: FastifyInstance;
  readonly database: Database;
  /** Domain events (`subscription.changed`, …), heard in-process after their change commits. */
  readonly events: DomainEvents;
  /** Delivers webhook events (running unless turned off for a test). */
  readonly webhooks: WebhookDispatcher;
  readonly metrics: ServiceMetrics;
  /** `http://host:port/metrics` when METRICS_PORT is set. */
  readonly metricsUrl: string | undefined;
  /** Starts serving; resolves to the base URL (e.g. http://127.0.0.1:4000). */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, drains, then closes the database (and the embedded server). */
  close(): Promise<void>;
}

/**
 * The composition root: config → database → Redis → services → schema → HTTP + WebSocket.
 * Nothing below this function constructs its own dependencies.
 */
export interface AppOverrides {
  /** Tests only: the crawler's DNS and limits, the scorer, job leases, the REST wait. */
  readonly scoring?: ScoringOverrides & { readonly waitMs?: number };
  /** Tests only: the webhook dispatcher's clock, poll interval and jitter, or none at all; the DNS webhook destinations are judged by. */
  readonly webhooks?: Partial<Pick<DispatcherOptions, "clock" | "pollMs" | "jitter" | "leaseMs">> & {
    readonly deliver?: boolean;
    readonly resolver?: Resolver;
  };
  /** Tests only: sees every `/api` answer as sent (the OpenAPI contract check). */
  readonly observeApiResponse?: BuildOptions["observeApiResponse"];
}

export async function createApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  const database = await openDatabase(config, logger);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  let scoring: ReturnType<typeof createScoringRuntime> | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  let monitor: { stop(): Promise<void> } | undefined;
  let chatSweep: { stop(): Promise<void> } | undefined;
  try {
    const transactions = new Transactions(database.dataSource);
    const accountRepository = new AccountRepository(database.dataSource);
    const apiKeyRepository = new ApiKeyRepository(database.dataSource);
    const userRepository = new UserRepository(database.dataSource);
    const members = new MembersService(
      accountRepository,
      userRepository,
      new InvitationRepository(database.dataSource),
      apiKeyRepository,
      transactions,
    );
    const accounts = new AccountsService(accountRepository, userRepository, members, transactions);
    const local = usesLocalIdentityProvider(config) ? await LocalIdentityProvider.create(config) : undefined;
    if (local) {
      logger.warn(
        { routes: ["POST /dev/login", "GET /dev/checkout/{id}", "POST /dev/checkout/{id}/complete"] },
        "development stand-ins are on: anyone who reaches this service can sign in as any e-mail and complete checkouts without paying; configure SESSION_JWKS_URL or SESSION_PUBLIC_KEY (or NODE_ENV=production) to turn them off",
      );
    }
    const sessions = await createSessionVerifier(config, local ? { localIdentityProvider: local } : {});
    const metrics = new ServiceMetrics(new ScoreJobRepository(database.dataSource));
    const ledger = new CreditLedger(
      new CreditEntryRepository(database.dataSource),
      new CreditBalanceRepository(database.dataSource),
      transactions,
      undefined,
      (action, tenths) => metrics.creditsSpent.inc({ action }, tenths / 10),
    );
    const apiKeys = new ApiKeysService(apiKeyRepository, accountRepository, { testKeys: !config.isProduction });
    const authenticator = new Authenticator(sessions, accounts, apiKeys, ledger);
    const events = new DomainEvents(logger, new DomainEventRepository());
    const billingSetup = billingFor(config, logger);
    const billing = new BillingService(
      new CheckoutSessionRepository(database.dataSource),
      new ProviderEventRepository(),
      accountRepository,
      userRepository,
      transactions,
      ledger,
      events,
      billingSetup.provider,
      logger,
      billingSetup.stripe,
    );
    scoring = createScoringRuntime({
      config,
      dataSource: database.dataSource,
      redis,
      ledger,
      events,
      logger,
      metrics,
      ...(overrides.scoring ? { overrides: overrides.scoring } : {}),
    });
    // Monitored products fall due here as in every process (MONITOR_TICK_MS; claims are disjoint across processes).
    monitor = startMonitor({ config, dataSource: database.dataSource, scores: scoring.scores, ledger, events, logger });
    // Webhook destinations pass the crawler's address guard (same allow-list), at creation and at every connection.
    const { deliver = true, resolver: webhookResolver, ...dispatchOptions } = overrides.webhooks ?? {};
    const webhookGuard = new AddressGuard({
      allowlist: config.crawl.ssrfAllowlist,
      ...(webhookResolver ? { resolver: webhookResolver } : {}),
    });
    dispatcher = new WebhookDispatcher(
      new WebhookLeaseRepository(database.dataSource),
      new WebhookHealthRepository(database.dataSource),
      transactions,
      webhookGuard,
      events,
      logger,
      {
        publicBaseUrl: config.publicBaseUrl,
        onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
        ...config.webhooks,
        ...dispatchOptions,
      },
    );
    if (deliver) dispatcher.start();
    const liveDispatcher = dispatcher;
    const webhooks = new WebhooksService(
      new WebhookRepository(database.dataSource),
      new WebhookDeliveryRepository(database.dataSource),
      transactions,
      webhookGuard,
      events,
      scoring.limiter,
      () => (deliver ? liveDispatcher.wake() : undefined),
    );
    const chat = new ChatService(
      new ChatRepository(database.dataSource),
      transactions,
      ledger,
      scoring.limiter,
      scoring.results,
      scoring.products,
      chatEngineFor(config),
      logger,
    );
    // Chats whose process died between charge and reply get their credit back (every process may sweep: a refund is one per spend).
    chatSweep = startChatSweep(chat, logger);
    const scoringStreams = scoring.streams;
    const streams: ContextStreams = {
      scoreProgress: (viewer, ip, jobId) => scoringStreams.scoreProgress(viewer, ip, jobId),
      batchProgress: (viewer, batchId) => scoringStreams.batchProgress(viewer, batchId),
      chatReply: (viewer, input) => chatReplyStream(chat, viewer, input),
    };
    const container = new ResolverContainer()
      .register(HealthResolver, new HealthResolver(new HealthService(config, database, redis, scoring.renderer)))
      .register(UsageResolver, new UsageResolver(ledger))
      .register(ApiKeysResolver, new ApiKeysResolver(apiKeys, scoring.idempotency))
      .register(MembersResolver, new MembersResolver(members, scoring.idempotency))
      .register(BillingResolver, new BillingResolver(billing, scoring.idempotency))
      .register(
        ScoreResolver,
        new ScoreResolver(scoring.scores, scoring.results, overrides.scoring?.waitMs ?? config.scoreWaitMs),
      )
      .register(PercentilesResolver, new PercentilesResolver(scoring.percentiles))
      .register(ScoreBatchResolver, new ScoreBatchResolver(scoring.batches))
      .register(ProductsResolver, new ProductsResolver(scoring.products, scoring.results))
      .register(ScoreBadgeResolver, new ScoreBadgeResolver(config.publicBaseUrl))
      .register(
        ProductBadgeResolver,
        new ProductBadgeResolver(
          new ProductBadgeService(new ProductBadgeRepository(database.dataSource), config.publicBaseUrl),
        ),
      )
      .register(WebhooksResolver, new WebhooksResolver(webhooks, scoring.idempotency))
      .register(
        LifecycleResolver,
        new LifecycleResolver(new LifecycleService(new AssessmentRepository(database.dataSource), scoring.products)),
      )
      .register(ChatResolver, new ChatResolver(chat, scoring.idempotency));
    const schema = buildAppSchema(container);
    const answerStore = new ResultAnswerStore(new ResultAnswerRepository(database.dataSource));
    storeFinalResultAnswers({ schema, store: answerStore, events, logger });

    const apollo = await startApollo(schema, logger, {
      graphiqlPath: GRAPHIQL_PATH,
      introspection: config.graphql.introspection,
      metrics,
    });
    // Fastify drains HTTP on close and then stops Apollo (onClose below), so Apollo needs no drain plugin.
    const server = await buildHttpServer({
      ...(overrides.observeApiResponse ? { observeApiResponse: overrides.observeApiResponse } : {}),
      config,
      logger,
      schema,
      apollo,
      authenticator,
      streams,
      metrics,
      answerStores: { scoreResults: answerStore },
      extraRoutes: [
        shareRoute(scoring.results, config.publicBaseUrl, scoring.percentiles),
        resultBadgeRoute(schema),
        ...(local ? [devRoutes(local, sessions, accounts, billing)] : []),
        ...(billingSetup.webhooks ? [stripeWebhookRoute(billingSetup.webhooks, billing)] : []),
      ],
    });
    const trust = trustProxyFunction(config.http.trustProxy);
    const webSocket = attachGraphQLWebSocket(server.server, {
      schema,
      path: GRAPHQL_PATH,
      logger,
      clientIp: (request) => clientIp(request, trust),
      authenticator,
      streams,
      introspection: config.graphql.introspection,
    });
    server.addHook("onClose", async () => {
      await webSocket.close();
      await apollo.stop();
    });

    const metricsEndpoint = config.metrics ? await metrics.serve(config.metrics.port, config.metrics.host) : undefined;
    if (metricsEndpoint) logger.info({ url: metricsEndpoint.url }, "metrics endpoint listening");
    return {
      http: server,
      database,
      events,
      metrics,
      metricsUrl: metricsEndpoint?.url,
      async listen(port = config.http.port, host = config.http.host) {
        await server.listen({ port, host });
        const address = server.server.address();
        const boundPort = typeof address === "object" && address ? address.port : port;
        return `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${boundPort}`;
      },
      webhooks: liveDispatcher,
      async close() {
        // Callers first, early in the drain budget: crawls here abort and their jobs are released for
        // another process, calls waiting on a job answer 202 with it, and progress followers are told
        // to reconnect. Waiting out a crawl instead would outlast a supervisor's stop timeout, and a
        // connection cut then invites a retry, a second charge without an Idempotency-Key.
        await monitor?.stop();
        await chatSweep?.stop();
        await scoring?.interrupt(releaseGraceMs(config));
        // Each part is bounded, so one that hangs is named in the log and the parts after it still close.
        await closeWithin(webSocket.close(), "WebSocket server", logger);
        await closeHttp(server, logger);
        await closeWithin(liveDispatcher.stop(), "webhook dispatcher", logger);
        if (metricsEndpoint) await closeWithin(metricsEndpoint.close(), "metrics endpoint", logger);
        await scoring?.close();
        if (redis) await closeWithin(redis.close(), "Redis", logger);
        await database.close();
      },
    };
  } catch (error) {
    await dispatcher?.stop().catch(() => undefined);
    await monitor?.stop().catch(() => undefined);
    await chatSweep?.stop().catch(() => undefined);
    await scoring?.close().catch(() => undefined);
    await redis?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}

/**
 * How long a shutdown waits for aborted jobs to be released before the waiting calls
 * answer: a quarter of the drain budget, at most 2 s, so the answers and the rest of
 * the stop fit in it.
 */
function releaseGraceMs(config: Config): number {
  return Math.min(2_000, config.shutdownDrainMs / 4);
}

/** The OpenAI client when OPENAI_API_KEY is set, else answers from the stored scores. */
function chatEngineFor(config: Config): ChatEngine {
  return config.chat.engine === "llm" ? new OpenAiChatEngine(config.chat) : new DeterministicChatEngine();
}

/**
 * Stripe when STRIPE_SECRET_KEY is set (config requires its webhook secret with it);
 * else the local provider, whose completion route exists outside production only,
 * so production without Stripe has no checkout (health says so).
 */
function billingFor(
  config: Config,
  logger: Logger,
): { provider?: BillingProvider; stripe?: ReturnType<typeof createStripeClient>; webhooks?: StripeWebhooks } {
  const { stripeSecretKey, stripeWebhookSecret, stripeApiUrl } = config.billing;
  if (stripeSecretKey && stripeWebhookSecret) {
    const stripe = createStripeClient({ secretKey: stripeSecretKey, apiUrl: stripeApiUrl });
    return {
      provider: new StripeCheckoutProvider(stripe, config.publicBaseUrl, logger),
      stripe,
      webhooks: new StripeWebhooks(stripe, stripeWebhookSecret),
    };
  }
  return config.isProduction ? {} : { provider: new LocalCheckoutProvider(config.publicBaseUrl) };
}

/**
 * Stops the HTTP server: no new connections, answers in flight finish (idle keep-alive sockets are closed at once).
 * A connection that is still busy when the bound runs out (a request whose headers never finish, a handler that
 * never answers) is cut, so the drain ends instead of waiting out Node's 60 s header timeout.
 */
async function closeHttp(server: FastifyInstance, logger: Logger): Promise<void> {
  const closing = server.close();
  if ((await closeWithin(closing, "HTTP server", logger)) !== "timeout") return;
  server.server.closeAllConnections();
  await closeWithin(closing, "HTTP server (connections cut)", logger);
}
