import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  type Relation,
} from "typeorm";
import { Account } from "../accounts/account.entity.js";
import type { CrawlStats } from "../crawl/crawl.types.js";
import { Product } from "../products/product.entity.js";
import type { Confidence, Evidence, ScorerInfo } from "../scoring/scoring.types.js";

/**
 * A completed score. Immutable once written: share links, ETags and history all rely
 * on a result never changing. Anonymous results are held (no account) with a claim
 * token hash until linked or purged.
 */
@Entity({ name: "score_results" })
@Index("IDX_score_results_history", ["accountId", "createdAt", "id"])
@Index("IDX_score_results_product", ["productId", "createdAt"])
@Index("IDX_score_results_held", ["claimExpiresAt"], { where: `"account_id" IS NULL` })
@Index("IDX_score_results_series", ["accountId", "url", "framework", "createdAt", "id"], {
  where: `"product_id" IS NULL`,
})
export class ScoreResultRecord {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_score_results" })
  id: string;

  @Column({ name: "account_id", type: "uuid", nullable: true })
  accountId: string | null;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_score_results_account" })
  account?: Relation<Account>;

  @Column({ name: "product_id", type: "uuid", nullable: true })
  productId: string | null;

  @ManyToOne(() => Product, { onDelete: "SET NULL" })
  @JoinColumn({ name: "product_id", foreignKeyConstraintName: "FK_score_results_product" })
  product?: Relation<Product>;

  @Index("IDX_score_results_job", { unique: true })
  @Column({ name: "job_id", type: "uuid", nullable: true })
  jobId: string | null;

  @Column({ type: "text" })
  url: string;

  @Column({ name: "company_name", type: "text" })
  companyName: string;

  @Column({ name: "total_score", type: "integer" })
  totalScore: number;

  @Column({ name: "stage_name", type: "text" })
  stageName: string;

  @Column({ type: "text" })
  framework: string;

  @Column({ name: "framework_version", type: "text" })
  frameworkVersion: string;

  @Column({ type: "text" })
  mode: string;

  @Column({ type: "text", array: true })
  strengths: string[];

  @Column({ type: "text", array: true })
  gaps: string[];

  @Column({ name: "cross_dimension_notes", type: "text" })
  crossDimensionNotes: string;

  @Column({ name: "anti_patterns", type: "text", array: true })
  antiPatterns: string[];

  @Column({ name: "crawled_pages", type: "text", array: true })
  crawledPages: string[];

  @Column({ name: "crawl_stats", type: "jsonb" })
  crawlStats: CrawlStats;

  @Column({ type: "jsonb" })
  scorer: ScorerInfo;

  @Column({ name: "lifecycle_stage_id", type: "text", nullable: true })
  lifecycleStageId: string | null;

  @Column({ name: "claim_token_hash", type: "text", nullable: true })
  claimTokenHash: string | null;

  @Column({ name: "claim_expires_at", type: "timestamptz", nullable: true })
  claimExpiresAt: Date | null;

  /** Millisecond precision: keyset cursors carry it exactly. */
  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;

  @OneToMany(() => ScoreDimensionRecord, (dimension) => dimension.result)
  dimensions?: Relation<ScoreDimensionRecord[]>;
}

/** One of a result's 27 dimensions. */
@Entity({ name: "score_dimensions" })
export class ScoreDimensionRecord {
  @PrimaryColumn({ name: "result_id", type: "uuid", primaryKeyConstraintName: "PK_score_dimensions" })
  resultId: string;

  @PrimaryColumn({ name: "dimension_id", type: "text", primaryKeyConstraintName: "PK_score_dimensions" })
  dimensionId: string;

  @ManyToOne(() => ScoreResultRecord, (result) => result.dimensions, { onDelete: "CASCADE" })
  @JoinColumn({ name: "result_id", foreignKeyConstraintName: "FK_score_dimensions_result" })
  result?: Relation<ScoreResultRecord>;

  /** The framework's order (pillar, then dimension). */
  @Column({ type: "smallint" })
  position: number;

  @Column({ name: "dimension_name", type: "text" })
  dimensionName: string;

  @Column({ type: "text" })
  pillar: string;

  @Column({ type: "integer" })
  score: number;

  @Column({ name: "stage_name", type: "text" })
  stageName: string;

  @Column({ type: "text" })
  evidence: string;

  @Column({ name: "evidence_items", type: "jsonb" })
  evidenceItems: Evidence[];

  @Column({ type: "text" })
  confidence: Confidence;

  @Column({ type: "text" })
  reasoning: string;
}
