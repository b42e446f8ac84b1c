import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainEvents } from "../../../src/events/domain-events.js";
import { AddressGuard } from "../../../src/modules/crawl/address-guard.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { insertAccount, insertWebhook, newDispatcher } from "../../support/webhook-rows.js";

/**
 * The dispatcher over its real repositories: however deep an account's backlog and
 * however many of its webhooks hang, its claims never hold more than its share of
 * deliveries in flight, nor one webhook more than the webhook's, while another
 * account's deliveries are claimed beside them.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let tarpit: Server;
const sockets = new Set<Socket>();
const silent = pino({ level: "silent" });

beforeAll(async () => {
  database = await openClonedDatabase(6);
  dataSource = database.dataSource;
  // Accepts connections and never answers (no TLS handshake): each delivery holds its lease until its timeouts.
  tarpit = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => tarpit?.close(() => resolve()));
  await database?.close();
});

const url = (path: string) => `https://127.0.0.1:${(tarpit.address() as AddressInfo).port}${path}`;

async function leased(): Promise<{ byAccount: Map<string, number>; byWebhook: Map<string, number> }> {
  const rows = (await dataSource.query(
    `SELECT w.account_id, d.webhook_id, count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.lease_token IS NOT NULL GROUP BY w.account_id, d.webhook_id`,
  )) as Array<{ account_id: string; webhook_id: string; n: number }>;
  const byAccount = new Map<string, number>();
  const byWebhook = new Map<string, number>();
  for (const row of rows) {
    byAccount.set(row.account_id, (byAccount.get(row.account_id) ?? 0) + row.n);
    byWebhook.set(row.webhook_id, row.n);
  }
  return { byAccount, byWebhook };
}

describe("WebhookDispatcher's claim", () => {
  it("never gives one account more than its share, nor one webhook more than its own, and serves another account beside it", async () => {
    const events = new DomainEvents(silent);
    const hostile = await insertAccount(dataSource, "hostile");
    const hooks = [];
    for (let i = 0; i < 3; i += 1) hooks.push(await insertWebhook(dataSource, hostile, url(`/hostile/${i}`)));
    const quiet = await insertAccount(dataSource, "quiet");
    const quietHook = await insertWebhook(dataSource, quiet, url("/quiet"));
    const record = (accountId: string, i: number) =>
      dataSource.transaction((tx) =>
        events.record(tx, "subscription.changed", {
          accountId,
          previousPlan: "free",
          plan: "pro",
          reason: "checkout",
          checkoutSessionId: `chk_${accountId}_${i}`,
        }),
      );
    // 3 webhooks × 10 events: 30 deliveries of the hostile account, older than the quiet account's 2.
    for (let i = 0; i < 10; i += 1) await record(hostile, i);
    for (let i = 0; i < 2; i += 1) await record(quiet, i);

    const dispatcher = newDispatcher(dataSource, new AddressGuard({ allowlist: ["127.0.0.1/32"] }), events, silent, {
      publicBaseUrl: "https://pms.test",
      concurrency: 20,
      perWebhook: 2,
      perAccount: 4,
      pollMs: 20,
      jitter: 0,
    }).start();
    try {
      await expect
        .poll(async () => (await leased()).byAccount.get(quiet) ?? 0, { timeout: 10_000, interval: 20 })
        .toBe(2);
      // Sampled while the passes keep running (woken every 20 ms): the shares hold at every look.
      for (let look = 0; look < 25; look += 1) {
        const { byAccount, byWebhook } = await leased();
        expect(byAccount.get(hostile) ?? 0).toBeLessThanOrEqual(4);
        for (const id of hooks) expect(byWebhook.get(id) ?? 0).toBeLessThanOrEqual(2);
        expect(byWebhook.get(quietHook) ?? 0).toBeLessThanOrEqual(2);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await leased()).byAccount.get(hostile)).toBe(4);
      const [{ tried }] = (await dataSource.query(
        `SELECT count(*) FILTER (WHERE d.attempts > 0)::int AS tried FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
        [hostile],
      )) as [{ tried: number }];
      // Only what was claimed was charged an attempt: the rest of the backlog waits untouched.
      expect(tried).toBe(4);
    } finally {
      // Connections cut: the deliveries end at once (retried later), so stopping does not sit out their timeouts.
      for (const socket of sockets) socket.destroy();
      await dispatcher.stop();
    }
  });
});
