import { randomBytes } from "node:crypto";
import { AppError } from "../../errors.js";
import type { AlsoInTransaction, Transaction, Transactions } from "../../db/transaction.js";
import { isUuid } from "../../db/uuid.js";
import type { DomainEvents } from "../../events/domain-events.js";
import { requireMember, type MeteredCaller } from "../accounts/viewer.js";
import { accountSubject, type RateLimiter } from "../billing/rate-limit/rate-limiter.js";
import { AddressGuard, RefusedAddressError } from "../crawl/address-guard.js";
import { pageLimit } from "../../db/keyset-page.js";
import type { WebhookDeliveryRepository } from "./webhook-delivery.repository.js";
import { webhookEventKinds, type Webhook, type WebhookDelivery, type WebhookEventKind } from "./webhook.entity.js";
import { throwWithoutSecrets, type WebhookRepository } from "./webhook.repository.js";

import { MAX_URL_LENGTH as MAX_WEBHOOK_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT } from "../../limits.js";
/** After a rotation the old secret keeps signing beside the new one this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** What the API shows of a webhook: never its secret. */
export interface WebhookView {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly events: string[];
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly createdAt: Date;
}

export interface WebhookChanges {
  readonly url?: unknown;
  readonly events?: unknown;
  readonly enabled?: unknown;
}

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * Webhook subscriptions of an account (docs/api.md §7): HTTPS destinations that do not
 * resolve to private, loopback or link-local addresses (the crawler's address guard),
 * at most 10 per account, the secret shown once. Another account's webhook is 404.
 */
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly webhookDeliveries: WebhookDeliveryRepository,
    private readonly transactions: Transactions,
    private readonly guard: AddressGuard,
    private readonly events: DomainEvents,
    /** Test events and replays: each makes the service send a request, so they are limited per account. */
    private readonly limiter: RateLimiter,
    private readonly wake: () => void = () => undefined,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(
    accountId: string,
    input: { readonly url?: unknown; readonly events?: unknown },
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<{ webhook: WebhookView; secret: string }> {
    const url = await this.validUrl(input.url);
    const events = validEvents(input.events ?? ["score.completed"]);
    const secret = newWebhookSecret();
    const webhook = await this.transactions
      .run(async (tx) => {
        // Serializes creations of one account, so two at once cannot pass the limit.
        await this.webhooks.lockAccountForCreation(tx, accountId);
        const count = await this.webhooks.countOfAccount(tx, accountId);
        if (count >= MAX_WEBHOOKS_PER_ACCOUNT) {
          throw new AppError(
            "PLAN_LIMIT_REACHED",
            `An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
          );
        }
        const created = await this.webhooks.insert(tx, { accountId, url, events, enabled: true, secret });
        await alsoInTransaction?.(tx, created.id);
        return created;
      })
      .catch(throwWithoutSecrets);
    return { webhook: view(webhook), secret };
  }

  /**
   * The webhook an idempotent creation made, for its replay, with its current signing
   * secret: the secret is stored to sign deliveries anyway, and anyone holding the
   * account's credentials could rotate it to read a new one, so a replay reveals
   * nothing new; without it a caller that lost the first answer could not verify.
   */
  async created(accountId: string, id: string): Promise<{ webhook: WebhookView; secret: string }> {
    const webhook = isUuid(id) ? await this.webhooks.findOfAccount(accountId, id) : null;
    if (!webhook) throw new AppError("NOT_FOUND", "The webhook this Idempotency-Key created has been deleted.");
    return { webhook: view(webhook), secret: webhook.secret };
  }

  async list(accountId: string): Promise<WebhookView[]> {
    const rows = await this.webhooks.listOfAccount(accountId, MAX_WEBHOOKS_PER_ACCOUNT);
    return rows.map(view);
  }

  async get(accountId: string, id: string): Promise<WebhookView> {
    return view(await this.find(accountId, id));
  }

  async update(accountId: string, id: string, changes: WebhookChanges): Promise<WebhookView> {
    const url = changes.url === undefined ? undefined : await this.validUrl(changes.url);
    const events = changes.events === undefined ? undefined : validEvents(changes.events);
    if (changes.enabled !== undefined && typeof changes.enabled !== "boolean")
      throw new AppError("VALIDATION_FAILED", "enabled: must be true or false");
    let resumed = false;
    const updated = await this.transactions.run(async (tx) => {
      const webhook = await this.lock(tx, accountId, id);
      // A new destination starts with a closed circuit breaker: the old one's silence says nothing of it.
      if (url !== undefined && url !== webhook.url)
        Object.assign(webhook, { url, breakerFailures: 0, breakerOpenUntil: null, breakerTrips: 0 });
      if (events !== undefined) webhook.events = events;
      if (changes.enabled !== undefined) {
        if (changes.enabled && !webhook.enabled) {
          // Turned back on by the customer: a fresh start for the failure clock, and what waited while it was off is sent.
          Object.assign(webhook, { disabledReason: null, failingSince: null });
          await this.webhookDeliveries.resumePaused(tx, webhook.id);
          resumed = true;
        }
        webhook.enabled = changes.enabled as boolean;
      }
      return view(await this.webhooks.save(tx, webhook));
    });
    if (resumed) this.wake();
    return updated;
  }

  async remove(accountId: string, id: string): Promise<WebhookView> {
    return this.transactions.run(async (tx) => {
      const webhook = await this.lock(tx, accountId, id);
      await this.webhooks.delete(tx, webhook.id);
      return view(webhook);
    });
  }

  /** A new secret; the old one keeps signing beside it for 24 hours. */
  async rotateSecret(accountId: string, id: string): Promise<{ webhook: WebhookView; secret: string }> {
    const secret = newWebhookSecret();
    return this.transactions
      .run(async (tx) => {
        const webhook = await this.lock(tx, accountId, id);
        Object.assign(webhook, {
          previousSecret: webhook.secret,
          previousSecretExpiresAt: new Date(this.clock().getTime() + ROTATION_OVERLAP_MS),
          secret,
        });
        return { webhook: view(await this.webhooks.save(tx, webhook)), secret };
      })
      .catch(throwWithoutSecrets);
  }

  /** Sends a `webhook.test` event to this webhook alone (paused while it is disabled); answers its delivery. */
  async sendTest(caller: MeteredCaller, id: string): Promise<WebhookDelivery> {
    const { accountId } = requireMember(caller.viewer);
    const webhook = await this.find(accountId, id);
    return this.metered(caller, async (tx) => {
      const event = await this.events.record(tx, "webhook.test", { accountId, webhookId: webhook.id });
      return this.webhookDeliveries.ofEvent(tx, event.id, webhook.id);
    });
  }

  async deliveries(
    accountId: string,
    id: string,
    limit: number | null | undefined,
    cursor: string | undefined,
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
    const webhook = await this.find(accountId, id);
    const page = await this.webhookDeliveries.pageOfWebhook(webhook.id, pageLimit(limit), cursor);
    return { deliveries: page.rows, nextCursor: page.nextCursor };
  }

  /**
   * Replays one delivery now, keeping its attempt count and webhook-id: a delivered,
   * failed or paused one is due again (paused while the webhook is disabled), a
   * pending one is moved forward. A delivery being sent right now is refused, so a
   * receiver never gets overlapping copies. One that used up its attempts gets one more.
   */
  async retryDelivery(caller: MeteredCaller, id: string, deliveryId: string): Promise<WebhookDelivery> {
    const { accountId } = requireMember(caller.viewer);
    const webhook = await this.find(accountId, id);
    const delivery = isUuid(deliveryId) ? await this.webhookDeliveries.findOfWebhook(webhook.id, deliveryId) : null;
    if (!delivery) throw new AppError("NOT_FOUND", "No such delivery.");
    // Checked before the rate limit too, so a refused replay spends no slot.
    if (delivery.leaseToken !== null && !(delivery.lockedUntil && delivery.lockedUntil < this.clock()))
      throw inProgress();
    return this.metered(caller, async (tx) => {
      // Locked, so an enabling at the same time either comes first or finds this delivery paused and resumes it.
      const { enabled } = await this.lock(tx, accountId, id);
      const replayed = await this.webhookDeliveries.replay(tx, delivery.id, webhook.id, enabled ? "pending" : "paused");
      // It existed a moment ago: a dispatcher claimed it since.
      if (!replayed) throw inProgress();
      return this.webhookDeliveries.get(tx, delivery.id);
    });
  }

  /**
   * A test event or replay: limited per account (a refusal costs nothing), then the
   * work and an API key's API call in one transaction, then the dispatcher is woken.
   */
  private async metered(
    caller: MeteredCaller,
    work: (tx: Transaction) => Promise<WebhookDelivery>,
  ): Promise<WebhookDelivery> {
    const { accountId } = requireMember(caller.viewer);
    const decision = await this.limiter.check("webhook", accountSubject(accountId));
    caller.setHeaders(decision.headers);
    if (!decision.allowed) throw decision.toError();
    const delivery = await this.transactions.run(async (tx) => {
      await caller.chargeApiCall(tx);
      return work(tx);
    });
    caller.apiCallCharged();
    this.wake();
    return delivery;
  }

  /** The account's webhook; another account's is NOT_FOUND. */
  private async find(accountId: string, id: string): Promise<Webhook> {
    return found(isUuid(id) ? await this.webhooks.findOfAccount(accountId, id) : null);
  }

  /** As `find`, its row locked until `tx` ends. */
  private async lock(tx: Transaction, accountId: string, id: string): Promise<Webhook> {
    return found(isUuid(id) ? await this.webhooks.lockOfAccount(tx, accountId, id) : null);
  }

  /** HTTPS, at most 2,048 characters, and a destination the address guard lets through (resolved now; again at every delivery). */
  private async validUrl(value: unknown): Promise<string> {
    if (typeof value !== "string" || value.trim() === "") throw new AppError("VALIDATION_FAILED", "url: is required");
    if (value.length > MAX_WEBHOOK_URL_LENGTH)
      throw new AppError("VALIDATION_FAILED", `url: must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      throw new AppError("VALIDATION_FAILED", "url: is not a valid URL");
    }
    if (url.protocol !== "https:") throw new AppError("VALIDATION_FAILED", "url: must be an https:// address");
    try {
      this.guard.checkUrl(url);
      await this.guard.resolve(url.hostname);
    } catch (error) {
      if (error instanceof RefusedAddressError) throw new AppError("VALIDATION_FAILED", `url: ${error.message}`);
      throw new AppError("VALIDATION_FAILED", "url: the host could not be resolved");
    }
    url.hash = "";
    return url.href;
  }
}

const inProgress = () =>
  new AppError("DELIVERY_IN_PROGRESS", "This delivery is being sent right now; replay it once its attempt has ended.");

function found(webhook: Webhook | null): Webhook {
  if (!webhook) throw new AppError("NOT_FOUND", "No such webhook.");
  return webhook;
}

function validEvents(value: unknown): WebhookEventKind[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new AppError("VALIDATION_FAILED", `events: must be a non-empty list of ${webhookEventKinds.join(", ")}`);
  const kinds = new Set<WebhookEventKind>();
  for (const kind of value) {
    if (typeof kind !== "string" || !(webhookEventKinds as readonly string[]).includes(kind)) {
      throw new AppError(
        "VALIDATION_FAILED",
        `events: unknown event kind ${JSON.stringify(String(kind)).slice(0, 80)}; known: ${webhookEventKinds.join(", ")}`,
      );
    }
    kinds.add(kind as WebhookEventKind);
  }
  return [...kinds];
}

const view = (webhook: Webhook): WebhookView => ({
  id: webhook.id,
  accountId: webhook.accountId,
  url: webhook.url,
  events: webhook.events,
  enabled: webhook.enabled,
  disabledReason: webhook.disabledReason,
  createdAt: webhook.createdAt,
});
