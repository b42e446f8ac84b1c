import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from "type-graphql";
import { idempotentCall, meteredCaller, type GraphQLContext } from "../../graphql/context.js";
import type { IdempotentRequests } from "../idempotency/idempotent-requests.js";
import { CurrentMember, type Member } from "../../graphql/decorators/current-member.js";
import { WordedPageArgs } from "../../graphql/page.args.js";
import type { WebhooksService } from "./webhooks.service.js";
import {
  CreateWebhookInput,
  UpdateWebhookInput,
  WebhookDeliveryPage,
  WebhookDeliveryType,
  WebhookList,
  WebhookType,
  WebhookWithSecret,
} from "./webhooks.types.js";

const defined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** Webhooks of the account: a signed-in session or an API key of the account may manage them. */
@Resolver(() => WebhookType)
export class WebhooksResolver {
  constructor(
    private readonly service: WebhooksService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @Authorized()
  @Query(() => WebhookList, { description: "The account's webhooks. REST: GET /api/webhooks." })
  async webhooks(@CurrentMember() member: Member): Promise<WebhookList> {
    return { webhooks: await this.service.list(member.accountId) };
  }

  @Authorized()
  @Query(() => WebhookType, { description: "One webhook of the account. REST: GET /api/webhooks/{id}." })
  async webhook(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @CurrentMember() member: Member,
  ): Promise<WebhookType> {
    return this.service.get(member.accountId, id);
  }

  @Authorized()
  @FieldResolver(() => WebhookDeliveryPage, {
    description: "The delivery log, newest first. REST: GET /api/webhooks/{id}/deliveries.",
  })
  async deliveries(
    @Root() webhook: WebhookType,
    @Args(() => WordedPageArgs) page: WordedPageArgs,
    @CurrentMember() member: Member,
  ): Promise<WebhookDeliveryPage> {
    return this.service.deliveries(member.accountId, webhook.id, page.limit, defined(page.cursor));
  }

  @Authorized()
  @Mutation(() => WebhookWithSecret, {
    description:
      "Creates a webhook (at most 10 per account). Honours Idempotency-Key: a replay answers the same webhook. REST: POST /api/webhooks (201).",
  })
  async createWebhook(
    @Arg("input", () => CreateWebhookInput, { description: "Destination and event kinds." }) input: CreateWebhookInput,
    @CurrentMember() member: Member,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookWithSecret> {
    const request = { url: input.url, events: defined(input.events) };
    return this.idempotency.onceAtomic(idempotentCall(context), member.accountId, "webhook.create", request, {
      run: async (record) => {
        const created = await this.service.create(member.accountId, request, record);
        return { answer: created, resourceId: created.webhook.id };
      },
      replay: (id) => this.service.created(member.accountId, id),
    });
  }

  @Authorized()
  @Mutation(() => WebhookType, {
    description: "Changes a webhook's url, events or enabled. REST: PATCH /api/webhooks/{id}.",
  })
  async updateWebhook(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @Arg("input", () => UpdateWebhookInput, { description: "The changes." }) input: UpdateWebhookInput,
    @CurrentMember() member: Member,
  ): Promise<WebhookType> {
    return this.service.update(member.accountId, id, {
      url: defined(input.url),
      events: defined(input.events),
      enabled: defined(input.enabled),
    });
  }

  @Authorized()
  @Mutation(() => WebhookType, {
    description: "Deletes a webhook and its delivery log. REST: DELETE /api/webhooks/{id} (204).",
  })
  async deleteWebhook(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @CurrentMember() member: Member,
  ): Promise<WebhookType> {
    return this.service.remove(member.accountId, id);
  }

  @Authorized()
  @Mutation(() => WebhookWithSecret, {
    description:
      "A new signing secret; the old one keeps signing beside it for 24 hours. REST: POST /api/webhooks/{id}/rotate-secret.",
  })
  async rotateWebhookSecret(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @CurrentMember() member: Member,
  ): Promise<WebhookWithSecret> {
    return this.service.rotateSecret(member.accountId, id);
  }

  // Not @Authorized (its check would charge the API call up front): the service requires a member and charges only what it accepts.
  @Mutation(() => WebhookDeliveryType, {
    description:
      "Sends a webhook.test event to this webhook (paused while it is disabled). Test events and replays: at most 30 a minute per account, and an API call each with an API key. REST: POST /api/webhooks/{id}/test (202).",
  })
  async sendTestWebhook(
    @Arg("id", () => ID, { description: "The webhook's id." }) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookDeliveryType> {
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
