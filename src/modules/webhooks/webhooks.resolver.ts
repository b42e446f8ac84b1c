import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from "type-graphql";
import { meteredCaller, type GraphQLContext } from "../../graphql/context.js";
import { requireMember } from "../accounts/viewer.js";
import type { WebhooksService } from "./webhooks.service.js";
import { CreateWebhookInput, UpdateWebhookInput, WebhookDeliveryPage, WebhookDeliveryType, WebhookList, WebhookType, WebhookWithSecret } from "./webhooks.types.js";

const defined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** Webhooks of the account: a signed-in session or an API key of the account may manage them. */
@Resolver(() => WebhookType)
export class WebhooksResolver {
  constructor(private readonly service: WebhooksService) {}

  @Authorized()
  @Query(() => WebhookList, { description: "The account's webhooks. REST: GET /api/webhooks." })
  async webhooks(@Ctx() context: GraphQLContext): Promise<WebhookList> {
    const member = requireMember(await context.viewer());
    return { webhooks: await this.service.list(member.accountId) };
  }

  @Authorized()
  @Query(() => WebhookType, { description: "One webhook of the account. REST: GET /api/webhooks/{id}." })
  async webhook(@Arg("id", () => ID, { description: "The webhook's id." }) id: string, @Ctx() context: GraphQLContext): Promise<WebhookType> {
    return this.service.get(requireMember(await context.viewer()).accountId, id);
  }

  @Authorized()
  @FieldResolver(() => WebhookDeliveryPage, { description: "The delivery log, newest first. REST: GET /api/webhooks/{id}/deliveries." })
  async deliveries(
    @Root() webhook: WebhookType,
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1 to 100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<WebhookDeliveryPage> {
    const member = requireMember(await context.viewer());
    return this.service.deliveries(member.accountId, webhook.id, limit, defined(cursor));
  }

  @Authorized()
  @Mutation(() => WebhookWithSecret, { description: "Creates a webhook (at most 10 per account). REST: POST /api/webhooks (201)." })
  async createWebhook(@Arg("input", () => CreateWebhookInput, { description: "Destination and event kinds." }) input: CreateWebhookInput, @Ctx() context: GraphQLContext): Promise<WebhookWithSecret> {
    const member = requireMember(await context.viewer());
    return this.service.create(member.accountId, { url: input.url, events: defined(input.events) });
  }

  @Authorized()
  @Mutation(() => WebhookType, { description: "Changes a webhook's url, events or enabled. REST: PATCH /api/webhooks/{id}." })
  async updateWebhook(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @Arg("input", () => UpdateWebhookInput, { description: "The changes." }) input: UpdateWebhookInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookType> {
    const member = requireMember(await context.viewer());
    return this.service.update(member.accountId, id, { url: defined(input.url), events: defined(input.events), enabled: defined(input.enabled) });
  }

  @Authorized()
  @Mutation(() => WebhookType, { description: "Deletes a webhook and its delivery log. REST: DELETE /api/webhooks/{id} (204)." })
  async deleteWebhook(@Arg("id", () => ID, { description: "The webhook's id." }) id: string, @Ctx() context: GraphQLContext): Promise<WebhookType> {
    return this.service.remove(requireMember(await context.viewer()).accountId, id);
  }

  @Authorized()
  @Mutation(() => WebhookWithSecret, { description: "A new signing secret; the old one keeps signing beside it for 24 hours. REST: POST /api/webhooks/{id}/rotate-secret." })
  async rotateWebhookSecret(@Arg("id", () => ID, { description: "The webhook's id." }) id: string, @Ctx() context: GraphQLContext): Promise<WebhookWithSecret> {
    return this.service.rotateSecret(requireMember(await context.viewer()).accountId, id);
  }

  // Not @Authorized (its check would charge the API call up front): the service requires a member and charges only what it accepts.
  @Mutation(() => WebhookDeliveryType, {
    description:
      "Sends a webhook.test event to this webhook (paused while it is disabled). Test events and replays: at most 30 a minute per account, and an API call each with an API key. REST: POST /api/webhooks/{id}/test (202).",
  })
  async sendTestWebhook(@Arg("id", () => ID, { description: "The webhook's id." }) id: string, @Ctx() context: GraphQLContext): Promise<WebhookDeliveryType> {
    return this.service.sendTest(await meteredCaller(context), id);
  }

  // Not @Authorized, as sendTestWebhook.
  @Mutation(() => WebhookDeliveryType, {
    description:
      "Replays one delivery now, with the same webhook-id (paused while the webhook is disabled); one being sent right now is refused with DELIVERY_IN_PROGRESS. Counts as a test event for the limit and the API call. REST: POST /api/webhooks/{id}/deliveries/{deliveryId}/retry (202).",
  })
  async retryWebhookDelivery(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @Arg("deliveryId", () => ID, { description: "The delivery's id." }) deliveryId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookDeliveryType> {
    return this.service.retryDelivery(await meteredCaller(context), id, deliveryId);
  }
}
