import {
  CancelInvitationDocument,
  CreateApiKeyDocument,
  HealthDocument,
  InviteMemberDocument,
  ListApiKeysDocument,
  ListMembersDocument,
  RemoveMemberDocument,
  RevokeApiKeyDocument,
  StartCheckoutDocument,
  UsageDocument,
  ScoreDocument,
  QuickScoreDocument,
  ProductScoreDocument,
  ScoreResultDocument,
  CompareScoresDocument,
  ScoreJobDocument,
  ScoreHistoryDocument,
  LinkScoreDocument,
  ProductDocument,
  ProductBadgeDocument,
  UpdateProductDocument,
  CreateWebhookDocument,
  ListWebhooksDocument,
  WebhookDocument,
  UpdateWebhookDocument,
  DeleteWebhookDocument,
  RotateWebhookSecretDocument,
  SendTestWebhookDocument,
  WebhookDeliveriesDocument,
  RetryWebhookDeliveryDocument,
  LifecycleStagesDocument,
  AssessLifecycleDocument,
  SendChatMessageDocument,
  ConversationDocument,
  ScoreBatchDocument,
  BatchDocument,
  type BatchFieldsFragment,
  type CheckoutInput,
  type CreateApiKeyInput,
  type ScoreAnswerFragment,
} from "./generated/operations.js";
import { AppError } from "../src/errors.js";
import { LIFECYCLE_VERSION } from "../src/modules/lifecycle/stages.js";
import { pollAfterSeconds } from "../src/modules/score/poll-after.js";
import { objectBody, route, type AnyRestRoute, type HttpMethod, type RestInput, type RouteDoc } from "./route.js";
import { merge, object, recordOf, select } from "./shape.js";
import { csvText, urlsFromCsv } from "./csv.js";

