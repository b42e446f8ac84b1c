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

export const monitorIntervals = ["weekly", "monthly"] as const;
export type MonitorInterval = (typeof monitorIntervals)[number];

/** A product of an account: one normalized URL, scored with the product framework over time. */
@Entity({ name: "products" })
@Index("IDX_products_account_url", ["accountId", "url"], { unique: true })
@Index("IDX_products_monitor_due", ["monitorNextRunAt"], { where: `"monitor_interval" IS NOT NULL` })
@Check("CHK_products_monitor_interval", `"monitor_interval" IN ('weekly', 'monthly')`)
@Check("CHK_products_monitor_schedule", `("monitor_interval" IS NULL) = ("monitor_next_run_at" IS NULL)`)
export class Product {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_products" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_products_account" })
  account?: Relation<Account>;

  /** The detected company name of its latest result (the host name until then). */
  @Column({ type: "text" })
  name: string;

  /** Normalized (scheme, host, path without trailing slash): one product per address. */
  @Column({ type: "text" })
  url: string;

  /** Re-scored on this schedule (docs/api.md §13); null: not monitored. */
  @Column({ name: "monitor_interval", type: "text", nullable: true })
  monitorInterval: MonitorInterval | null;

  /** When the next scheduled re-score is due (set exactly when monitored); schedulers claim rows by it. */
  @Column({ name: "monitor_next_run_at", type: "timestamptz", precision: 3, nullable: true })
  monitorNextRunAt: Date | null;

  /** Whether `GET /api/products/{id}/badge.svg` answers anyone (the latest result's badge) or only 404. */
  @Column({ name: "public_badge", type: "boolean", default: false })
  publicBadge: boolean;

  /** Millisecond precision: keyset cursors carry it exactly. */
  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;
}
