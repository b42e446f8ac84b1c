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
import { Account } from "../account.entity.js";
import type { ApiKeyMode } from "./api-key-secret.js";

/** A programmatic credential of an account. Only a hash of the secret is kept. */
@Entity({ name: "api_keys" })
@Check("CHK_api_keys_mode", `"mode" IN ('live', 'test')`)
export class ApiKey {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_api_keys" })
  id: string;

  @Index("IDX_api_keys_account")
  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_api_keys_account" })
  account: Relation<Account>;

  @Column({ type: "text" })
  name: string;

  /** The first characters of the secret, shown in lists so people can tell keys apart. */
  @Column({ type: "text" })
  prefix: string;

  /** SHA-256 of the whole secret, hex: the secret itself is never stored. */
  @Index("IDX_api_keys_secret_hash", { unique: true })
  @Column({ name: "secret_hash", type: "text" })
  secretHash: string;

  /** live: Business/Enterprise, works everywhere; test: any plan, works only outside production (docs/api.md §14). */
  @Column({ type: "text", default: "live" })
  mode: ApiKeyMode;

  @Column({ name: "created_by", type: "uuid", nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @Column({ name: "last_used_at", type: "timestamptz", nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: "revoked_at", type: "timestamptz", nullable: true })
  revokedAt: Date | null;
}
