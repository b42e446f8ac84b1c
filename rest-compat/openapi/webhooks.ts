import { planIds } from "../../src/modules/accounts/account.entity.js";
import { webhookEventKinds } from "../../src/modules/webhooks/webhook.entity.js";
import type { JsonSchema } from "../openapi.js";
import type { WebhookExample } from "./examples.js";

/**
 * OpenAPI 3.1 `webhooks`: what the service POSTs to a webhook's address, one entry
 * per event kind a webhook subscribes to, plus the `webhook.test` event sent on
 * request. The body schemas say what `deliveryData` (src/modules/webhooks/webhook-request.ts)
 * builds; a test validates each kind's recorded delivery against them.
 */

export const WEBHOOK_TAG = "Webhook events";

const DATA: Readonly<Record<string, { summary: string; description: string; schema: JsonSchema }>> = {
  "score.completed": {
    summary: "A score finished",
    description:
      "Sent when a score of the account completes (the default subscription of a new webhook). Read the whole result with `GET /api/score/{id}`.",
    schema: object({
      id: { type: "string", description: "The result's id." },
      url: { type: "string", description: "The address scored." },
      totalScore: { type: "integer", minimum: 0, maximum: 100 },
      stageName: { type: "string", description: "The maturity stage of the total." },
      framework: { type: "string", enum: ["maturity", "product"] },
      frameworkVersion: { type: ["string", "null"], description: "Null on events recorded before it was sent." },
      productId: { type: ["string", "null"], description: "The product of a product score, else null." },
      shareUrl: { type: "string", description: "The result's public share page." },
    }),
  },
  "subscription.changed": {
    summary: "The account's plan changed",
    description: "Sent when a checkout, a renewal or a cancellation changes the account's plan.",
    schema: object({
      accountId: { type: "string" },
      previousPlan: { type: "string", enum: [...planIds] },
      plan: { type: "string", enum: [...planIds] },
      reason: { type: "string", enum: ["checkout", "subscription_updated", "subscription_cancelled"] },
      effectiveAt: { type: "string", format: "date-time" },
    }),
  },
  "score.changed": {
    summary: "A monitored product's score moved",
    description:
      "Sent when a result of a monitored product completes and its total moved 5 points or more from the product's previous result, or its stage changed (sent beside `score.completed`). A webhook receives it only when subscribed to it.",
    schema: object({
      productId: { type: "string" },
      url: { type: "string", description: "The product's address as scored." },
      previousResultId: { type: "string" },
      resultId: { type: "string" },
      previousTotal: { type: "integer", minimum: 0, maximum: 100 },
      total: { type: "integer", minimum: 0, maximum: 100 },
      totalDelta: { type: "integer", minimum: -100, maximum: 100, description: "total − previousTotal." },
      previousStage: { type: "string" },
      stage: { type: "string" },
      frameworkVersion: { type: "string" },
      shareUrl: { type: "string", description: "The new result's public share page." },
    }),
  },
  "monitor.skipped": {
    summary: "A scheduled re-score was skipped",
    description:
      "Sent when a monitored product fell due and its account could not pay for the re-score (credits or the plan's monthly scores used up). The schedule moves on to the next period; nothing was charged.",
    schema: object({
      productId: { type: "string" },
      url: { type: "string" },
      dueAt: { type: "string", format: "date-time", description: "When the skipped run was due." },
      reason: { type: "string", enum: ["credits_exhausted", "quota_exceeded"] },
      creditsNeeded: { type: "number", description: "What a score costs, in credits." },
      creditsAvailable: {
        type: ["number", "null"],
        description: "Plan credits left this cycle plus pack credits; null when the plan's credits are unlimited.",
      },
    }),
  },
  "webhook.test": {
    summary: "A test event",
    description: "Sent to one webhook on request (`POST /api/webhooks/{id}/test`); not a kind a webhook subscribes to.",
    schema: object({
      webhookId: { type: "string" },
      message: { type: "string" },
    }),
  },
};

function object(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: "object", additionalProperties: false, required: Object.keys(properties), properties };
}

export const WEBHOOK_KINDS: readonly string[] = [...webhookEventKinds, "webhook.test"];

export function webhookPayloadSchema(kind: string): JsonSchema {
  const data = DATA[kind];
  if (!data) throw new Error(`no payload schema for the webhook event ${kind}`);
  return {
    type: "object",
    additionalProperties: false,
    required: ["type", "timestamp", "data"],
    properties: {
      type: { type: "string", const: kind },
      timestamp: { type: "string", format: "date-time", description: "When the event happened." },
      data: data.schema,
    },
  };
}

export function webhookOperations(examples: Readonly<Record<string, WebhookExample>>): Record<string, JsonSchema> {
  return Object.fromEntries(
    WEBHOOK_KINDS.map((kind) => {
      const { summary, description } = DATA[kind]!;
      const example = examples[kind];
      const header = (name: string, text: string, schema: JsonSchema) => ({
        name,
        in: "header",
        required: true,
        description: text,
        schema,
        ...(example?.headers[name] ? { example: example.headers[name] } : {}),
      });
      return [
        kind,
        {
          post: {
            operationId: `${kind.replace(/\.(\w)/g, (_match, letter: string) => letter.toUpperCase())}Event`,
            summary: `${kind}: ${summary}`,
            description: `${description}\n\nDelivered as the Standard Webhooks specification says: verify \`webhook-signature\` before trusting the body, answer 2xx within 10 seconds, and use \`webhook-id\` to drop a copy you have already handled (delivery is at least once: 8 attempts over about 28 hours).`,
            tags: [WEBHOOK_TAG],
            security: [],
            parameters: [
              header("webhook-id", "The event's id: the same on every attempt and replay of it.", { type: "string" }),
              header(
                "webhook-timestamp",
                "When this attempt was sent, in Unix seconds. Refuse one far from your clock (replayed traffic).",
                { type: "string", pattern: "^\\d+$" },
              ),
              header(
                "webhook-signature",
                '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64-decoded part of the webhook\'s `whsec_` secret. For 24 hours after a rotation, two signatures separated by a space (new and old secret): accept either.',
                { type: "string" },
              ),
            ],
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: webhookPayloadSchema(kind),
                  ...(example ? { example: example.body } : {}),
                },
              },
            },
            responses: {
              "200": {
                description: "Any 2xx acknowledges the delivery; its body is kept (4 KiB) in the delivery log.",
              },
              "410": { description: "Gone: the service disables the webhook at once and sends it nothing more." },
            },
          },
        },
      ];
    }),
  );
}
