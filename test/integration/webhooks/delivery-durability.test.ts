import { insertAccount, insertWebhook, newDispatcher, recordSubscriptionEvents } from "../../support/webhook-rows.js";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { dataSourceFor } from "../../../src/db/database.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import { AddressGuard } from "../../../src/modules/crawl/address-guard.js";
import { OutboxRetentionRepository } from "../../../src/events/outbox-retention.repository.js";
import { newWebhookSecret } from "../../../src/modules/webhooks/webhooks.service.js";
import { startTestApp } from "../../support/app.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { apiClient, signIn } from "../../support/http.js";
import { WebhookReceiver } from "../../support/webhook-receiver.js";

/**
 * At-least-once under failure: a receiver that is down while the service restarts
 * still gets every event afterwards; two dispatchers (as two processes would) deliver
 * each event once; a destination that hangs delays only its own deliveries; the
 * outbox is purged after 30 days; the secret is in no log line.
 */
let database: TestDatabase;
let dataSource: DataSource;
let receiver: WebhookReceiver;
const silent = pino({ level: "silent" });

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 6);
  await dataSource.initialize();
  receiver = await new WebhookReceiver(inject("testTls")).start();
});
afterAll(async () => {
  await receiver?.stop();
  await dataSource?.destroy();
  await database?.drop();
});

const account = (name: string) => insertAccount(dataSource, name);
const webhookFor = (accountId: string, path: string) => insertWebhook(dataSource, accountId, receiver.url(path));

/** n subscription.changed events of the account, each committed on its own. */
const recordEvents = (events: DomainEvents, accountId: string, n: number) =>
  recordSubscriptionEvents(dataSource, events, accountId, n);

