import { IsNull, type DataSource } from "typeorm";
import type { AlsoInTransaction, Transaction } from "../../db/transaction.js";
import { keysetPage } from "../../db/keyset-page.js";
import { latestResultOfProduct } from "../score/score-results.service.js";
import { ChatConversation, ChatMessage, type Citation } from "./chat.entity.js";

/** Conversations and their messages (`chat_conversations`, `chat_messages`). */
export class ChatRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account's conversation of this id, or null (another account's too). */
  findConversationOfAccount(accountId: string, id: string): Promise<ChatConversation | null> {
    return this.dataSource.getRepository(ChatConversation).findOneBy({ id, accountId });
  }

  /** A new conversation of the account about a result (and the product it was asked about); answers its id. */
  async startConversation(
    tx: Transaction,
    fields: { accountId: string; resultId: string; productId: string | null },
  ): Promise<string> {
    return (await tx.save(tx.create(ChatConversation, fields))).id;
  }

  /** Marks the conversation as having a new message at `at`. */
  async touchConversation(tx: Transaction, id: string, at: Date): Promise<void> {
    await tx.update(ChatConversation, { id }, { updatedAt: at });
  }

  /** The caller's question, stored under the id the charge references. */
  async addQuestion(tx: Transaction, id: string, conversationId: string, content: string): Promise<void> {
    await tx.insert(ChatMessage, { id, conversationId, role: "user", content, citations: [] });
  }

  /**
   * The engine's reply, stored once it is complete, in one commit with its question marked `replied` (and with
   * `alsoInTransaction`'s work).
   */
  addReply(
    conversationId: string,
    questionId: string,
    content: string,
    citations: readonly Citation[],
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<ChatMessage> {
    return this.dataSource.transaction(async (tx) => {
      const reply = await tx.save(
        tx.create(ChatMessage, { conversationId, role: "assistant", content, citations: [...citations] }),
      );
      await tx.update(ChatMessage, { id: questionId }, { outcome: "replied" });
      await alsoInTransaction?.(tx, reply.id);
      return reply;
    });
  }

  /** Whether the question's reply was stored (its commit went through), whatever its caller heard. */
  async replied(questionId: string): Promise<boolean> {
    const question = await this.dataSource.getRepository(ChatMessage).findOneBy({ id: questionId });
    return question?.outcome === "replied";
  }

  /** The question's failure was answered: its charge was settled by the refund rules. */
  async markFailed(questionId: string): Promise<void> {
    await this.dataSource
      .getRepository(ChatMessage)
      .update({ id: questionId, outcome: IsNull() }, { outcome: "failed" });
  }

  /** Questions still pending (no reply stored, no failure answered) asked before `before`, oldest first, with their account: at most `limit`. */
  async pendingQuestions(
    before: Date,
    limit: number,
  ): Promise<Array<{ readonly id: string; readonly accountId: string }>> {
    return (await this.dataSource.query(
      `SELECT m.id, c.account_id AS "accountId" FROM chat_messages m
         JOIN chat_conversations c ON c.id = m.conversation_id
        WHERE m.role = 'user' AND m.outcome IS NULL AND m.created_at < $1
        ORDER BY m.created_at
        LIMIT $2`,
      [before, limit],
    )) as Array<{ id: string; accountId: string }>;
  }

  /** Marks a pending question abandoned, in `tx`; false when it was settled meanwhile (its reply came late). */
  async markAbandoned(tx: Transaction, questionId: string): Promise<boolean> {
    const result = await tx.update(ChatMessage, { id: questionId, outcome: IsNull() }, { outcome: "abandoned" });
    return (result.affected ?? 0) > 0;
  }

  /** A message of one of the account's conversations, or null. */
  async findMessageOfAccount(accountId: string, id: string): Promise<ChatMessage | null> {
    const message = await this.dataSource.getRepository(ChatMessage).findOneBy({ id });
    if (!message) return null;
    return (await this.findConversationOfAccount(accountId, message.conversationId)) ? message : null;
  }

  /** The conversation's messages, newest first, keyset-paginated. */
  pageOfMessages(
    conversationId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: ChatMessage[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(ChatMessage)
      .createQueryBuilder("message")
      .where("message.conversation_id = :id", { id: conversationId });
    return keysetPage(query, "message", limit, cursor);
  }

  /** The conversation's newest `take` messages but one, newest first. */
  newestMessagesExcept(conversationId: string, exceptId: string, take: number): Promise<ChatMessage[]> {
    return this.dataSource
      .getRepository(ChatMessage)
      .createQueryBuilder("message")
      .where("message.conversation_id = :conversationId AND message.id <> :currentId", {
        conversationId,
        currentId: exceptId,
      })
      .orderBy("message.created_at", "DESC")
      .addOrderBy("message.id", "DESC")
      .take(take)
      .getMany();
  }

  /** The id of the product's newest result, null without one: what a chat about a product is about. */
  async latestResultOfProduct(productId: string): Promise<string | null> {
    const [latest] = (await this.dataSource.query(`SELECT ${latestResultOfProduct("$1")} AS "id"`, [
      productId,
    ])) as Array<{ id: string | null }>;
    return latest?.id ?? null;
  }
}
