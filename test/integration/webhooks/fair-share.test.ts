import { insertAccount, insertWebhook, newDispatcher, recordSubscriptionEvents } from "../../support/webhook-rows.js";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { DataSource } from "typeorm";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { dataSourceFor } from "../../../src/db/database.js";
import { DomainEvents } from "../../../src/events/domain-events.js";
import { AddressGuard } from "../../../src/modules/crawl/address-guard.js";
import { WebhookDispatcher, type DispatcherOptions } from "../../../src/modules/webhooks/webhook-dispatcher.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { WebhookReceiver } from "../../support/webhook-receiver.js";

/**
 * The dispatcher's pool shared across accounts: an account whose many webhooks
 * hang, with a deep backlog, holds only its share of deliveries in flight (in all
 * processes together), another account's delivery goes out while that backlog is
 * still stuck, and a destination that never answers is paused as a whole by its
 * circuit breaker, its waiting deliveries not charged an attempt.
 */
let database: TestDatabase;
let dataSource: DataSource;
let receiver: WebhookReceiver;
const silent = pino({ level: "silent" });
/** Polls are bounded, not timed: generous for a loaded machine. */
const POLL = { timeout: 15_000, interval: 50 };
const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"] });
const cleanups: Array<() => Promise<void>> = [];
/** Answers every held request first, so stopping a dispatcher does not sit out its timeouts. */
const releases: Array<() => void> = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 6);
  await dataSource.initialize();
  receiver = await new WebhookReceiver(inject("testTls")).start();
});
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  // Each test's accounts alone: a backlog left by the one before would take its share of the pool.
  await dataSource.query(`DELETE FROM webhooks`);
});
afterAll(async () => {
  await receiver?.stop();
  await dataSource?.destroy();
  await database?.drop();
});

const account = (name: string) => insertAccount(dataSource, name);
const webhookFor = (accountId: string, url: string) => insertWebhook(dataSource, accountId, url);

/** n subscription.changed events of the account, each committed on its own. */
const recordEvents = (events: DomainEvents, accountId: string, n: number) =>
  recordSubscriptionEvents(dataSource, events, accountId, n);

