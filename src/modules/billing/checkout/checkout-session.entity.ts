import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from "typeorm";
import { Account } from "../../accounts/account.entity.js";

export const checkoutProviders = ["local", "stripe"] as const;
export type CheckoutProviderName = (typeof checkoutProviders)[number];

/**
 * One checkout: what was asked for, of which provider, and whether it completed.
 * Completion is applied once: the row's status moves open → completed under a lock.
 */
@Entity({ name: "checkout_sessions" })
@Check("CHK_checkout_sessions_provider", `"provider" IN ('local', 'stripe')`)
@Check("CHK_checkout_sessions_kind", `"kind" IN ('plan', 'pack')`)
@Check("CHK_checkout_sessions_status", `"status" IN ('open', 'completed')`)
export class CheckoutSession {
  /** Ours (`chk_…`): what the caller gets as `sessionId` and what the provider echoes back. */
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_checkout_sessions" })
  id: string;

  @Index("IDX_checkout_sessions_account")
  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_checkout_sessions_account" })
  account?: Relation<Account>;

  @Column({ name: "user_id", type: "uuid", nullable: true })
  userId: string | null;

  @Column({ type: "text" })
  provider: CheckoutProviderName;

  /** Stripe's `cs_…` id (null for the local provider). */
  @Index("IDX_checkout_sessions_provider_session", { unique: true })
  @Column({ name: "provider_session_id", type: "text", nullable: true })
  providerSessionId: string | null;

  @Column({ type: "text" })
  kind: "plan" | "pack";

  /** The plan id or the pack id. */
  @Column({ type: "text" })
  item: string;

  @Column({ type: "text", default: "open" })
  status: "open" | "completed";

  @Column({ name: "checkout_url", type: "text", nullable: true })
  checkoutUrl: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @Column({ name: "expires_at", type: "timestamptz" })
  expiresAt: Date;

  @Column({ name: "completed_at", type: "timestamptz", nullable: true })
  completedAt: Date | null;
}
