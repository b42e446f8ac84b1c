import { Field, Float, GraphQLISODateTime, ID, InputType, ObjectType } from "type-graphql";
import { MaxCharacters } from "../../graphql/decorators/max-characters.js";
import { MAX_CHAT_MESSAGE_LENGTH } from "../../limits.js";

@ObjectType("ChatCitation", { description: "Evidence of the result a reply rests on." })
export class ChatCitationType {
  @Field(() => ID, { description: "The dimension whose evidence is cited." })
  dimensionId: string;

  @Field(() => String, {
    nullable: true,
    description: "The page the evidence was seen on; null for self-reported context.",
  })
  url: string | null;

  @Field(() => String, { description: "The evidence, as stored with the result." })
  quote: string;
}

@ObjectType("ChatMessage", { description: "One message of a conversation." })
export class ChatMessageType {
  @Field(() => ID, { description: "Its id." })
  id: string;

  @Field(() => String, { description: "user or assistant." })
  role: string;

  @Field(() => String, { description: "The text." })
  content: string;

  @Field(() => [ChatCitationType], { description: "For replies: the evidence cited (only evidence the result holds)." })
  citations: ChatCitationType[];

  @Field(() => GraphQLISODateTime, { description: "When it was stored." })
  createdAt: Date;
}

@ObjectType({ description: "What a chat message cost." })
export class ChatUsage {
  @Field(() => Float, { description: "Credits charged: 1 per message." })
  credits: number;
}

@ObjectType({ description: "The reply to a chat message. REST: POST /api/chat." })
export class ChatAnswerType {
  @Field(() => ID, { description: "The conversation, to continue it and to read it back." })
  conversationId: string;

  @Field(() => ChatMessageType, { description: "The assistant's reply." })
  reply: ChatMessageType;

  @Field(() => ChatUsage, { description: "What this message cost." })
  usage: ChatUsage;
}

@ObjectType("Conversation", {
  description: "A conversation of the account about one result. REST: GET /api/chat/{conversationId}.",
})
export class ConversationType {
  @Field(() => ID, { description: "Its id." })
  id: string;

  @Field(() => ID, { description: "The result talked about." })
  resultId: string;

  @Field(() => ID, { nullable: true, description: "The product, when the conversation began from one." })
  productId: string | null;

  @Field(() => GraphQLISODateTime, { description: "When it began." })
  createdAt: Date;

  @Field(() => [ChatMessageType], { description: "Its messages, newest first (one page)." })
  messages: ChatMessageType[];

  @Field(() => String, { nullable: true, description: "Pass as `cursor` for older messages; null on the last page." })
  nextCursor: string | null;
}

@InputType({
  description: "A chat message about a result: send resultId or productId to begin, conversationId to continue.",
})
export class SendChatMessageInput {
  @Field(() => String, { description: "The question, at most 4,000 characters." })
  @MaxCharacters(MAX_CHAT_MESSAGE_LENGTH)
  message: string;

  @Field(() => ID, { nullable: true, description: "A result (any, by id: results are public by id)." })
  resultId?: string | null;

  @Field(() => ID, { nullable: true, description: "A product of the account: its newest result." })
  productId?: string | null;

  @Field(() => ID, { nullable: true, description: "An earlier conversation of the account." })
  conversationId?: string | null;
}

@ObjectType("ChatReplyEvent", { description: "One event of a streamed reply: a token, or (last) the stored reply." })
export class ChatReplyEventType {
  @Field(() => String, { nullable: true, description: "The next piece of the reply; null on the last event." })
  token: string | null;

  @Field(() => Boolean, { description: "true on the last event, which carries the stored reply." })
  done: boolean;

  @Field(() => ID, { nullable: true, description: "The conversation (last event)." })
  conversationId: string | null;

  @Field(() => ChatMessageType, { nullable: true, description: "The stored reply with its citations (last event)." })
  reply: ChatMessageType | null;
}
