import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from "typeorm";
import { Account } from "../accounts/account.entity.js";

export interface Citation {
  readonly dimensionId: string;
  readonly url: string | null;
  readonly quote: string;
}

/** A conversation about one result (or a product's latest result), kept per account. */
@Entity({ name: "chat_conversations" })
@Index("IDX_chat_conversations_account", ["accountId", "createdAt"])
export class ChatConversation {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_chat_conversations" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_chat_conversations_account" })
  account?: Relation<Account>;

  /** The result talked about (for a product: its newest result when the conversation began). */
  @Column({ name: "result_id", type: "uuid" })
  resultId: string;

  @Column({ name: "product_id", type: "uuid", nullable: true })
  productId: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}

@Entity({ name: "chat_messages" })
@Check("CHK_chat_messages_role", `"role" IN ('user', 'assistant')`)
@Index("IDX_chat_messages_conversation", ["conversationId", "createdAt", "id"])
@Index("IDX_chat_messages_pending", ["createdAt"], { where: `"role" = 'user' AND "outcome" IS NULL` })
export class ChatMessage {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_chat_messages" })
  id: string;

  @Column({ name: "conversation_id", type: "uuid" })
  conversationId: string;

  @ManyToOne(() => ChatConversation, { onDelete: "CASCADE" })
  @JoinColumn({ name: "conversation_id", foreignKeyConstraintName: "FK_chat_messages_conversation" })
  conversation?: Relation<ChatConversation>;

  @Column({ type: "text" })
  role: "user" | "assistant";

  @Column({ type: "text" })
  content: string;

  @Column({ type: "jsonb", default: () => "'[]'" })
  citations: Citation[];

  /**
   * A question's settlement (null on replies, and on a question whose reply is still being made): `replied`,
   * `failed` (the failure was answered and its refund rules applied), `abandoned` (its process died first; the
   * sweep gave the credit back), `settled` (asked before outcomes were kept).
   */
  @Column({ type: "text", nullable: true })
  outcome: "replied" | "failed" | "abandoned" | "settled" | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;
}
