import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
} from "typeorm";
import { Account } from "../accounts/account.entity.js";

export const creditEntryKinds = ["grant", "spend", "pack_purchase", "reset", "refund"] as const;
export type CreditEntryKind = (typeof creditEntryKinds)[number];

export const creditBuckets = ["plan", "pack"] as const;
export type CreditBucket = (typeof creditBuckets)[number];

/**
 * One line of an account's credit ledger. Append-only and the truth: no entry is
 * ever updated or deleted, and the running totals in `credit_balances` and
 * `credit_packs` are kept equal to its sums in the same transaction.
 */
@Entity({ name: "credit_entries" })
@Check("CHK_credit_entries_kind", `"kind" IN ('grant', 'spend', 'pack_purchase', 'reset', 'refund')`)
@Check("CHK_credit_entries_bucket", `"bucket" IN ('plan', 'pack')`)
@Index("IDX_credit_entries_account_cycle", ["accountId", "cycleStart"])
// Pack credits never expire: their balance sums a few rows across all cycles.
@Index("IDX_credit_entries_pack", ["accountId"], { where: `"bucket" = 'pack'` })
// A spend (and its refund) is found by the caller's reference without scanning the cycle.
@Index("IDX_credit_entries_spend_reference", ["accountId", "reference"], { where: `"kind" = 'spend'` })
// A refund references the spend entry it reverses: at most one refund per spend entry.
@Index("IDX_credit_entries_refund", ["reference"], { unique: true, where: `"kind" = 'refund'` })
// Refunds of the last hour, for the hourly bound on refunded chat replies, without scanning the cycle's spends.
@Index("IDX_credit_entries_refund_time", ["accountId", "createdAt"], { where: `"kind" = 'refund'` })
// A checkout completion delivered twice applies its pack once.
@Index("IDX_credit_entries_pack_purchase", ["accountId", "reference"], {
  unique: true,
  where: `"kind" = 'pack_purchase'`,
})
export class CreditEntry {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_credit_entries" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_credit_entries_account" })
  account: Relation<Account>;

  @Column({ type: "text" })
  kind: CreditEntryKind;

  @Column({ type: "text" })
  bucket: CreditBucket;

  /** Signed, in tenths of a credit: grants, purchases and refunds add; spends subtract. */
  @Column({ name: "amount_tenths", type: "integer" })
  amountTenths: number;

  /**
   * What a spend (or its refund) paid for: score, chat, api_call; the pack id of a purchase.
   * Null on a refund that gives credits back but leaves the action counted (a chat reply
   * the model gave but the service could not use): counts are spends minus refunds per action.
   */
  @Column({ type: "text", nullable: true })
  action: string | null;

  /** The caller's id of a spend (a result id) or purchase (a checkout id); a refund holds its spend entry's id. */
  @Column({ type: "text", nullable: true })
  reference: string | null;

  /** Start of the billing cycle the entry belongs to; plan credits count within one cycle. */
  @Column({ name: "cycle_start", type: "timestamptz" })
  cycleStart: Date;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
