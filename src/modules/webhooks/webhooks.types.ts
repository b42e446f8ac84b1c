import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from "type-graphql";
import { MaxCharacters } from "../../graphql/decorators/max-characters.js";
import { MAX_URL_LENGTH } from "../../limits.js";

@ObjectType("WebhookDelivery", { description: "One event sent (or being sent) to one webhook: the delivery log." })
export class WebhookDeliveryType {
  @Field(() => ID, { description: "The delivery's id (to replay it)." })
  id: string;

  @Field(() => ID, { description: "The event's id: the webhook-id header, the same on every attempt." })
  eventId: string;

  @Field(() => String, {
    description: "score.completed, subscription.changed, score.changed, monitor.skipped or webhook.test.",
  })
  eventType: string;

  @Field(() => String, {
    description:
      "pending (waiting for its next attempt), delivered, failed (8 attempts used up), or paused (the webhook was disabled when it was recorded or came due: nothing sent; it is sent when the webhook is enabled again, or replayed).",
  })
  status: string;

  @Field(() => Int, { description: "Attempts made so far." })
  attempts: number;

  @Field(() => Int, {
    nullable: true,
    description: "The HTTP status of the last attempt; null when there was no answer.",
  })
  lastStatusCode: number | null;

  @Field(() => String, { nullable: true, description: "Why the last attempt failed." })
  lastError: string | null;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: "When the next attempt is due (pending deliveries).",
  })
  nextAttemptAt: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: "When a 2xx answer was received." })
  deliveredAt: Date | null;

  @Field(() => GraphQLISODateTime, { description: "When the event happened and the delivery was queued." })
  createdAt: Date;
}

@ObjectType({ description: "A page of a webhook's deliveries, newest first." })
export class WebhookDeliveryPage {
  @Field(() => [WebhookDeliveryType], { description: "At most `limit` deliveries." })
  deliveries: WebhookDeliveryType[];

  @Field(() => String, { nullable: true, description: "Pass as `cursor` for the next page; null on the last." })
  nextCursor: string | null;
}

@ObjectType("Webhook", {
  description:
    "A webhook subscription: an HTTPS destination and the event kinds it receives. Its secret is shown only when created or rotated.",
})
export class WebhookType {
  @Field(() => ID, { description: "The webhook's id." })
  id: string;

  @Field(() => ID, { description: "The account it belongs to." })
  accountId: string;

  @Field(() => String, { description: "The HTTPS destination." })
  url: string;

  @Field(() => [String], {
    description: "Subscribed event kinds: score.completed, subscription.changed, score.changed, monitor.skipped.",
  })
  events: string[];

  @Field(() => Boolean, {
    description: "Whether events are delivered to it; while false they are kept as paused deliveries.",
  })
  enabled: boolean;

  @Field(() => String, {
    nullable: true,
    description: "Why the service disabled it (410 Gone, or 5 days of failed deliveries); null otherwise.",
  })
  disabledReason: string | null;

  @Field(() => GraphQLISODateTime, { description: "When it was created." })
  createdAt: Date;
}

@ObjectType({ description: "A webhook with its signing secret: shown at creation and rotation only." })
export class WebhookWithSecret {
  @Field(() => WebhookType, { description: "The webhook." })
  webhook: WebhookType;

  @Field(() => String, {
    description: "The signing secret (whsec_…): verify the webhook-signature header with it. Store it now.",
  })
  secret: string;
}

@ObjectType({ description: "The account's webhooks, newest first (at most 10)." })
export class WebhookList {
  @Field(() => [WebhookType], { description: "Webhooks." })
  webhooks: WebhookType[];
}

@InputType({ description: "A new webhook." })
export class CreateWebhookInput {
  @Field(() => String, {
    description: "The HTTPS destination, at most 2,048 characters; it must not resolve to a private address.",
  })
  @MaxCharacters(MAX_URL_LENGTH)
  url: string;

  @Field(() => [String], {
    nullable: true,
    description:
      "Event kinds: score.completed (default), subscription.changed, score.changed (a monitored product moved 5 points or changed stage), monitor.skipped (a scheduled re-score could not be paid).",
  })
  events?: string[] | null;
}

@InputType({ description: "Changes to a webhook; fields left out stay as they are." })
export class UpdateWebhookInput {
  @Field(() => String, { nullable: true, description: "A new HTTPS destination." })
  @MaxCharacters(MAX_URL_LENGTH)
  url?: string | null;

  @Field(() => [String], { nullable: true, description: "The event kinds to receive." })
  events?: string[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      "false stops deliveries (events meanwhile are kept as paused deliveries); true sends those and resumes (and clears a disabled reason).",
  })
  enabled?: boolean | null;
}
