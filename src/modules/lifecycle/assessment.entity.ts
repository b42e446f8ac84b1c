import {
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
import { Product } from "../products/product.entity.js";
import type { LifecycleStatus } from "./stages.js";

export interface StageProgress {
  readonly stageId: string;
  readonly completed: number;
  readonly inProgress: number;
  readonly notStarted: number;
  readonly percent: number;
}

export interface NextTask {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: LifecycleStatus;
  /** The weakest of the task's dimensions in the product's latest score; null without a score. */
  readonly weakestDimension: { readonly dimensionId: string; readonly score: number } | null;
}

/** One self-assessment of a product: every new one is a new row (its history). */
@Entity({ name: "lifecycle_assessments" })
@Index("IDX_lifecycle_assessments_product", ["productId", "createdAt", "id"])
export class LifecycleAssessment {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_lifecycle_assessments" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_lifecycle_assessments_account" })
  account?: Relation<Account>;

  @Column({ name: "product_id", type: "uuid" })
  productId: string;

  @ManyToOne(() => Product, { onDelete: "CASCADE" })
  @JoinColumn({ name: "product_id", foreignKeyConstraintName: "FK_lifecycle_assessments_product" })
  product?: Relation<Product>;

  /** Task id → status, as answered (tasks left out count as not started). */
  @Column({ type: "jsonb" })
  answers: Record<string, LifecycleStatus>;

  @Column({ name: "current_stage", type: "text" })
  currentStage: string;

  @Column({ type: "jsonb" })
  stages: StageProgress[];

  @Column({ name: "next_tasks", type: "jsonb" })
  nextTasks: NextTask[];

  /** The lifecycle definition version the answers were read against. */
  @Column({ name: "lifecycle_version", type: "text" })
  lifecycleVersion: string;

  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;
}
