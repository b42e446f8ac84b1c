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

/**
 * A seat offered to an e-mail address. A pending invitation holds its seat; the
 * first sign-in of that (verified) address joins the account instead of creating one.
 */
@Entity({ name: "invitations" })
@Index("IDX_invitations_pending", ["accountId", "email"], { unique: true, where: `"accepted_at" IS NULL` })
@Index("IDX_invitations_email", ["email"], { where: `"accepted_at" IS NULL` })
export class Invitation {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_invitations" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_invitations_account" })
  account?: Relation<Account>;

  /** Lower-cased. */
  @Column({ type: "text" })
  email: string;

  @Column({ name: "invited_by", type: "uuid", nullable: true })
  invitedBy: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @Column({ name: "accepted_at", type: "timestamptz", nullable: true })
  acceptedAt: Date | null;
}
