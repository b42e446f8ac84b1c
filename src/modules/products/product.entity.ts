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

/** A product of an account: one normalized URL, scored with the product framework over time. */
@Entity({ name: "products" })
@Index("IDX_products_account_url", ["accountId", "url"], { unique: true })
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

  /** Millisecond precision: keyset cursors carry it exactly. */
  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;
}
