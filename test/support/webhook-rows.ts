import type { DataSource } from "typeorm";
import { Transactions } from "../../src/db/transaction.js";
import type { DomainEvents } from "../../src/events/domain-events.js";
import { WebhookDispatcher } from "../../src/modules/webhooks/webhook-dispatcher.js";
import { WebhookHealthRepository } from "../../src/modules/webhooks/webhook-health.repository.js";
import { WebhookLeaseRepository } from "../../src/modules/webhooks/webhook-lease.repository.js";
import { newWebhookSecret } from "../../src/modules/webhooks/webhooks.service.js";

/** An account row, straight into the database: the dispatcher tests need no sign-in. */
export async function insertAccount(dataSource: DataSource, name: string): Promise<string> {
  const [row] = (await dataSource.query(
    `INSERT INTO accounts (name, billing_cycle_anchor) VALUES ($1, now()) RETURNING id`,
    [name],
  )) as Array<{ id: string }>;
  return row!.id;
}

/** A webhook of the account to `url`, subscribed to subscription.changed, with a fresh secret. */
export async function insertWebhook(dataSource: DataSource, accountId: string, url: string): Promise<string> {
  const [row] = (await dataSource.query(
    `INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id`,
    [accountId, url, ["subscription.changed"], newWebhookSecret()],
  )) as Array<{ id: string }>;
  return row!.id;
}

/** A dispatcher over its real repositories on this data source, wired as src/worker.ts wires it. */
export function newDispatcher(dataSource: DataSource, ...rest: DispatcherArgs): WebhookDispatcher {
  return new WebhookDispatcher(
    new WebhookLeaseRepository(dataSource),
    new WebhookHealthRepository(dataSource),
    new Transactions(dataSource),
    ...rest,
  );
}

type DispatcherArgs =
  ConstructorParameters<typeof WebhookDispatcher> extends [unknown, unknown, unknown, ...infer Rest] ? Rest : never;

/** n subscription.changed events of the account, each committed on its own as a checkout would: one delivery per webhook of the account each. */
export async function recordSubscriptionEvents(
  dataSource: DataSource,
  events: DomainEvents,
  accountId: string,
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    await dataSource.transaction((manager) =>
      events.record(manager, "subscription.changed", {
        accountId,
        previousPlan: "free",
        plan: "pro",
        reason: "checkout",
        checkoutSessionId: `chk_${i}`,
      }),
    );
  }
}
