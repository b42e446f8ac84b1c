import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from "typeorm";
import { Account } from "../accounts/account.entity.js";
import { DomainEventRecord } from "../../events/domain-event.entity.js";

/** The event kinds a webhook may subscribe to (the contract's Events). */
export const webhookEventKinds = [
  "score.completed",
  "subscription.changed",
  "score.changed",
  "monitor.skipped",
] as const;
export type WebhookEventKind = (typeof webhookEventKinds)[number];

/**
 * A webhook subscription: an HTTPS destination of the account and the event kinds
 * it wants. Its signing secret is stored to sign deliveries and never read back
 * out through the API after creation.
 */
@Entity({ name: "webhooks" })
@Index("IDX_webhooks_account", ["accountId", "createdAt", "id"])
export class Webhook {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_webhooks" })
  id: string;

  @Column({ name: "account_id", type: "uuid" })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: "CASCADE" })
  @JoinColumn({ name: "account_id", foreignKeyConstraintName: "FK_webhooks_account" })
  account?: Relation<Account>;

  @Column({ type: "text" })
  url: string;

  @Column({ type: "text", array: true })
  events: string[];

  @Column({ type: "boolean", default: true })
  enabled: boolean;

  /** `whsec_` + base64 of 32 random bytes. */
  @Column({ type: "text" })
  secret: string;

  /** After a rotation the old secret keeps signing beside the new one until `previousSecretExpiresAt`. */
  @Column({ name: "previous_secret", type: "text", nullable: true })
  previousSecret: string | null;

  @Column({ name: "previous_secret_expires_at", type: "timestamptz", nullable: true })
  previousSecretExpiresAt: Date | null;

  /** Since when every delivery has failed (null after a success): 5 days of it disables the webhook. */
  @Column({ name: "failing_since", type: "timestamptz", nullable: true })
  failingSince: Date | null;

  /**
   * Circuit breaker: deliveries in a row that got no answer at all (timeouts,
   * connection failures). Enough of them open the breaker: nothing is claimed for
   * this webhook until `breakerOpenUntil`, then one probe decides.
   */
  @Column({ name: "breaker_failures", type: "integer", default: 0 })
  breakerFailures: number;

  @Column({ name: "breaker_open_until", type: "timestamptz", nullable: true })
  breakerOpenUntil: Date | null;

  /** Times in a row the breaker opened, with no answer between: each cool-down doubles the last. */
  @Column({ name: "breaker_trips", type: "integer", default: 0 })
  breakerTrips: number;

  /** Why the service disabled it (410 Gone, 5 days of failures); null when enabled or disabled by the customer. */
  @Column({ name: "disabled_reason", type: "text", nullable: true })
  disabledReason: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}

/**
 * `paused`: the webhook was disabled when the delivery was recorded or came due;
 * nothing was sent, and it goes back to `pending` when the webhook is enabled again.
 */
export const deliveryStatuses = ["pending", "delivered", "failed", "paused"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** Attempts a delivery gets before it fails: the first and one per retry delay. */
export const MAX_DELIVERY_ATTEMPTS = 8;

/**
 * One event for one webhook: written in the transaction that records the event,
 * so a committed change always has its deliveries, and claimed by whichever
 * process delivers (`FOR UPDATE SKIP LOCKED` and a fenced lease).
 */
@Entity({ name: "webhook_deliveries" })
@Index("IDX_webhook_deliveries_event_webhook", ["eventId", "webhookId"], { unique: true })
@Index("IDX_webhook_deliveries_pending", ["webhookId", "nextAttemptAt"], { where: `"status" = 'pending'` })
@Index("IDX_webhook_deliveries_leased", ["webhookId"], { where: `"lease_token" IS NOT NULL` })
@Index("IDX_webhook_deliveries_log", ["webhookId", "createdAt", "id"])
export class WebhookDelivery {
  @PrimaryGeneratedColumn("uuid", { primaryKeyConstraintName: "PK_webhook_deliveries" })
  id: string;

  @Column({ name: "event_id", type: "uuid" })
  eventId: string;

  @ManyToOne(() => DomainEventRecord, { onDelete: "CASCADE" })
  @JoinColumn({ name: "event_id", foreignKeyConstraintName: "FK_webhook_deliveries_event" })
  event?: Relation<DomainEventRecord>;

  @Column({ name: "webhook_id", type: "uuid" })
  webhookId: string;

  @ManyToOne(() => Webhook, { onDelete: "CASCADE" })
  @JoinColumn({ name: "webhook_id", foreignKeyConstraintName: "FK_webhook_deliveries_webhook" })
  webhook?: Relation<Webhook>;

  @Column({ name: "event_type", type: "text" })
  eventType: string;

  @Column({ type: "text", default: "pending" })
  status: DeliveryStatus;

  @Column({ type: "integer", default: 0 })
  attempts: number;

  /**
   * No claim sends it once `attempts` has reached this, recorded outcome or not.
   * A replay of a delivery that used them up allows it one more.
   */
  @Column({ name: "attempt_limit", type: "integer", default: MAX_DELIVERY_ATTEMPTS })
  attemptLimit: number;

  @Column({ name: "next_attempt_at", type: "timestamptz", nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: "locked_until", type: "timestamptz", nullable: true })
  lockedUntil: Date | null;

  @Column({ name: "lease_token", type: "uuid", nullable: true })
  leaseToken: string | null;

  @Column({ name: "last_status_code", type: "integer", nullable: true })
  lastStatusCode: number | null;

  @Column({ name: "last_error", type: "text", nullable: true })
  lastError: string | null;

  /** The destination's answer, at most 4 KiB, as text: bytes that are not UTF-8 and NUL become U+FFFD. */
  @Column({ name: "last_response_body", type: "text", nullable: true })
  lastResponseBody: string | null;

  @Column({ name: "delivered_at", type: "timestamptz", nullable: true })
  deliveredAt: Date | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz", precision: 3 })
  createdAt: Date;
}
