import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from "type-graphql";
import type { GraphQLContext } from "../../graphql/context.js";
import type { ChatService } from "./chat.service.js";
import { ChatAnswerType, ConversationType, SendChatMessageInput } from "./chat.types.js";

@Resolver()
export class ChatResolver {
  constructor(private readonly chat: ChatService) {}

  @Authorized()
  @Mutation(() => ChatAnswerType, { description: "Asks about a result: 1 credit and one chat message; a failed reply is refunded. At most once per operation. REST: POST /api/chat." })
  async sendChatMessage(@Arg("input", () => SendChatMessageInput, { description: "The message and what it is about." }) input: SendChatMessageInput, @Ctx() context: GraphQLContext): Promise<ChatAnswerType> {
    const answer = await this.chat.send(await context.viewer(), input);
    return { conversationId: answer.conversationId, reply: answer.reply, usage: answer.usage };
  }

  @Authorized()
  @Query(() => ConversationType, { description: "A conversation of the account with one page of its messages. REST: GET /api/chat/{conversationId}." })
  async conversation(
    @Arg("id", () => ID, { description: "The conversation's id." }) id: string,
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1 to 100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<ConversationType> {
    const page = await this.chat.conversation(await context.viewer(), id, limit, cursor ?? undefined);
    const { conversation } = page;
    return { id: conversation.id, resultId: conversation.resultId, productId: conversation.productId, createdAt: conversation.createdAt, messages: page.messages, nextCursor: page.nextCursor };
  }
}
