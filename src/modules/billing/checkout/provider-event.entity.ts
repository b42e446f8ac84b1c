import { Column, CreateDateColumn, Entity, PrimaryColumn } from "typeorm";

/**
 * A provider webhook event already applied. Its id is inserted in the same
 * transaction as its effect, so a redelivered or replayed event changes nothing.
 */
@Entity({ name: "provider_events" })
export class ProviderEvent {
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_provider_events" })
  provider: string;

  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_provider_events" })
  id: string;

  @Column({ type: "text" })
  type: string;

  @CreateDateColumn({ name: "received_at", type: "timestamptz" })
  receivedAt: Date;
}
