import type { Logger } from "pino";
import type { Transaction } from "../db/transaction.js";
import type { PlanId } from "../modules/accounts/account.entity.js";
import { DomainEventRepository } from "./domain-event.repository.js";

/** The payload of each domain event, by its contract name (the webhook event kinds). */
export interface DomainEventPayloads {
  "subscription.changed": {
    readonly accountId: string;
    readonly previousPlan: PlanId;
    readonly plan: PlanId;
    /** What changed it: a completed checkout, or the provider's subscription update or cancellation. */
    readonly reason: "checkout" | "subscription_updated" | "subscription_cancelled";
    readonly checkoutSessionId: string | null;
  };
  "score.completed": {
    readonly accountId: string;
    readonly resultId: string;
    readonly jobId: string;
    readonly url: string;
    readonly totalScore: number;
    readonly stageName: string;
    readonly framework: string;
    /** Absent on events recorded before webhooks shipped. */
    readonly frameworkVersion?: string;
    readonly productId: string | null;
  };
  /**
   * A monitored product's new result moved its total 5 points or more from its
   * previous result, or changed its stage (docs/api.md §13).
   */
  "score.changed": {
    readonly accountId: string;
    readonly productId: string;
    readonly url: string;
    readonly previousResultId: string;
    readonly resultId: string;
    readonly previousTotal: number;
    readonly total: number;
    readonly totalDelta: number;
    readonly previousStage: string;
    readonly stage: string;
    readonly frameworkVersion: string;
  };
  /** A monitored product's scheduled re-score was not started: its account could not pay for it. */
  "monitor.skipped": {
    readonly accountId: string;
    readonly productId: string;
    readonly url: string;
    /** The due time of the skipped run (ISO 8601). */
    readonly dueAt: string;
    /** `credits_exhausted` (plan and pack credits cannot cover a score) or `quota_exceeded` (the plan's monthly scores are used). */
    readonly reason: "credits_exhausted" | "quota_exceeded";
    /** In credits, as usage shows them (a score costs 10). */
    readonly creditsNeeded: number;
    /** Plan credits left this cycle plus pack credits; null when the plan's credits are unlimited. */
    readonly creditsAvailable: number | null;
  };
  /** Sent only to the webhook it was asked for (`POST /api/webhooks/{id}/test`). */
  "webhook.test": {
    readonly accountId: string;
    readonly webhookId: string;
  };
  /** A notice, never delivered: the service disabled a webhook (410 Gone, or 5 days of failures). */
  "webhook.disabled": {
    readonly accountId: string;
    readonly webhookId: string;
    readonly reason: string;
  };
}

/** The kinds a webhook may subscribe to; the others are never fanned out by kind. */
const SUBSCRIBABLE: ReadonlySet<string> = new Set([
  "score.completed",
  "subscription.changed",
  "score.changed",
  "monitor.skipped",
]);

export type DomainEventType = keyof DomainEventPayloads;

export interface DomainEvent<T extends DomainEventType = DomainEventType> {
  readonly id: string;
  readonly type: T;
  readonly accountId: string;
  readonly data: DomainEventPayloads[T];
  readonly occurredAt: Date;
}

type Listener<T extends DomainEventType> = (event: DomainEvent<T>) => void | Promise<void>;

/**
 * Domain events through an outbox: `record` writes the event in the caller's
 * transaction (it exists exactly when the change committed), and `publish` hands the
 * committed events to in-process listeners. A listener's failure is logged and never
 * undoes the change; durable delivery to webhooks reads the outbox table.
 */
export class DomainEvents {
  private readonly listeners = new Map<DomainEventType, Set<Listener<DomainEventType>>>();
  private readonly published = new Set<() => void>();

  constructor(
    private readonly logger: Pick<Logger, "error">,
    private readonly outbox: DomainEventRepository = new DomainEventRepository(),
  ) {}

  on<T extends DomainEventType>(type: T, listener: Listener<T>): () => void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener as Listener<DomainEventType>);
    this.listeners.set(type, set);
    return () => set.delete(listener as Listener<DomainEventType>);
  }

  /**
   * Writes the event in the caller's transaction together with one delivery row per
   * webhook of the account subscribed to its kind (or, for `webhook.test`, the one
   * webhook named), so a committed change always has its deliveries.
   */
  async record<T extends DomainEventType>(
    tx: Transaction,
    type: T,
    data: DomainEventPayloads[T] & { accountId: string },
  ): Promise<DomainEvent<T>> {
    const saved = await this.outbox.append(tx, type, data.accountId, data as unknown as Record<string, unknown>);
    if (SUBSCRIBABLE.has(type)) {
      await this.outbox.addDeliveriesForSubscribers(tx, saved.id, type, data.accountId);
    } else if (type === "webhook.test") {
      await this.outbox.addDeliveryForWebhook(
        tx,
        saved.id,
        type,
        (data as DomainEventPayloads["webhook.test"]).webhookId,
        data.accountId,
      );
    }
    return { id: saved.id, type, accountId: saved.accountId, data, occurredAt: saved.occurredAt };
  }

  /** Hears every published event (the webhook dispatcher wakes on it). */
  onPublished(listener: () => void): () => void {
    this.published.add(listener);
    return () => this.published.delete(listener);
  }

  /** Call after the recording transaction committed. */
  async publish(events: readonly DomainEvent[]): Promise<void> {
    if (events.length > 0) for (const listener of this.published) listener();
    for (const event of events) {
      for (const listener of this.listeners.get(event.type) ?? []) {
        try {
          await listener(event);
        } catch (error) {
          this.logger.error({ err: error, eventId: event.id, type: event.type }, "domain event listener failed");
        }
      }
    }
  }
}
