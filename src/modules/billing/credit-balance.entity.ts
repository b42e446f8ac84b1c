import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn, type Relation } from "typeorm";
import { Account } from "../accounts/account.entity.js";

/**
 * The running totals of one account's billing cycle, kept in the same transaction
 * as every ledger entry of that cycle so that reading a balance never sums entries.
 * The ledger (`credit_entries`) stays the truth: these figures are its sums, and a
 * test recomputes them from it. Amounts in tenths of a credit.
 */
@Entity({ name: "credit_balances" })
export class CreditBalance {
  @PrimaryColumn({ name: "account_id", type: "uuid", primaryKeyConstraintName: "PK_credit_balances" })
  accountId: string;

  @PrimaryColumn({ name: "cycle_start", type: "timestamptz", primaryKeyConstraintName: "PK_credit_balances" })
  cycleStart: Date;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_credit_balances_account" })
  account: Relation<Account>;

  /** Plan credits granted to this cycle (a mid-cycle upgrade tops it up). */
  @Column({ name: "plan_granted", type: "bigint", default: 0 })
  planGranted: string;

  /** Granted minus spent plus refunded; negative only on plans without a credit limit. */
  @Column({ name: "plan_balance", type: "bigint", default: 0 })
  planBalance: string;

  @Column({ name: "plan_used", type: "bigint", default: 0 })
  planUsed: string;

  /** Spends minus refunds of each action in this cycle: what the monthly ceilings count. */
  @Column({ name: "score_count", type: "integer", default: 0 })
  scoreCount: number;

  @Column({ name: "chat_count", type: "integer", default: 0 })
  chatCount: number;

  @Column({ name: "api_call_count", type: "integer", default: 0 })
  apiCallCount: number;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}

/** Pack credits of an account: they never expire, so one row per account, not per cycle. */
@Entity({ name: "credit_packs" })
@Check("CHK_credit_packs_balance", `"balance_tenths" >= 0`)
export class CreditPackBalance {
  @PrimaryColumn({ name: "account_id", type: "uuid", primaryKeyConstraintName: "PK_credit_packs" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_credit_packs_account" })
  account: Relation<Account>;

  @Column({ name: "balance_tenths", type: "bigint", default: 0 })
  balanceTenths: string;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
