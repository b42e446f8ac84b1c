import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver, Root, Subscription } from "type-graphql";
import { AppError } from "../../errors.js";
import type { ChatReplyEvent } from "./chat.service.js";
import { idempotentCall, type GraphQLContext } from "../../graphql/context.js";
import type { IdempotentRequests } from "../idempotency/idempotent-requests.js";
import { CurrentMember, currentViewer, type Member } from "../../graphql/decorators/current-member.js";
import { WordedPageArgs } from "../../graphql/page.args.js";
import type { ChatService } from "./chat.service.js";
import { ChatAnswerType, ChatReplyEventType, ConversationType, SendChatMessageInput } from "./chat.types.js";

@Resolver()
export class ChatResolver {
  constructor(
    private readonly chat: ChatService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @Authorized()
  @Mutation(() => ChatAnswerType, {
    description:
      "Asks about a result: 1 credit and one chat message; a failed reply is refunded. At most once per operation. Honours Idempotency-Key: a replay answers the same reply, without a second charge or model call. REST: POST /api/chat.",
  })
  async sendChatMessage(
    @Arg("input", () => SendChatMessageInput, { description: "The message and what it is about." })
    input: SendChatMessageInput,
    @CurrentMember() member: Member,
    @Ctx() context: GraphQLContext,
  ): Promise<ChatAnswerType> {
    const request = {
      message: input.message,
      resultId: input.resultId,
      productId: input.productId,
      conversationId: input.conversationId,
    };
    const answer = await this.idempotency.once(idempotentCall(context), member.accountId, "chat.send", request, {
      run: async (complete) => {
        const sent = await this.chat.send(member, input, undefined, complete);
        return { answer: sent, resourceId: sent.reply.id };
      },
      replay: (id) => this.chat.answered(member, id),
    });
    return { conversationId: answer.conversationId, reply: answer.reply, usage: answer.usage };
  }

  @Subscription(() => ChatReplyEventType, {
    description:
      "sendChatMessage with its reply streamed over graphql-ws: the tokens as the engine produces them (the deterministic engine sends one), then the stored reply.",
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      if (!ctx.streams?.chatReply)
        throw new AppError("SERVICE_UNAVAILABLE", "Subscriptions are served over graphql-ws at /graphql.");
      return ctx.streams.chatReply(
        await currentViewer({ context: ctx }),
        (args as { input: SendChatMessageInput }).input,
      );
    },
  })
  chatReply(
    @Root() event: ChatReplyEvent,
    @Arg("input", () => SendChatMessageInput, { description: "The message and what it is about." })
    _input: SendChatMessageInput,
  ): ChatReplyEventType {
    return event;
  }

  @Authorized()
  @Query(() => ConversationType, {
    description: "A conversation of the account with one page of its messages. REST: GET /api/chat/{conversationId}.",
  })
  async conversation(
    @Arg("id", () => ID, { description: "The conversation's id." }) id: string,
    @Args(() => WordedPageArgs) page: WordedPageArgs,
    @CurrentMember() member: Member,
  ): Promise<ConversationType> {
    const { conversation, messages, nextCursor } = await this.chat.conversation(
      member,
      id,
      page.limit,
      page.cursor ?? undefined,
    );
    return {
      id: conversation.id,
      resultId: conversation.resultId,
      productId: conversation.productId,
      createdAt: conversation.createdAt,
      messages,
      nextCursor,
    };
  }
}
