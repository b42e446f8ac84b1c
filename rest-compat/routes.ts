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
  ScoreJobDocument,
  ScoreHistoryDocument,
  LinkScoreDocument,
  ProductDocument,
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
  type CheckoutInput,
  type ScoreAnswerFragment,
} from "./generated/operations.js";
import { AppError } from "../src/errors.js";
import { LIFECYCLE_VERSION } from "../src/modules/lifecycle/stages.js";
import { objectBody, route, type AnyRestRoute, type RestInput } from "./route.js";

/**
 * The REST compatibility table: every documented `/api` path, each mapped onto a
 * named operation in rest-compat/operations/. Later features add rows here.
 */
export const restRoutes: readonly AnyRestRoute[] = [
  route({
    method: "GET",
    path: "/api/health",
    operation: HealthDocument,
    variables: () => ({}),
    status: (data) => (data.health.status === "fail" ? 503 : 200),
    body: (data) => data.health,
  }),
  route({
    method: "GET",
    path: "/api/usage",
    operation: UsageDocument,
    variables: () => ({}),
    body: (data) => data.usage,
  }),
  route({
    method: "GET",
    path: "/api/keys",
    operation: ListApiKeysDocument,
    variables: () => ({}),
    body: (data) => data.apiKeys,
  }),
  route({
    method: "POST",
    path: "/api/keys",
    operation: CreateApiKeyDocument,
    // Named fields only: nothing else of the body reaches the operation.
    variables: (input) => ({ input: { name: objectBody(input).name as string } }),
    status: () => 201,
    body: (data) => data.createApiKey,
  }),
  route({
    method: "DELETE",
    path: "/api/keys/:id",
    operation: RevokeApiKeyDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "GET",
    path: "/api/members",
    operation: ListMembersDocument,
    variables: () => ({}),
    body: (data) => data.members,
  }),
  route({
    method: "POST",
    path: "/api/members/invitations",
    operation: InviteMemberDocument,
    variables: (input) => ({ input: { email: objectBody(input).email as string } }),
    status: () => 201,
    body: (data) => data.inviteMember,
  }),
  route({
    method: "DELETE",
    path: "/api/members/invitations/:id",
    operation: CancelInvitationDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "DELETE",
    path: "/api/members/:id",
    operation: RemoveMemberDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "POST",
    path: "/api/billing/checkout",
    operation: StartCheckoutDocument,
    variables: (input) => {
      const { plan, pack } = objectBody(input);
      return { input: { plan: (plan ?? null) as CheckoutInput["plan"], pack: (pack ?? null) as CheckoutInput["pack"] } };
    },
    status: () => 201,
    body: (data) => data.startCheckout,
  }),
  route({
    method: "POST",
    path: "/api/score",
    operation: ScoreDocument,
    variables: scoreVariables,
    status: (data) => scoreStatus(data.score),
    headers: (data) => scoreHeaders(data.score),
    body: (data) => scoreBody(data.score),
  }),
  route({
    method: "POST",
    path: "/api/score/quick",
    operation: QuickScoreDocument,
    variables: scoreVariables,
    status: (data) => scoreStatus(data.quickScore),
    headers: (data) => scoreHeaders(data.quickScore),
    body: (data) => scoreBody(data.quickScore),
  }),
  route({
    method: "POST",
    path: "/api/score/product",
    operation: ProductScoreDocument,
    variables: scoreVariables,
    status: (data) => scoreStatus(data.productScore),
    headers: (data) => scoreHeaders(data.productScore),
    body: (data) => scoreBody(data.productScore),
  }),
  route({
    method: "GET",
    path: "/api/score/jobs/:id",
    operation: ScoreJobDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.scoreJob,
  }),
  route({
    method: "GET",
    path: "/api/score/:id",
    operation: ScoreResultDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => data.scoreResult,
    // A stored result never changes: repeats are answered from memory, with an ETag.
    // Held anonymous results are not final (they are purged if never linked): never cached.
    immutable: { key: ({ params }) => params.id ?? "", cacheControl: "public, max-age=300", cacheable: (data) => !data.scoreResult.held, store: "scoreResults" },
  }),
  route({
    method: "GET",
    path: "/api/scores",
    operation: ScoreHistoryDocument,
    variables: ({ query }) => ({ limit: intParam(query.limit, "limit"), cursor: stringParam(query.cursor) }),
    body: (data) => data.scores,
  }),
  route({
    method: "POST",
    path: "/api/score/link",
    operation: LinkScoreDocument,
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
    variables: ({ params, query }) => ({ id: params.id ?? "", limit: intParam(query.limit, "limit"), cursor: stringParam(query.cursor) }),
    body: (data) => {
      const { resultPage, ...product } = data.product;
      return { ...product, results: resultPage.results, nextCursor: resultPage.nextCursor };
    },
  }),
  route({
    method: "POST",
    path: "/api/webhooks",
    operation: CreateWebhookDocument,
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
    variables: () => ({}),
    body: (data) => data.webhooks,
  }),
  route({
    method: "GET",
    path: "/api/webhooks/:id",
    operation: WebhookDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => ({ webhook: data.webhook }),
  }),
  route({
    method: "PATCH",
    path: "/api/webhooks/:id",
    operation: UpdateWebhookDocument,
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
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/rotate-secret",
    operation: RotateWebhookSecretDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => ({ webhook: { ...data.rotateWebhookSecret.webhook, secret: data.rotateWebhookSecret.secret } }),
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/test",
    operation: SendTestWebhookDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 202,
    body: (data) => ({ delivery: data.sendTestWebhook }),
  }),
  route({
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    operation: WebhookDeliveriesDocument,
    variables: ({ params, query }) => ({ id: params.id ?? "", limit: intParam(query.limit, "limit"), cursor: stringParam(query.cursor) }),
    body: (data) => data.webhook.deliveries,
  }),
  route({
    method: "POST",
    path: "/api/webhooks/:id/deliveries/:deliveryId/retry",
    operation: RetryWebhookDeliveryDocument,
    variables: ({ params }) => ({ id: params.id ?? "", deliveryId: params.deliveryId ?? "" }),
    status: () => 202,
    body: (data) => ({ delivery: data.retryWebhookDelivery }),
  }),
  route({
    method: "GET",
    path: "/api/lifecycle/stages",
    operation: LifecycleStagesDocument,
    variables: () => ({}),
    body: (data) => ({ version: data.lifecycleStages.version, stages: data.lifecycleStages.stages }),
    // The definition changes only with a deploy that bumps its version: cacheable, with an ETag.
    immutable: { key: () => `lifecycle@${LIFECYCLE_VERSION}`, cacheControl: "public, max-age=3600" },
  }),
  route({
    method: "POST",
    path: "/api/lifecycle/assessment",
    operation: AssessLifecycleDocument,
    // `answers` is an object of task id → status in REST, a list of pairs in GraphQL.
    variables: (input) => {
      const { productId, answers } = objectBody(input);
      if (typeof answers !== "object" || answers === null || Array.isArray(answers)) {
        throw new AppError("VALIDATION_FAILED", "answers: must be an object of task id → status");
      }
      return { input: { productId: productId as string, answers: Object.entries(answers).map(([taskId, status]) => ({ taskId, status: status as string })) } };
    },
    status: () => 201,
    body: (data) => ({ assessment: { ...data.assessLifecycle, answers: Object.fromEntries(data.assessLifecycle.answers.map((answer) => [answer.taskId, answer.status])) } }),
  }),
  route({
    method: "POST",
    path: "/api/chat",
    operation: SendChatMessageDocument,
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
    variables: ({ params, query }) => ({ id: params.conversationId ?? "", limit: intParam(query.limit, "limit"), cursor: stringParam(query.cursor) }),
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

/** 200 with the result; 202 with the job when scoring outlived the wait (follow it over GraphQL). */
function scoreStatus(answer: ScoreAnswerFragment): number {
  return answer.result ? 200 : 202;
}

/** A 202 names where to follow the job (it exists and is charged: follow it, do not score again). */
function scoreHeaders(answer: Pick<ScoreAnswerFragment, "result" | "job">): Record<string, string> {
  return answer.result ? {} : { location: `/api/score/jobs/${answer.job.id}` };
}

function scoreBody(answer: ScoreAnswerFragment) {
  if (!answer.result) return { job: answer.job, ...(answer.claimToken ? { claimToken: answer.claimToken } : {}) };
  return { ...answer.result, ...(answer.claimToken ? { claimToken: answer.claimToken } : {}) };
}

function intParam(value: string | string[] | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (Array.isArray(value) || !/^\d{1,9}$/.test(value)) throw new AppError("VALIDATION_FAILED", `${name}: must be a whole number`);
  return Number(value);
}

function stringParam(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : null;
}
