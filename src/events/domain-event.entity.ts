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
import { Account } from "../modules/accounts/account.entity.js";

/**
 * The outbox of domain events: written in the transaction of the change it
 * describes, so an event exists exactly when its change committed, together with
 * its webhook deliveries; in-process listeners hear it after commit. Kept 30 days
 * once nothing waits on it.
 */
@Entity({ name: "domain_events" })
@Index("IDX_domain_events_account", ["accountId", "occurredAt"])
@Index("IDX_domain_events_occurred", ["occurredAt"])
export class DomainEventRecord {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_domain_events" })
  id: string;

  @Column({ type: "text" })
  type: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_domain_events_account" })
  account?: Relation<Account>;

  @Column({ type: "jsonb" })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: "occurred_at", type: "timestamptz" })
  occurredAt: Date;
}
