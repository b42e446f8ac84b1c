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
import { Account } from "./account.entity.js";

/** A person signed in through the identity provider; a member of exactly one account. */
@Entity({ name: "users" })
export class User {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_users" })
  id: string;

  @Index("IDX_users_account")
  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, (account) => account.members, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_users_account" })
  account: Relation<Account>;

  /** The identity provider's `sub` claim: stable across e-mail changes. */
  @Index("IDX_users_subject", { unique: true })
  @Column({ type: "text" })
  subject: string;

  @Column({ type: "text" })
  email: string;

  @Column({ type: "text", nullable: true })
  name: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