/** An HTTPS destination that reads each request and answers nothing until released (or the dispatcher's timeouts). */
async function tarpit(): Promise<{ url: (path: string) => string; held: ServerResponse[] }> {
  const held: ServerResponse[] = [];
  let released = false;
  const server: Server = createHttpsServer(inject("testTls"), (request, response) => {
    request.resume();
    request.on("end", () => (released ? response.writeHead(200).end("ok") : held.push(response)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  releases.push(() => {
    released = true;
    for (const response of held.splice(0)) response.writeHead(200).end("ok");
  });
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: (path) => `https://127.0.0.1:${port}${path}`, held };
}

function dispatcher(
  options: Omit<DispatcherOptions, "publicBaseUrl">,
  on: DataSource = dataSource,
  events = new DomainEvents(silent),
): WebhookDispatcher {
  const started = newDispatcher(on, guard, events, silent, {
    publicBaseUrl: "https://pms.test",
    jitter: 0,
    ...options,
  });
  cleanups.push(() => started.stop());
  return started;
}

/** The account's deliveries: in flight (leased), finished attempts (an outcome written), delivered. */
async function stateOf(
  accountId: string,
): Promise<{ leased: number; tried: number; delivered: number; pending: number }> {
  const [row] = (await dataSource.query(
    `SELECT count(*) FILTER (WHERE d.lease_token IS NOT NULL)::int AS leased,
            count(*) FILTER (WHERE d.last_error IS NOT NULL OR d.last_status_code IS NOT NULL)::int AS tried,
            count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
            count(*) FILTER (WHERE d.status = 'pending')::int AS pending
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
    [accountId],
  )) as Array<{ leased: number; tried: number; delivered: number; pending: number }>;
  return row!;
}

describe("webhook deliveries shared fairly across accounts", () => {
  it("delivers another account's event while one account's four hanging webhooks and 60-delivery backlog are stuck; that account holds only its share", async () => {
    const hang = await tarpit();
    const hostile = await account("hostile");
    for (let i = 0; i < 4; i += 1) await webhookFor(hostile, hang.url(`/hang/${i}`));
    const healthy = await account("healthy");
    await webhookFor(healthy, receiver.url("/healthy"));
    const events = new DomainEvents(silent);
    // The hostile backlog is older: by due time alone it would fill the whole pool (4 webhooks × 2 = 8 = the pool).
    await recordEvents(events, hostile, 15);
    await recordEvents(events, healthy, 1);

    const before = receiver.received.length;
    dispatcher({ concurrency: 8, perWebhook: 2, perAccount: 3 }, dataSource, events).start();
    await receiver.waitFor(before + 1, 20_000);
    await expect.poll(async () => (await stateOf(healthy)).delivered, POLL).toBe(1);

    // The hostile account's first requests are still unanswered: nothing of its backlog has finished an attempt,
    // so the healthy delivery did not wait for a hanging one's timeout.
    expect(await stateOf(hostile)).toEqual({ leased: 3, tried: 0, delivered: 0, pending: 60 });
    expect(hang.held).toHaveLength(3);
    expect(receiver.received.slice(before).map((request) => request.path)).toEqual(["/healthy"]);
  });

  it("gives a freed slot to the account with the fewest in flight, even when the hostile account is within its share: a healthy burst goes out in full through the one slot left", async () => {
    const hang = await tarpit();
    const hostile = await account("hostile, many due");
    for (let i = 0; i < 3; i += 1) await webhookFor(hostile, hang.url(`/slow/${i}`));
    const healthy = await account("healthy, a burst");
    await webhookFor(healthy, receiver.url("/burst"));
    const events = new DomainEvents(silent);
    await recordEvents(events, hostile, 20);
    await recordEvents(events, healthy, 12);

    // A pool of 3 and an account share of 3: the share alone would let the older hostile backlog take every slot.
    const before = receiver.received.length;
    dispatcher({ concurrency: 3, perWebhook: 1, perAccount: 3 }, dataSource, events).start();
    await receiver.waitFor(before + 12, 20_000);
    await expect.poll(async () => (await stateOf(healthy)).delivered, POLL).toBe(12);
    // All 12 went out before any hostile request was answered or timed out. (Once the healthy
    // account has nothing left, the freed slot rightly goes to the hostile one, up to its share of 3.)
    const state = await stateOf(hostile);
    expect(state).toMatchObject({ tried: 0, delivered: 0, pending: 60 });
    expect(state.leased).toBeLessThanOrEqual(3);
    expect(hang.held.length).toBeLessThanOrEqual(3);
  });

  it("holds an account's share across two dispatchers on separate connections", async () => {
    const hang = await tarpit();
    const hostile = await account("hostile, two processes");
    for (let i = 0; i < 4; i += 1) await webhookFor(hostile, hang.url(`/two/${i}`));
    const healthy = await account("healthy, two processes");
    await webhookFor(healthy, receiver.url("/two-healthy"));
    const events = new DomainEvents(silent);
    await recordEvents(events, hostile, 10);
    await recordEvents(events, healthy, 1);
    const other = dataSourceFor(database.url, 4);
    await other.initialize();
    cleanups.push(() => other.destroy());

    const before = receiver.received.length;
    const one = dispatcher({ concurrency: 8, perWebhook: 2, perAccount: 3, pollMs: 50 });
    const two = dispatcher({ concurrency: 8, perWebhook: 2, perAccount: 3, pollMs: 50 }, other);
    one.start();
    two.start();
    await receiver.waitFor(before + 1, 20_000);
    await expect.poll(() => hang.held.length, POLL).toBe(3);
    // Both keep polling every 50 ms; a claim past the share would show as a fourth held request.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hang.held).toHaveLength(3);
    expect(await stateOf(hostile)).toMatchObject({ leased: 3, tried: 0, delivered: 0 });
  });

  it("opens a webhook's circuit breaker after consecutive failures to connect, charges its waiting deliveries nothing, probes once after a growing cool-down, and closes on an answer", async () => {
    // A receiver that is down: connections are refused until it starts again on the same port.
    const down = await new WebhookReceiver(inject("testTls")).start();
    await down.stop();
    cleanups.push(() => down.stop());
    const owner = await account("unreachable");
    const webhook = await webhookFor(owner, down.url("/down"));
    const events = new DomainEvents(silent);
    await recordEvents(events, owner, 6);
    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);
    const breaker = async () =>
      (
        (await dataSource.query(
          `SELECT breaker_failures AS failures, breaker_trips AS trips, breaker_open_until AS until FROM webhooks WHERE id = $1`,
          [webhook],
        )) as Array<{
          failures: number;
          trips: number;
          until: Date | null;
        }>
      )[0]!;
    const attempts = async () =>
      (
        (await dataSource.query(
          `SELECT attempts FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempts DESC, id`,
          [webhook],
        )) as Array<{ attempts: number }>
      ).map((row) => row.attempts);
    const options = { breakerFailures: 3, breakerCooldownMs: 60_000, clock, pollMs: 50 };

    // One at a time, so "in a row" is exact: the third refusal opens it for 60 s.
    const first = dispatcher({ ...options, perWebhook: 1 }, dataSource, events).start();
    await expect.poll(async () => (await breaker()).trips, POLL).toBe(1);
    const opened = await breaker();
    expect(opened.failures).toBe(3);
    expect(opened.until!.getTime() - Date.now()).toBeGreaterThan(50_000);
    // The failed three are due again 5 s later (their own backoff); the breaker keeps all six back, uncharged.
    offsetMs = 6_000;
    first.wake();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await attempts()).toEqual([1, 1, 1, 0, 0, 0]);
    await first.stop();

    // Cool-down over: exactly one probe, though 6 are due and the webhook's share is 5. Still refused: reopened for twice as long.
    offsetMs = 61_000;
    const second = dispatcher({ ...options, perWebhook: 5 }, dataSource, events).start();
    await expect.poll(async () => (await breaker()).trips, POLL).toBe(2);
    expect((await attempts()).reduce((sum, n) => sum + n, 0)).toBe(4);
    const reopened = await breaker();
    expect(reopened.until!.getTime() - (Date.now() + offsetMs)).toBeGreaterThan(110_000);
    await second.stop();
    const charged = await attempts();

    // Back up, and past the longer cool-down: the probe is answered, the breaker closes, the rest follows.
    await down.start();
    offsetMs = 61_000 + 121_000;
    dispatcher({ ...options, perWebhook: 5 }, dataSource, events).start();
    await down.waitFor(6, 20_000);
    await expect.poll(async () => (await stateOf(owner)).delivered, POLL).toBe(6);
    expect(await breaker()).toEqual({ failures: 0, trips: 0, until: null });
    // Each delivery was charged exactly one attempt more than it had: the deliveries held back were never charged.
    expect((await attempts()).reduce((sum, n) => sum + n, 0)).toBe(charged.reduce((sum, n) => sum + n, 0) + 6);
  });
});
