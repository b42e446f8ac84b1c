import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from "typeorm";

/**
 * An `Idempotency-Key` of a request that creates something (a scoring job, an API
 * key, a webhook, a checkout, a chat reply, an invitation), kept 24 hours: the same
 * key with the same body replays the first answer; with another body or another
 * operation it is a conflict. The key is kept as a digest, never as sent.
 */
@Entity({ name: "idempotency_keys" })
@Index("IDX_idempotency_keys_created", ["createdAt"])
export class IdempotencyKey {
  /** The account id, or `ip:<network>` for anonymous callers. */
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_idempotency_keys" })
  scope: string;

  /** `sha256:` and the hex SHA-256 of the key as sent (`idempotencyKeyDigest`). */
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_idempotency_keys" })
  key: string;

  /**
   * What the key was used for: a score kind (`full`, `quick`, `product`) or one of
   * `idempotentOperations` (`api_key.create`, `webhook.create`, …).
   */
  @Column({ type: "text" })
  operation: string;

  /** SHA-256 of the canonical request (the operation's own fields). */
  @Column({ name: "request_hash", type: "text" })
  requestHash: string;

  /**
   * What the first request made (a job, key, webhook, checkout session, chat reply or
   * invitation id); null while that request is still running.
   */
  @Column({ name: "resource_id", type: "text", nullable: true })
  resourceId: string | null;

  /**
   * An anonymous job's claim token, sealed under the key as sent (`sealClaimToken`):
   * a replay that brings the key opens it, in any process; the row alone does not.
   */
  @Column({ name: "sealed_claim_token", type: "text", nullable: true })
  sealedClaimToken: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
