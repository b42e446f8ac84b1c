import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from "typeorm";

/**
 * An `Idempotency-Key` of a scoring request, kept 24 hours: the same key with the
 * same body replays the first job's answer; with another body it is a conflict.
 * The key is kept as a digest, never as sent.
 */
@Entity({ name: "idempotency_keys" })
@Index("IDX_idempotency_keys_created", ["createdAt"])
export class IdempotencyKey {
  /** The account id, or `ip:<address>` for anonymous callers. */
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_idempotency_keys" })
  scope: string;

  /** `sha256:` and the hex SHA-256 of the key as sent (`idempotencyKeyDigest`). */
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_idempotency_keys" })
  key: string;

  @Column({ type: "text" })
  operation: string;

  /** SHA-256 of the canonical request (operation, url, context). */
  @Column({ name: "request_hash", type: "text" })
  requestHash: string;

  @Column({ name: "job_id", type: "uuid" })
  jobId: string;

  /**
   * An anonymous job's claim token, sealed under the key as sent (`sealClaimToken`):
   * a replay that brings the key opens it, in any process; the row alone does not.
   */
  @Column({ name: "sealed_claim_token", type: "text", nullable: true })
  sealedClaimToken: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
