import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  type Relation,
} from "typeorm";
import { Account } from "../../accounts/account.entity.js";

/** A list of addresses scored together (docs/api.md §13); its status is read from its jobs. */
@Entity({ name: "score_batches" })
export class ScoreBatch {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_score_batches" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_score_batches_account" })
  account?: Relation<Account>;

  @Column({ type: "text", nullable: true })
  context: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}

/** Why an address of a batch was refused: the error envelope's code and message. */
export interface BatchItemError {
  readonly code: string;
  readonly message: string;
}

/** One address of a batch, in the order sent: a job (its own, or a duplicate's), or the reason it was refused. */
@Entity({ name: "score_batch_items" })
export class ScoreBatchItem {
  @PrimaryColumn({ name: "batch_id", type: "uuid", primaryKeyConstraintName: "PK_score_batch_items" })
  batchId: string;

  @ManyToOne(() => ScoreBatch, { onDelete: "CASCADE" })
  @JoinColumn({ name: "batch_id", foreignKeyConstraintName: "FK_score_batch_items_batch" })
  batch?: Relation<ScoreBatch>;

  /** 0-based, the address's place in the list sent. */
  @PrimaryColumn({ type: "integer", primaryKeyConstraintName: "PK_score_batch_items" })
  position: number;

  /** As sent. */
  @Column({ type: "text" })
  url: string;

  /** After normalization; null when the address could not be read at all. */
  @Column({ name: "normalized_url", type: "text", nullable: true })
  normalizedUrl: string | null;

  /** The job scoring it; a duplicate names the job of the first item with its address. Null: refused. */
  @Column({ name: "job_id", type: "uuid", nullable: true })
  jobId: string | null;

  /** The position of the first item with the same normalized address (this one was not scored again). */
  @Column({ name: "duplicate_of", type: "integer", nullable: true })
  duplicateOf: number | null;

  /** Refused items only. */
  @Column({ type: "jsonb", nullable: true })
  error: BatchItemError | null;
}