/** An SVG may hold scripts when opened as a page: this one may hold only inline style, and nothing else loads. */
export const BADGE_HEADERS = { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" } as const;

/**
 * The REST compatibility table: every documented `/api` path, each mapped onto a
 * named operation in rest-compat/operations/. Later features add rows here.
 */
export const restRoutes: readonly AnyRestRoute[] = [
  route({
    method: "GET",
    path: "/api/health",
    operation: HealthDocument,
    doc: {
      auth: "public",
      summary: "Health of the service and its dependencies",
      tag: "Service",
      responses: { 200: select("health"), 503: select("health") },
      errors: [],
    },
    variables: () => ({}),
    status: (data) => (data.health.status === "fail" ? 503 : 200),
    body: (data) => data.health,
  }),
  route({
    method: "GET",
    path: "/api/usage",
    operation: UsageDocument,
    doc: {
      auth: "member",
      summary: "Credits and quotas used this cycle",
      tag: "Account",
      responses: { 200: select("usage") },
      errors: [],
    },
    variables: () => ({}),
    body: (data) => data.usage,
  }),
  route({
    method: "GET",
    path: "/api/keys",
    operation: ListApiKeysDocument,
    doc: {
      auth: "member",
      summary: "List the account's API keys",
      tag: "Account",
      responses: { 200: select("apiKeys") },
      errors: [],
    },
    variables: () => ({}),
    body: (data) => data.apiKeys,
  }),
  route({
    method: "POST",
    path: "/api/keys",
    operation: CreateApiKeyDocument,
    doc: {
      auth: "session",
      summary: "Create an API key",
      tag: "Account",
      requestBody: { variable: "input" },
      responses: { 201: select("createApiKey") },
      errors: ["PLAN_LIMIT_REACHED"],
      idempotent: true,
    },
    // Named fields only: nothing else of the body reaches the operation. The mode's default is spelled out
    // because the compiled executor (graphql-jit) does not fill an input field's default value.
    variables: (input) => {
      const { name, mode } = objectBody(input);
      return { input: { name: name as string, mode: (mode ?? "live") as CreateApiKeyInput["mode"] } };
    },
    status: () => 201,
    body: (data) => data.createApiKey,
  }),
  route({
    method: "DELETE",
    path: "/api/keys/:id",
    operation: RevokeApiKeyDocument,
    doc: {
      auth: "session",
      summary: "Revoke an API key",
      tag: "Account",
      responses: { 204: null },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "GET",
    path: "/api/members",
    operation: ListMembersDocument,
    doc: {
      auth: "member",
      summary: "List members and pending invitations",
      tag: "Account",
      responses: { 200: select("members") },
      errors: [],
    },
    variables: () => ({}),
    body: (data) => data.members,
  }),
  route({
    method: "POST",
    path: "/api/members/invitations",
    operation: InviteMemberDocument,
    doc: {
      auth: "session",
      summary: "Invite a member",
      tag: "Account",
      requestBody: { variable: "input" },
      responses: { 201: select("inviteMember") },
      errors: ["PLAN_LIMIT_REACHED"],
      idempotent: true,
    },
    variables: (input) => ({ input: { email: objectBody(input).email as string } }),
    status: () => 201,
    body: (data) => data.inviteMember,
  }),
  route({
    method: "DELETE",
    path: "/api/members/invitations/:id",
    operation: CancelInvitationDocument,
    doc: {
      auth: "session",
      summary: "Cancel an invitation",
      tag: "Account",
      responses: { 204: null },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "DELETE",
    path: "/api/members/:id",
    operation: RemoveMemberDocument,
    doc: {
      auth: "session",
      summary: "Remove a member",
      tag: "Account",
      responses: { 204: null },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "POST",
    path: "/api/billing/checkout",
    operation: StartCheckoutDocument,
    doc: {
      auth: "session",
      summary: "Start a checkout for a plan or a score pack",
      tag: "Billing",
      requestBody: { variable: "input" },
      responses: { 201: select("startCheckout") },
      errors: ["PLAN_LIMIT_REACHED"],
      idempotent: true,
    },
    variables: (input) => {
      const { plan, pack } = objectBody(input);
      return {
        input: { plan: (plan ?? null) as CheckoutInput["plan"], pack: (pack ?? null) as CheckoutInput["pack"] },
      };
    },
    status: () => 201,
    body: (data) => data.startCheckout,
  }),
  route({
    method: "POST",
    path: "/api/score",
    operation: ScoreDocument,
    doc: scoreDoc("score", "Score a website (maturity framework, full crawl)"),
    variables: scoreVariables,
    status: (data) => scoreStatus(data.score),
    headers: (data) => scoreHeaders(data.score),
    body: (data) => scoreBody(data.score),
  }),
  route({
    method: "POST",
    path: "/api/score/quick",
    operation: QuickScoreDocument,
    doc: scoreDoc("quickScore", "Quick score (at most 5 pages)"),
    variables: scoreVariables,
    status: (data) => scoreStatus(data.quickScore),
    headers: (data) => scoreHeaders(data.quickScore),
    body: (data) => scoreBody(data.quickScore),
  }),
  route({
    method: "POST",
    path: "/api/score/product",
    operation: ProductScoreDocument,
    doc: scoreDoc("productScore", "Score a product (product assessment framework)"),
    variables: scoreVariables,
    status: (data) => scoreStatus(data.productScore),
    headers: (data) => scoreHeaders(data.productScore),
    body: (data) => scoreBody(data.productScore),
  }),
  route({
    method: "POST",
    path: "/api/score/batch",
    operation: ScoreBatchDocument,
    doc: {
      auth: "member",
      summary: "Score a list of addresses (Business, Enterprise)",
      tag: "Scoring",
      requestBody: { variable: "input" },
      csvRequest: {
        description:
          "One address per line, the first column of each (other columns are ignored); CRLF or LF; blank lines skipped; an optional header line `url`; a quoted first cell is read whole.",
      },
      responses: { 202: select("scoreBatch") },
      errors: [
        "PLAN_LIMIT_REACHED",
        "CREDIT_EXHAUSTED",
        "QUOTA_EXCEEDED",
        "IDEMPOTENCY_CONFLICT",
        "SCORING_RATE_LIMITED",
      ],
      idempotent: true,
      rateLimited: true,
      location:
        "Where to follow the batch: `GET /api/score/batches/{id}`. Its jobs are charged: follow it, do not send it again.",
    },
    // A text/csv body arrives as its text; JSON as an object with named fields only.
    variables: (input) => {
      if (typeof input.body === "string") return { input: { urls: urlsFromCsv(input.body), context: null } };
      const { urls, context } = objectBody(input);
      return { input: { urls: urls as string[], context: (context ?? null) as string | null } };
    },
    status: () => 202,
    headers: (data) => ({ location: `/api/score/batches/${data.scoreBatch.id}`, "retry-after": "5" }),
    body: (data) => data.scoreBatch,
  }),
  route({
    method: "GET",
    path: "/api/score/batches/:id",
    operation: BatchDocument,
    doc: {
      auth: "member",
      summary: "A batch: its items' status and results (JSON, or CSV with Accept: text/csv)",
      tag: "Scoring",
      responses: { 200: select("scoreBatch") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.scoreBatch,
    csv: (data) => batchCsv(data.scoreBatch),
  }),
  route({
    method: "GET",
    path: "/api/score/jobs/:id",
    operation: ScoreJobDocument,
    doc: {
      auth: "anonymous",
      summary: "A scoring job and its progress",
      tag: "Scoring",
      responses: { 200: select("scoreJob") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.scoreJob,
  }),
  route({
    method: "GET",
    path: "/api/score/:id",
    operation: ScoreResultDocument,
    doc: {
      auth: "public",
      summary: "A score result",
      tag: "Scoring",
      responses: { 200: select("scoreResult") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.scoreResult,
    // A stored result never changes: repeats are answered from memory, with an ETag.
    // Held anonymous results are not final (they are purged if never linked): never cached.
    immutable: {
      key: ({ params }) => params.id ?? "",
      cacheControl: "public, max-age=300",
      cacheable: (data) => !data.scoreResult.held,
      store: "scoreResults",
    },
  }),
  route({
    method: "GET",
    path: "/api/score/:id/compare/:otherId",
    operation: CompareScoresDocument,
    doc: {
      auth: "public",
      summary: "Compare two score results (the change from otherId to id)",
      tag: "Scoring",
      query: { allowVersionMismatch: "allowVersionMismatch" },
      responses: { 200: select("scoreResult.compareTo") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params, query }) => ({
      id: params.id ?? "",
      otherId: params.otherId ?? "",
      allowVersionMismatch: booleanParam(query.allowVersionMismatch, "allowVersionMismatch"),
    }),
    body: (data) => data.scoreResult.compareTo,
    // Two final results compare the same forever: cached like the results themselves.
    // A comparison with a held result is not final (it may be purged): never cached.
    immutable: {
      key: ({ params, query }) =>
        // The flag as sent: a value the route refuses is never stored, so never served from here.
        `${params.id ?? ""}\n${params.otherId ?? ""}\n${JSON.stringify(query.allowVersionMismatch ?? null)}`,
      cacheControl: "public, max-age=300",
      cacheable: (data) => !data.scoreResult.compareTo.from.held && !data.scoreResult.compareTo.to.held,
    },
  }),
  route({
    method: "GET",
    path: "/api/scores",
    operation: ScoreHistoryDocument,
    doc: {
      auth: "member",
      summary: "The account's score history, newest first",
      tag: "Scoring",
      query: { limit: "limit", cursor: "cursor" },
      responses: { 200: select("scores") },
      errors: [],
    },
    variables: ({ query }) => ({ limit: intParam(query.limit, "limit"), cursor: stringParam(query.cursor) }),
    body: (data) => data.scores,
  }),
  route({
    method: "POST",
    path: "/api/score/link",
    operation: LinkScoreDocument,
    doc: {
      auth: "member",
      summary: "Link an anonymous result to the account",
      tag: "Scoring",
      requestBody: { variable: "input" },
      responses: { 200: object({ result: select("linkScore") }) },
      errors: ["NOT_FOUND", "PLAN_LIMIT_REACHED"],
    },
    variables: (input) => {
      const { resultId, claimToken } = objectBody(input);
      return { input: { resultId: resultId as string, claimToken: claimToken as string } };
    },
    body: (data) => ({ result: data.linkScore }),
  }),
  route({
    method: "GET",
    path: "/api/products/:id",
    operation: ProductDocument,
    doc: {
      auth: "member",
      summary: "A product and its results, newest first",
      tag: "Products",
      query: { limit: "limit", cursor: "cursor", trend: "trend" },
      responses: {
        200: merge(
          select("product", { omit: ["resultPage"] }),
          object({
            results: select("product.resultPage.results"),
            nextCursor: select("product.resultPage.nextCursor"),
          }),
        ),
      },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params, query }) => ({
      id: params.id ?? "",
      limit: intParam(query.limit, "limit"),
      cursor: stringParam(query.cursor),
      trend: intParam(query.trend, "trend"),
    }),
    body: (data) => {
      const { resultPage, ...product } = data.product;
      return { ...product, results: resultPage.results, nextCursor: resultPage.nextCursor };
    },
  }),
  route({
    method: "GET",
    path: "/api/products/:id/badge.svg",
    operation: ProductBadgeDocument,
    doc: {
      auth: "public",
      summary: "A product's badge (SVG), when its owner made it public",
      tag: "Products",
      responses: { 200: select("productBadge.svg") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.productBadge.svg,
    // Embedded by READMEs and fetched through CDNs: it changes when the product is
    // re-scored, so caches keep it briefly and then revalidate by its ETag.
    media: { type: "image/svg+xml", cacheControl: "public, max-age=300", headers: BADGE_HEADERS },
  }),
  route({
    method: "PATCH",
    path: "/api/products/:id",
    operation: UpdateProductDocument,
    doc: {
      auth: "member",
      summary: "Monitor a product on a schedule, or make its badge public",
      tag: "Products",
      requestBody: { variable: "input" },
      responses: { 200: object({ product: select("updateProduct") }) },
      errors: ["NOT_FOUND", "PLAN_LIMIT_REACHED"],
    },
    // Named fields only: nothing else of the body reaches the operation; `monitor: null` (stop) passes as null.
    variables: (input) => {
      const { monitor, publicBadge } = objectBody(input);
      return {
        id: input.params.id ?? "",
        input: {
          ...(monitor === undefined ? {} : { monitor: monitor as { interval: "weekly" | "monthly" } | null }),
          ...(publicBadge === undefined ? {} : { publicBadge: publicBadge as boolean }),
        },
      };
    },
    body: (data) => ({ product: data.updateProduct }),
  }),
  route({
    method: "POST",
    path: "/api/webhooks",
    operation: CreateWebhookDocument,
    doc: {
      auth: "member",
      summary: "Create a webhook (its secret is shown once)",
      tag: "Webhooks",
      requestBody: { variable: "input" },
      responses: {
        201: object({
          webhook: merge(select("createWebhook.webhook"), object({ secret: select("createWebhook.secret") })),
        }),
      },
      errors: ["PLAN_LIMIT_REACHED"],
      idempotent: true,
    },
    variables: (input) => {
      const { url, events } = objectBody(input);
      return { input: { url: url as string, ...(events === undefined ? {} : { events: events as string[] }) } };
    },
    status: () => 201,
    body: (data) => ({ webhook: { ...data.createWebhook.webhook, secret: data.createWebhook.secret } }),
  }),
  route({
    method: "GET",
    path: "/api/webhooks",
    operation: ListWebhooksDocument,
    doc: {
      auth: "member",
      summary: "List the account's webhooks",
      tag: "Webhooks",
      responses: { 200: select("webhooks") },
      errors: [],
    },
    variables: () => ({}),
    body: (data) => data.webhooks,
  }),
  route({
    method: "GET",
    path: "/api/webhooks/:id",
    operation: WebhookDocument,
    doc: {
      auth: "member",
      summary: "A webhook",
      tag: "Webhooks",
      responses: { 200: object({ webhook: select("webhook") }) },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => ({ webhook: data.webhook }),
  }),
  route({
    method: "PATCH",
    path: "/api/webhooks/:id",
    operation: UpdateWebhookDocument,
    doc: {
      auth: "member",
      summary: "Change a webhook's address, events or state",
      tag: "Webhooks",
      requestBody: { variable: "input" },
      responses: { 200: object({ webhook: select("updateWebhook") }) },
      errors: ["NOT_FOUND"],
    },
    // Named fields only: nothing else of the body reaches the operation.
    variables: (input) => {
      const { url, events, enabled } = objectBody(input);
      return {
        id: input.params.id ?? "",
        input: {
          ...(url === undefined ? {} : { url: url as string }),
          ...(events === undefined ? {} : { events: events as string[] }),
          ...(enabled === undefined ? {} : { enabled: enabled as boolean }),
        },
      };
    },
    body: (data) => ({ webhook: data.updateWebhook }),
  }),
  route({
    method: "DELETE",
    path: "/api/webhooks/:id",
    operation: DeleteWebhookDocument,
    doc: {
      auth: "member",
      summary: "Delete a webhook",
      tag: "Webhooks",
      responses: { 204: null },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/rotate-secret",
    operation: RotateWebhookSecretDocument,
    doc: {
      auth: "member",
      summary: "Rotate a webhook's signing secret",
      tag: "Webhooks",
      responses: {
        200: object({
          webhook: merge(
            select("rotateWebhookSecret.webhook"),
            object({ secret: select("rotateWebhookSecret.secret") }),
          ),
        }),
      },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => ({ webhook: { ...data.rotateWebhookSecret.webhook, secret: data.rotateWebhookSecret.secret } }),
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/test",
    operation: SendTestWebhookDocument,
    doc: {
      auth: "member",
      summary: "Send a test event",
      tag: "Webhooks",
      responses: { 202: object({ delivery: select("sendTestWebhook") }) },
      errors: ["NOT_FOUND", "SCORING_RATE_LIMITED"],
      rateLimited: true,
    },
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 202,
    body: (data) => ({ delivery: data.sendTestWebhook }),
  }),
  route({
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    operation: WebhookDeliveriesDocument,
    doc: {
      auth: "member",
      summary: "A webhook's deliveries, newest first",
      tag: "Webhooks",
      query: { limit: "limit", cursor: "cursor" },
      responses: { 200: select("webhook.deliveries") },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params, query }) => ({
      id: params.id ?? "",
      limit: intParam(query.limit, "limit"),
      cursor: stringParam(query.cursor),
    }),
    body: (data) => data.webhook.deliveries,
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/deliveries/:deliveryId/retry",
    operation: RetryWebhookDeliveryDocument,
    doc: {
      auth: "member",
      summary: "Deliver an event again",
      tag: "Webhooks",
      responses: { 202: object({ delivery: select("retryWebhookDelivery") }) },
      errors: ["NOT_FOUND", "DELIVERY_IN_PROGRESS", "SCORING_RATE_LIMITED"],
      rateLimited: true,
    },
    variables: ({ params }) => ({ id: params.id ?? "", deliveryId: params.deliveryId ?? "" }),
    status: () => 202,
    body: (data) => ({ delivery: data.retryWebhookDelivery }),
  }),
  route({
    method: "GET",
    path: "/api/lifecycle/stages",
    operation: LifecycleStagesDocument,
    doc: {
      auth: "public",
      summary: "The lifecycle stages and their tasks",
      tag: "Lifecycle",
      responses: {
        200: object({ version: select("lifecycleStages.version"), stages: select("lifecycleStages.stages") }),
      },
      errors: [],
    },
    variables: () => ({}),
    body: (data) => ({ version: data.lifecycleStages.version, stages: data.lifecycleStages.stages }),
    // The definition changes only with a deploy that bumps its version: cacheable, with an ETag.
    immutable: { key: () => `lifecycle@${LIFECYCLE_VERSION}`, cacheControl: "public, max-age=3600" },
  }),
  route({
    method: "POST",
    path: "/api/lifecycle/assessment",
    operation: AssessLifecycleDocument,
    doc: {
      auth: "member",
      summary: "Record a lifecycle self-assessment",
      tag: "Lifecycle",
      requestBody: {
        schema: {
          type: "object",
          additionalProperties: false,
          required: ["productId", "answers"],
          properties: {
            productId: { type: "string", description: "The product's id." },
            answers: {
              type: "object",
              description: "Task id → status; tasks left out count as not started.",
              additionalProperties: { type: "string", enum: ["completed", "in_progress", "not_started"] },
            },
          },
        },
      },
      responses: {
        201: object({
          assessment: merge(
            select("assessLifecycle", { omit: ["answers"] }),
            object({ answers: recordOf(select("assessLifecycle.answers.status"), "Task id → status.") }),
          ),
        }),
      },
      errors: ["NOT_FOUND"],
    },
    // `answers` is an object of task id → status in REST, a list of pairs in GraphQL.
    variables: (input) => {
      const { productId, answers } = objectBody(input);
      if (typeof answers !== "object" || answers === null || Array.isArray(answers)) {
        throw new AppError("VALIDATION_FAILED", "answers: must be an object of task id → status");
      }
      return {
        input: {
          productId: productId as string,
          answers: Object.entries(answers).map(([taskId, status]) => ({ taskId, status: status as string })),
        },
      };
    },
    status: () => 201,
    body: (data) => ({
      assessment: {
        ...data.assessLifecycle,
        answers: Object.fromEntries(data.assessLifecycle.answers.map((answer) => [answer.taskId, answer.status])),
      },
    }),
  }),
  route({
    method: "POST",
    path: "/api/chat",
    operation: SendChatMessageDocument,
    doc: {
      auth: "member",
      summary: "Ask about a result or a product",
      tag: "Chat",
      requestBody: { variable: "input" },
      responses: { 200: select("sendChatMessage") },
      errors: ["NOT_FOUND", "SCORING_RATE_LIMITED"],
      idempotent: true,
      rateLimited: true,
    },
    // Named fields only: nothing else of the body reaches the operation.
    variables: (input) => {
      const { message, resultId, productId, conversationId } = objectBody(input);
      return {
        input: {
          message: message as string,
          ...(resultId === undefined ? {} : { resultId: resultId as string }),
          ...(productId === undefined ? {} : { productId: productId as string }),
          ...(conversationId === undefined ? {} : { conversationId: conversationId as string }),
        },
      };
    },
    body: (data) => data.sendChatMessage,
  }),
  route({
    method: "GET",
    path: "/api/chat/:conversationId",
    operation: ConversationDocument,
    doc: {
      auth: "member",
      summary: "A conversation's messages",
      tag: "Chat",
      params: { conversationId: "id" },
      query: { limit: "limit", cursor: "cursor" },
      responses: {
        200: merge(select("conversation", { omit: ["id"] }), object({ conversationId: select("conversation.id") })),
      },
      errors: ["NOT_FOUND"],
    },
    variables: ({ params, query }) => ({
      id: params.conversationId ?? "",
      limit: intParam(query.limit, "limit"),
      cursor: stringParam(query.cursor),
    }),
    body: (data) => {
      const { id, ...rest } = data.conversation;
      return { conversationId: id, ...rest };
    },
  }),
];

/** `{url, context?}`: named fields only. */
function scoreVariables(input: RestInput) {
  const { url, context } = objectBody(input);
  return { input: { url: url as string, context: (context ?? null) as string | null } };
}

/** The contract of the three scoring routes: 200 with the result, or 202 with the job when scoring outlives the wait. */
function scoreDoc(field: "score" | "quickScore" | "productScore", summary: string): RouteDoc {
  const claimToken = object(
    { claimToken: select(`${field}.claimToken`, { nonNull: true }) },
    { optional: ["claimToken"] },
  );
  return {
    auth: field === "productScore" ? "member" : "anonymous",
    summary,
    tag: "Scoring",
    requestBody: { variable: "input" },
    responses: {
      200: merge(select(`${field}.result`, { nonNull: true }), claimToken),
      202: merge(object({ job: select(`${field}.job`) }), claimToken),
    },
    errors: [
      "INVALID_URL",
      "CRAWL_FAILED",
      "NOT_FOUND",
      "PLAN_LIMIT_REACHED",
      "IDEMPOTENCY_CONFLICT",
      "ANON_RATE_LIMIT",
      "SCORING_RATE_LIMITED",
    ],
    idempotent: true,
    rateLimited: true,
  };
}

/** 200 with the result; 202 with the job when scoring outlived the wait (follow it over GraphQL). */
function scoreStatus(answer: ScoreAnswerFragment): number {
  return answer.result ? 200 : 202;
}

/**
 * A 202 names where to follow the job (it exists and is charged: follow it, do not
 * score again) and when to look there first (`Retry-After`, from where the job stands).
 */
function scoreHeaders(answer: Pick<ScoreAnswerFragment, "result" | "job">): Record<string, string> {
  if (answer.result) return {};
  return { location: `/api/score/jobs/${answer.job.id}`, "retry-after": String(pollAfterSeconds(answer.job)) };
}

function scoreBody(answer: ScoreAnswerFragment) {
  if (!answer.result) return { job: answer.job, ...(answer.claimToken ? { claimToken: answer.claimToken } : {}) };
  return { ...answer.result, ...(answer.claimToken ? { claimToken: answer.claimToken } : {}) };
}

/** A batch as CSV: one row per item, in order (docs/api.md §13). */
function batchCsv(batch: BatchFieldsFragment): string {
  return csvText(
    ["url", "status", "result_id", "total_score", "stage", "error_code", "error_message"],
    batch.items.map((item) => [
      item.url,
      item.status,
      item.resultId,
      item.totalScore,
      item.stageName,
      item.error?.code,
      item.error?.message,
    ]),
  );
}

function intParam(value: string | string[] | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (Array.isArray(value) || !/^\d{1,9}$/.test(value))
    throw new AppError("VALIDATION_FAILED", `${name}: must be a whole number`);
  return Number(value);
}

function booleanParam(value: string | string[] | undefined, name: string): boolean | null {
  if (value === undefined) return null;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new AppError("VALIDATION_FAILED", `${name}: must be true or false`);
}

function stringParam(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** The table's row for a method and path (as written in the table, `:id` parameters), or a boot-time error. */
export function restRoute(method: HttpMethod, path: string): AnyRestRoute {
  const row = restRoutes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!row) throw new Error(`no REST route ${method} ${path}`);
  return row;
}