describe("webhook delivery under failure", () => {
  it("delivers to a receiver that was down while the service restarted, once it is back", async () => {
    const env = { DATABASE_URL: database.url, SSRF_ALLOWLIST: "127.0.0.1/32" };
    const first = await startTestApp(env, { webhooks: { jitter: 0, pollMs: 100 } });
    const owner = await signIn(first, "owner@durable.test");
    const api = apiClient(first);
    const { webhook } = await (
      await api("/api/webhooks", {
        method: "POST",
        cookie: owner.cookie,
        body: { url: receiver.url("/durable"), events: ["subscription.changed"] },
      })
    ).json();
    await receiver.stop();
    try {
      const { sessionId } = await (
        await api("/api/billing/checkout", { method: "POST", cookie: owner.cookie, body: { plan: "pro" } })
      ).json();
      expect((await api(`/dev/checkout/${sessionId}/complete`, { method: "POST" })).status).toBe(200);
      await expect
        .poll(
          async () =>
            (await dataSource.query(`SELECT last_error FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id]))[0]
              ?.last_error,
        )
        .toBeTruthy();
      const [failed] = await dataSource.query(
        `SELECT status, attempts, last_error FROM webhook_deliveries WHERE webhook_id = $1`,
        [webhook.id],
      );
      expect(failed.attempts).toBe(1);
      expect(failed.status).toBe("pending");
      expect(failed.last_error).toMatch(/ECONNREFUSED/);
      await first.close();

      // The service comes back (a later clock: the first backoff step has passed), then the receiver.
      const second = await startTestApp(env, {
        webhooks: { jitter: 0, pollMs: 100, clock: () => new Date(Date.now() + 10_000) },
      });
      try {
        const before = receiver.received.length;
        await receiver.start();
        const [request] = (await receiver.waitFor(before + 1)).slice(before);
        expect(request!.path).toBe("/durable");
        expect(JSON.parse(request!.body)).toMatchObject({ type: "subscription.changed", data: { plan: "pro" } });
        await expect
          .poll(
            async () =>
              (await dataSource.query(`SELECT status FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id]))[0]
                .status,
          )
          .toBe("delivered");
      } finally {
        await second.close();
      }
    } finally {
      if (receiver.port && !receiver.listening) await receiver.start();
    }
  });

  it(
    "delivers each of 300 events once with two dispatchers on separate connections claiming at the same time",
    { timeout: 90_000 },
    async () => {
      const accountId = await account("two workers");
      await webhookFor(accountId, "/twice");
      const events = new DomainEvents(silent);
      await recordEvents(events, accountId, 300);
      const other = dataSourceFor(database.url, 6);
      await other.initialize();
      const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"] });
      const one = newDispatcher(dataSource, guard, events, silent, {
        publicBaseUrl: "https://pms.test",
        concurrency: 10,
      });
      const two = newDispatcher(other, guard, new DomainEvents(silent), silent, {
        publicBaseUrl: "https://pms.test",
        concurrency: 10,
      });
      const before = receiver.received.length;
      try {
        one.start();
        two.start();
        await receiver.waitFor(before + 300, 60_000);
        // Give a duplicate the chance to arrive before counting.
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        await one.stop();
        await two.stop();
        await other.destroy();
      }
      const ids = receiver.received
        .slice(before)
        .filter((request) => request.path === "/twice")
        .map((request) => request.headers["webhook-id"]);
      expect(ids).toHaveLength(300);
      expect(new Set(ids).size).toBe(300);
      const [counts] = await dataSource.query(
        `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, max(attempts)::int AS attempts FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
        [accountId],
      );
      expect(counts).toEqual({ delivered: 300, attempts: 1 });
    },
  );

  it("keeps delivering to others while one destination hangs: it holds at most its share of the pool, and the rest of its backlog is left unclaimed, its attempts uncounted", async () => {
    // A destination that reads each request and answers nothing until released.
    const held: ServerResponse[] = [];
    let released = false;
    const tarpit: Server = createHttpsServer(inject("testTls"), (request, response) => {
      request.resume();
      request.on("end", () => (released ? response.writeHead(200).end("ok") : held.push(response)));
    });
    await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
    const slow = await account("hangs");
    const prompt = await account("answers");
    await dataSource.query(`INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4)`, [
      slow,
      `https://127.0.0.1:${(tarpit.address() as AddressInfo).port}/hang`,
      ["subscription.changed"],
      newWebhookSecret(),
    ]);
    await webhookFor(prompt, "/prompt");
    const events = new DomainEvents(silent);
    // 24 events for the hanging destination first: more than a whole pool (or a batch of the old default 20) of theirs.
    await recordEvents(events, slow, 24);
    await recordEvents(events, prompt, 1);
    const dispatcher = newDispatcher(dataSource, new AddressGuard({ allowlist: ["127.0.0.1/32"] }), events, silent, {
      publicBaseUrl: "https://pms.test",
      concurrency: 6,
      perWebhook: 2,
    });
    const before = receiver.received.length;
    try {
      dispatcher.start();
      // Delivered while the hanging destination holds its two requests (its response timeout is 10 s).
      const [delivered] = (await receiver.waitFor(before + 1, 8_000)).slice(before);
      expect(delivered!.path).toBe("/prompt");
      await expect.poll(() => held.length).toBe(2);
      // Never more than its share in flight, and the deliveries left waiting were not counted as attempts.
      const waiting = await dataSource.query(
        `SELECT count(*) FILTER (WHERE lease_token IS NOT NULL)::int AS claimed, count(*)::int AS pending, max(attempts)::int AS attempts
           FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1 AND d.status = 'pending'`,
        [slow],
      );
      expect(waiting).toEqual([{ claimed: 2, pending: 24, attempts: 1 }]);
      expect(held).toHaveLength(2);

      // Released, it gets all 24, each on its first attempt.
      released = true;
      for (const response of held.splice(0)) response.writeHead(200).end("ok");
      await expect
        .poll(
          async () =>
            (
              await dataSource.query(
                `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1 AND d.status = 'delivered' AND d.attempts = 1`,
                [slow],
              )
            )[0].n,
          { timeout: 10_000 },
        )
        .toBe(24);
    } finally {
      released = true;
      for (const response of held.splice(0)) response.writeHead(200).end("ok");
      await dispatcher.stop();
      tarpit.closeAllConnections();
      await new Promise<void>((resolve) => tarpit.close(() => resolve()));
    }
  });

  it("records a 2xx whose answer holds NUL or bytes that are not UTF-8 as delivered, once, keeping a sanitised excerpt of at most 4 KiB", async () => {
    const accountId = await account("binary answers");
    const nul = await webhookFor(accountId, "/nul");
    const binary = await webhookFor(accountId, "/binary");
    const large = await webhookFor(accountId, "/large");
    const bytes = {
      "/nul": Buffer.from([0x6f, 0x6b, 0x00]),
      "/binary": Buffer.from([0x08, 0x00, 0xff, 0xfe, 0xc3, 0x28, 0x00, 0x01]),
      "/large": Buffer.alloc(1_000_000, 0x61),
    };
    receiver.answer = (request) => ({
      status: 200,
      headers: { "content-type": "application/octet-stream" },
      body: bytes[request.path as keyof typeof bytes] ?? "ok",
    });
    const events = new DomainEvents(silent);
    // A short lease: an outcome that could not be written would be sent again within a second.
    const dispatcher = newDispatcher(dataSource, new AddressGuard({ allowlist: ["127.0.0.1/32"] }), events, silent, {
      publicBaseUrl: "https://pms.test",
      leaseMs: 1_000,
      pollMs: 100,
    });
    const rows = async () =>
      (await dataSource.query(
        `SELECT webhook_id, status, attempts, last_status_code, last_response_body FROM webhook_deliveries WHERE webhook_id = ANY($1) ORDER BY array_position($1, webhook_id)`,
        [[nul, binary, large]],
      )) as Array<Record<string, unknown>>;
    const before = receiver.received.length;
    try {
      await recordEvents(events, accountId, 1);
      dispatcher.start();
      await expect
        .poll(async () => (await rows()).map((row) => row.status), { timeout: 10_000 })
        .toEqual(["delivered", "delivered", "delivered"]);
      const stored = (buffer: Buffer) => buffer.toString("utf8").replaceAll("\0", "\uFFFD");
      expect(await rows()).toEqual([
        {
          webhook_id: nul,
          status: "delivered",
          attempts: 1,
          last_status_code: 200,
          last_response_body: stored(bytes["/nul"]),
        },
        {
          webhook_id: binary,
          status: "delivered",
          attempts: 1,
          last_status_code: 200,
          last_response_body: stored(bytes["/binary"]),
        },
        {
          webhook_id: large,
          status: "delivered",
          attempts: 1,
          last_status_code: 200,
          last_response_body: "a".repeat(4_096),
        },
      ]);
      // Two leases later nothing was sent again.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(
        receiver.received
          .slice(before)
          .map((request) => request.path)
          .sort(),
      ).toEqual(["/binary", "/large", "/nul"]);
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
      await dispatcher.stop();
    }
  });

  it("never sends a delivery again once its attempts reached the limit, even when the last outcome was never written: it ends failed", async () => {
    const accountId = await account("attempts used up");
    const webhookId = await webhookFor(accountId, "/used-up");
    const events = new DomainEvents(silent);
    await recordEvents(events, accountId, 1);
    // As after an 8th attempt whose outcome write failed: still pending, its claim lapsed.
    await dataSource.query(
      `UPDATE webhook_deliveries SET attempts = 8, lease_token = gen_random_uuid(), locked_until = now() - interval '1 second' WHERE webhook_id = $1`,
      [webhookId],
    );
    const dispatcher = newDispatcher(dataSource, new AddressGuard({ allowlist: ["127.0.0.1/32"] }), events, silent, {
      publicBaseUrl: "https://pms.test",
      pollMs: 100,
    });
    try {
      dispatcher.start();
      await expect
        .poll(
          async () =>
            (await dataSource.query(`SELECT status FROM webhook_deliveries WHERE webhook_id = $1`, [webhookId]))[0]
              .status,
        )
        .toBe("failed");
    } finally {
      await dispatcher.stop();
    }
    const [row] = await dataSource.query(
      `SELECT attempts, next_attempt_at, lease_token, last_error FROM webhook_deliveries WHERE webhook_id = $1`,
      [webhookId],
    );
    expect(row).toEqual({
      attempts: 8,
      next_attempt_at: null,
      lease_token: null,
      last_error: expect.stringMatching(/gave up after 8 attempts/),
    });
    expect(receiver.received.filter((request) => request.path === "/used-up")).toEqual([]);
  });

  it("purges events older than 30 days that nothing waits on, with their delivery log, and keeps the rest", async () => {
    const accountId = await account("purge");
    await webhookFor(accountId, "/purge");
    await recordEvents(new DomainEvents(silent), accountId, 3);
    const rows = (await dataSource.query(
      `SELECT e.id, d.id AS delivery FROM domain_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.account_id = $1 ORDER BY e.occurred_at`,
      [accountId],
    )) as Array<{ id: string; delivery: string }>;
    await dataSource.query(`UPDATE domain_events SET occurred_at = now() - interval '31 days' WHERE account_id = $1`, [
      accountId,
    ]);
    await dataSource.query(`UPDATE webhook_deliveries SET status = 'delivered' WHERE id = ANY($1)`, [
      [rows[0]!.delivery, rows[1]!.delivery],
    ]);
    await dataSource.query(`UPDATE domain_events SET occurred_at = now() WHERE id = $1`, [rows[1]!.id]);
    // rows[0]: old and delivered → purged; rows[1]: delivered but recent → kept; rows[2]: old but still pending → kept.
    expect(await new OutboxRetentionRepository(dataSource).purgeDelivered(new Date())).toBeGreaterThanOrEqual(1);
    const left = (await dataSource.query(`SELECT id FROM domain_events WHERE account_id = $1`, [accountId])) as Array<{
      id: string;
    }>;
    expect(left.map((row) => row.id).sort()).toEqual([rows[1]!.id, rows[2]!.id].sort());
    expect(await dataSource.query(`SELECT id FROM webhook_deliveries WHERE id = $1`, [rows[0]!.delivery])).toEqual([]);
  });

  it("never writes the secret to a log line, even at debug level and through a failing delivery", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString("utf8")), done()),
    });
    const config = loadConfig({
      NODE_ENV: "test",
      LOG_LEVEL: "debug",
      DATABASE_URL: database.url,
      SSRF_ALLOWLIST: "127.0.0.1/32",
      SCORE_WORKERS: "0",
    });
    const app = await createApp(config, pino({ level: "debug" }, sink), { webhooks: { jitter: 0, pollMs: 100 } });
    const url = await app.listen(0, "127.0.0.1");
    try {
      const service = { url, app, config, database: undefined, close: async () => undefined };
      const owner = await signIn(service, "quiet@durable.test");
      const api = apiClient(service);
      receiver.answer = (request) => (request.path === "/quiet" ? { status: 500, body: "nope" } : { status: 200 });
      const { webhook } = await (
        await api("/api/webhooks", { method: "POST", cookie: owner.cookie, body: { url: receiver.url("/quiet") } })
      ).json();
      await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: owner.cookie });
      const rotated = await (
        await api(`/api/webhooks/${webhook.id}/rotate-secret`, { method: "POST", cookie: owner.cookie })
      ).json();
      await expect
        .poll(
          async () =>
            (
              await dataSource.query(`SELECT last_status_code FROM webhook_deliveries WHERE webhook_id = $1`, [
                webhook.id,
              ])
            )[0]?.last_status_code,
        )
        .toBe(500);
      const secrets = [webhook.secret, rotated.webhook.secret].map((secret: string) => secret.slice("whsec_".length));
      expect(lines.length).toBeGreaterThan(0);
      for (const secret of secrets) expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
      await app.close();
    }
  });
});
