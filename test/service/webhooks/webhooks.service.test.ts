import { pino } from "pino";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WEBHOOKS_PER_ACCOUNT } from "../../../src/limits.js";
import { Transactions } from "../../../src/db/transaction.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import type { MeteredCaller } from "../../../src/modules/accounts/viewer.js";
import { RateLimiter } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import { MemorySlidingWindowStore } from "../../../src/modules/billing/rate-limit/sliding-window.js";
import { AddressGuard } from "../../../src/modules/crawl/address-guard.js";
import { WebhookDeliveryRepository } from "../../../src/modules/webhooks/webhook-delivery.repository.js";
import { WebhookRepository } from "../../../src/modules/webhooks/webhook.repository.js";
import { WebhooksService } from "../../../src/modules/webhooks/webhooks.service.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { insertAccount } from "../../support/webhook-rows.js";

/**
 * The webhooks service over its real repositories (no HTTP, no app): the cap per
 * account holds under concurrent creations, another account's webhook is not
 * found, a rotation keeps the old secret beside the new one, and test events are
 * limited per account with a refusal recording nothing.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let service: WebhooksService;
const silent = pino({ level: "silent" });

beforeAll(async () => {
  database = await openClonedDatabase(12);
  dataSource = database.dataSource;
  service = new WebhooksService(
    new WebhookRepository(dataSource),
    new WebhookDeliveryRepository(dataSource),
    new Transactions(dataSource),
    new AddressGuard({ allowlist: ["127.0.0.1/32"] }),
    new DomainEvents(silent),
    new RateLimiter(new MemorySlidingWindowStore()),
  );
});
afterAll(async () => {
  await database?.close();
});

const hook = (path: string) => ({ url: `https://127.0.0.1:9${path}` });

function caller(accountId: string): MeteredCaller {
  return {
    viewer: { kind: "member", accountId, userId: "00000000-0000-4000-8000-000000000000", via: "session" },
    setHeaders: () => undefined,
    apiCallCharged: () => undefined,
    chargeApiCall: async () => undefined,
  };
}

describe("WebhooksService", () => {
  it(`creates at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account, even when many creations race; another account is unaffected`, async () => {
    const busy = await insertAccount(dataSource, "busy");
    const other = await insertAccount(dataSource, "other");
    for (let i = 0; i < 5; i += 1) await service.create(busy, hook(`/seed/${i}`));

    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => service.create(busy, hook(`/race/${i}`))),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT - 5);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "PLAN_LIMIT_REACHED" });
    }
    expect(await service.list(busy)).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
    await expect(service.create(busy, hook("/one-more"))).rejects.toMatchObject({ code: "PLAN_LIMIT_REACHED" });

    const created = await service.create(other, hook("/other"));
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.webhook).not.toHaveProperty("secret");
    expect(await service.list(other)).toHaveLength(1);
  });

  it("answers NOT_FOUND for another account's webhook and for an id that is not one, and changes nothing", async () => {
    const owner = await insertAccount(dataSource, "owner");
    const stranger = await insertAccount(dataSource, "stranger");
    const { webhook } = await service.create(owner, hook("/mine"));

    await expect(service.get(stranger, webhook.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.update(stranger, webhook.id, { enabled: false })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.remove(stranger, webhook.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.rotateSecret(stranger, webhook.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.get(owner, "not-a-uuid")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await service.get(owner, webhook.id)).toMatchObject({ id: webhook.id, enabled: true });
  });

  it("rotates a secret keeping the old one signing beside it, and a new destination starts with a closed breaker", async () => {
    const accountId = await insertAccount(dataSource, "rotating");
    const { webhook, secret } = await service.create(accountId, hook("/rotate"));
    await dataSource.query(
      `UPDATE webhooks SET breaker_failures = 3, breaker_trips = 1, breaker_open_until = now() + interval '1 minute' WHERE id = $1`,
      [webhook.id],
    );

    const rotated = await service.rotateSecret(accountId, webhook.id);
    expect(rotated.secret).not.toBe(secret);
    await service.update(accountId, webhook.id, { url: "https://127.0.0.1:9/moved" });

    const [row] = (await dataSource.query(`SELECT * FROM webhooks WHERE id = $1`, [webhook.id])) as Array<
      Record<string, unknown>
    >;
    expect(row).toMatchObject({
      secret: rotated.secret,
      previous_secret: secret,
      url: "https://127.0.0.1:9/moved",
      breaker_failures: 0,
      breaker_trips: 0,
      breaker_open_until: null,
    });
    expect((row!.previous_secret_expires_at as Date).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it("limits test events per account: past the window's 30 a test event is refused and records no delivery", async () => {
    const accountId = await insertAccount(dataSource, "testing");
    const { webhook } = await service.create(accountId, hook("/test"));
    for (let i = 0; i < 30; i += 1)
      expect(await service.sendTest(caller(accountId), webhook.id)).toMatchObject({
        webhookId: webhook.id,
        eventType: "webhook.test",
        status: "pending",
      });

    await expect(service.sendTest(caller(accountId), webhook.id)).rejects.toMatchObject({
      code: "SCORING_RATE_LIMITED",
    });
    const page = await service.deliveries(accountId, webhook.id, 100, undefined);
    expect(page.deliveries).toHaveLength(30);
  });
});
