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
import type { JobStatus, ScoreProgress } from "./score-progress.js";

export const scoreKinds = ["score", "quick", "product"] as const;
/** `POST /api/score` (full, maturity), `/quick` (quick, maturity), `/product` (full, product framework). */
export type ScoreKind = (typeof scoreKinds)[number];

/** A scoring job: the stored truth of its status; queues only carry its id. */
@Entity({ name: "score_jobs" })
@Check("CHK_score_jobs_kind", `"kind" IN ('score', 'quick', 'product')`)
@Check("CHK_score_jobs_status", `"status" IN ('queued', 'crawling', 'scoring', 'completed', 'failed')`)
@Index("IDX_score_jobs_runnable", ["createdAt"], { where: `"status" IN ('queued', 'crawling', 'scoring')` })
@Index("IDX_score_jobs_fair", ["fairRank", "createdAt"], { where: `"status" IN ('queued', 'crawling', 'scoring')` })
@Index("IDX_score_jobs_account_active", ["accountId"], { where: `"status" IN ('queued', 'crawling', 'scoring')` })
@Index("IDX_score_jobs_product_active", ["productId"], { where: `"status" IN ('queued', 'crawling', 'scoring')` })
@Index("IDX_score_jobs_requester_active", ["requesterIp"], {
  where: `"status" IN ('queued', 'crawling', 'scoring') AND "account_id" IS NULL`,
})
export class ScoreJob {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_score_jobs" })
  id: string;

  /** Null for anonymous jobs. */
  @Column({ name: "account_id", type: "uuid", nullable: true })
  accountId: string | null;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_score_jobs_account" })
  account?: Relation<Account>;

  @Column({ name: "user_id", type: "uuid", nullable: true })
  userId: string | null;

  @Column({ name: "api_key_id", type: "uuid", nullable: true })
  apiKeyId: string | null;

  /** Anonymous jobs: the requester's network, its address or IPv6 /64 (who may follow its progress). */
  @Column({ name: "requester_ip", type: "text", nullable: true })
  requesterIp: string | null;

  /** The owner's unfinished jobs when this one was queued: workers take the lowest first (a fair queue across accounts). */
  @Column({ name: "fair_rank", type: "integer", default: 0 })
  fairRank: number;

  /** Anonymous jobs: SHA-256 of the one-time claim token, copied onto the held result. */
  @Column({ name: "claim_token_hash", type: "text", nullable: true })
  claimTokenHash: string | null;

  @Column({ type: "text" })
  kind: ScoreKind;

  @Column({ type: "text" })
  url: string;

  @Column({ type: "text", nullable: true })
  context: string | null;

  @Column({ name: "product_id", type: "uuid", nullable: true })
  productId: string | null;

  @Column({ type: "text", default: "queued" })
  status: JobStatus;

  /** The latest progress step, so a late subscriber starts from where the job is. */
  @Column({ type: "jsonb", nullable: true })
  progress: ScoreProgress | null;

  /** Runs started; a job whose worker died is retried while attempts ≤ 3 (at most twice). */
  @Column({ type: "integer", default: 0 })
  attempts: number;

  /** A worker's lease: past it, the worker is presumed dead and another may take the job. */
  @Column({ name: "locked_until", type: "timestamptz", nullable: true })
  lockedUntil: Date | null;

  /** The current claim's fencing token: a worker's writes count only while it still holds it. */
  @Column({ name: "lease_token", type: "uuid", nullable: true })
  leaseToken: string | null;

  @Column({ name: "result_id", type: "uuid", nullable: true })
  resultId: string | null;

  @Column({ name: "error_code", type: "text", nullable: true })
  errorCode: string | null;

  @Column({ name: "error_message", type: "text", nullable: true })
  errorMessage: string | null;

  /** What the caller can do about the failure; null: the catalogue's advice for `errorCode`. */
  @Column({ name: "error_action", type: "text", nullable: true })
  errorAction: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
