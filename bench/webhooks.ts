// Webhook delivery latency, from the commit of an event to its receipt by an HTTPS
// endpoint: 1,000 `subscription.changed` events of one account with one
// webhook, recorded each in its own transaction the way a checkout records them,
// published after commit (which wakes the dispatcher of the same process, as in the
// service), delivered through the real dispatcher: claim with SKIP LOCKED, sign per
// Standard Webhooks, POST over TLS to 127.0.0.1 through the address guard, write the
// outcome. Baseline, same run, same receiver: 1,000 signed POSTs sent straight from
// this process with got (no database): what TLS + HTTP alone cost here.
//
// Two pacings: a burst (all 1,000 recorded back to back) and a steady 100 events/s.
// The TLS certificate comes from a CA made at run time; this script re-runs itself
// with NODE_EXTRA_CA_CERTS pointing at it, so Node's trust store verifies it.
//
//   npm run bench:webhooks        (DATABASE_URL: a server to make a scratch database on)
//
// `npm run bench:webhooks:fair` runs another scenario: one healthy account's
// delivery latency (commit → receipt, 200 events at 10/s) while another account's
// 10 webhooks point at a destination that accepts connections and never answers,
// with 200 test events queued before and 8 more a second during the measurement
// (the rate test events could be sent at). Baseline, same run: the same healthy
// events with no hostile account. The dispatcher runs with the service's defaults.

import { fork } from "node:child_process";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { fileURLToPath } from "node:url";
import got from "got";
import { pino } from "pino";
import { dataSourceFor } from "../src/db/database.js";
import { DomainEvents } from "../src/events/domain-events.js";
import { AddressGuard } from "../src/modules/crawl/address-guard.js";
import { signatureHeader } from "../src/modules/webhooks/signature.js";
import { newWebhookSecret } from "../src/modules/webhooks/webhooks.service.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { makeTestTls } from "../test/support/test-tls.js";
import { WebhookReceiver } from "../test/support/webhook-receiver.js";
import { newDispatcher } from "../test/support/webhook-rows.js";

const EVENTS = 1_000;
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const line = (name: string, latencies: number[], seconds: number) =>
  console.log(
    `${name.padEnd(44)} median ${percentile(latencies, 50).toFixed(1).padStart(7)} ms   p99 ${percentile(latencies, 99).toFixed(1).padStart(7)} ms   max ${Math.max(
      ...latencies,
    )
      .toFixed(1)
      .padStart(7)} ms   ${(latencies.length / seconds).toFixed(0)} events/s`,
  );

async function run(tls: { key: string; cert: string }): Promise<void> {
  const database = `bench_webhooks_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = withDatabase(ADMIN_URL, database);
  const dataSource = dataSourceFor(url, 10);
  const receiver = await new WebhookReceiver(tls).start();
  const silent = pino({ level: "silent" });
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    const [account] = (await dataSource.query(
      `INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('bench', now()) RETURNING id`,
    )) as Array<{ id: string }>;
    const secret = newWebhookSecret();
    await dataSource.query(`INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4)`, [
      account!.id,
      receiver.url("/bench"),
      ["subscription.changed"],
      secret,
    ]);
    const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"] });
    console.log(`${EVENTS} events per measurement; receiver https://127.0.0.1:${receiver.port} (TLS, test CA)`);

    // Baseline: signed POSTs straight from here, one after another, then 20 at a time.
    for (const parallel of [1, 20]) {
      const latencies: number[] = [];
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (next < EVENTS) {
            const i = next++;
            const body = JSON.stringify({
              type: "subscription.changed",
              timestamp: new Date().toISOString(),
              data: { i },
            });
            const timestamp = Math.floor(Date.now() / 1000);
            const sent = performance.now();
            await got.post(receiver.url("/baseline"), {
              body,
              headers: {
                "content-type": "application/json",
                "webhook-id": `base_${i}`,
                "webhook-timestamp": String(timestamp),
                "webhook-signature": signatureHeader([secret], `base_${i}`, timestamp, body),
              },
              dnsLookup: guard.lookup as never,
              followRedirect: false,
              retry: { limit: 0 },
            });
            latencies.push(performance.now() - sent);
          }
        }),
      );
      line(`baseline: got POST, ${parallel} at a time`, latencies, (performance.now() - started) / 1000);
    }

    for (const pacing of ["burst", "100/s"] as const) {
      const events = new DomainEvents(silent);
      const dispatcher = newDispatcher(dataSource, guard, events, silent, {
        publicBaseUrl: "https://pms.test",
      }).start();
      const committedAt = new Map<string, number>();
      const before = receiver.received.length;
      const started = performance.now();
      try {
        for (let i = 0; i < EVENTS; i += 1) {
          const event = await dataSource.transaction((manager) =>
            events.record(manager, "subscription.changed", {
              accountId: account!.id,
              previousPlan: "free",
              plan: "pro",
              reason: "checkout",
              checkoutSessionId: null,
            }),
          );
          committedAt.set(event.id, Date.now());
          await events.publish([event]);
          if (pacing === "100/s") await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await receiver.waitFor(before + EVENTS, 120_000);
      } finally {
        await dispatcher.stop();
      }
      const arrivals = receiver.received.slice(before);
      const ids = new Set(arrivals.map((request) => String(request.headers["webhook-id"])));
      const latencies = arrivals.map((request) => request.at - committedAt.get(String(request.headers["webhook-id"]))!);
      line(`service dispatcher, ${pacing}, commit → receipt`, latencies, (performance.now() - started) / 1000);
      if (ids.size !== EVENTS) console.log(`  ${EVENTS - ids.size} events missing or duplicated`);
    }
  } finally {
    await receiver.stop();
    await dataSource.destroy().catch(() => undefined);
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

const FAIR_HEALTHY_EVENTS = 200;
const FAIR_HEALTHY_INTERVAL_MS = 100;
const FAIR_HOSTILE_WEBHOOKS = 10;
const FAIR_HOSTILE_QUEUED = 200;
const FAIR_HOSTILE_PER_SECOND = 8;

/** A healthy account's latency with and without another account's hanging webhooks and growing backlog. */
async function fairness(tls: { key: string; cert: string }): Promise<void> {
  const database = `bench_webhooks_fair_${process.pid}`;
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const dataSource = dataSourceFor(withDatabase(ADMIN_URL, database), 10);
  const receiver = await new WebhookReceiver(tls).start();
  // Accepts, reads the request, never answers: the dispatcher's 10 s response timeout ends each.
  const sockets = new Set<Socket>();
  const tarpit = createHttpsServer(tls, (request) => request.resume());
  tarpit.on(
    "secureConnection",
    (socket: Socket) => (sockets.add(socket), socket.on("close", () => sockets.delete(socket))),
  );
  await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
  const silent = pino({ level: "silent" });
  const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"] });
  const newAccount = async (name: string) =>
    (
      (await dataSource.query(`INSERT INTO accounts (name, billing_cycle_anchor) VALUES ($1, now()) RETURNING id`, [
        name,
      ])) as Array<{ id: string }>
    )[0]!.id;
  const newWebhook = async (accountId: string, url: string) =>
    (
      (await dataSource.query(
        `INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id`,
        [accountId, url, ["subscription.changed"], newWebhookSecret()],
      )) as Array<{ id: string }>
    )[0]!.id;
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    const healthy = await newAccount("healthy");
    await newWebhook(healthy, receiver.url("/healthy"));
    const hostile = await newAccount("hostile");
    const hanging: string[] = [];
    for (let i = 0; i < FAIR_HOSTILE_WEBHOOKS; i += 1)
      hanging.push(await newWebhook(hostile, `https://127.0.0.1:${(tarpit.address() as AddressInfo).port}/hang/${i}`));
    console.log(
      `healthy account: ${FAIR_HEALTHY_EVENTS} events at ${1000 / FAIR_HEALTHY_INTERVAL_MS}/s; hostile account: ${FAIR_HOSTILE_WEBHOOKS} webhooks that never answer, ${FAIR_HOSTILE_QUEUED} test events queued, ${FAIR_HOSTILE_PER_SECOND}/s more`,
    );

    let sent = 0;
    const sendTest = async (events: DomainEvents) => {
      const webhookId = hanging[sent++ % hanging.length]!;
      const event = await dataSource.transaction((manager) =>
        events.record(manager, "webhook.test", { accountId: hostile, webhookId }),
      );
      await events.publish([event]);
    };

    for (const scenario of ["baseline: healthy account alone", "with the hostile account"] as const) {
      const events = new DomainEvents(silent);
      const dispatcher = newDispatcher(dataSource, guard, events, silent, { publicBaseUrl: "https://pms.test" });
      const hostileRun = scenario !== "baseline: healthy account alone";
      let spamming: NodeJS.Timeout | undefined;
      if (hostileRun) {
        for (let i = 0; i < FAIR_HOSTILE_QUEUED; i += 1) await sendTest(events);
        spamming = setInterval(() => void sendTest(events), 1000 / FAIR_HOSTILE_PER_SECOND);
      }
      dispatcher.start();
      const committedAt = new Map<string, number>();
      const before = receiver.received.length;
      const started = performance.now();
      try {
        for (let i = 0; i < FAIR_HEALTHY_EVENTS; i += 1) {
          const event = await dataSource.transaction((manager) =>
            events.record(manager, "subscription.changed", {
              accountId: healthy,
              previousPlan: "free",
              plan: "pro",
              reason: "checkout",
              checkoutSessionId: null,
            }),
          );
          committedAt.set(event.id, Date.now());
          await events.publish([event]);
          await new Promise((resolve) => setTimeout(resolve, FAIR_HEALTHY_INTERVAL_MS));
        }
        await receiver
          .waitFor(before + FAIR_HEALTHY_EVENTS, 180_000)
          .catch((error: Error) => console.log(`  ${error.message}`));
      } finally {
        clearInterval(spamming);
      }
      const arrivals = receiver.received.slice(before);
      const latencies = arrivals.map((request) => request.at - committedAt.get(String(request.headers["webhook-id"]))!);
      if (latencies.length > 0) line(scenario, latencies, (performance.now() - started) / 1000);
      if (hostileRun) {
        const [state] = (await dataSource
          .query(
            `SELECT count(*) FILTER (WHERE d.status = 'pending')::int AS pending, count(*) FILTER (WHERE d.attempts > 0)::int AS tried,
                  (SELECT count(*)::int FROM webhooks WHERE account_id = $1 AND breaker_open_until IS NOT NULL) AS paused
             FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
            [hostile],
          )
          .catch(() =>
            dataSource.query(
              `SELECT count(*) FILTER (WHERE d.status = 'pending')::int AS pending, count(*) FILTER (WHERE d.attempts > 0)::int AS tried, NULL AS paused FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
              [hostile],
            ),
          )) as Array<{ pending: number; tried: number; paused: number | null }>;
        console.log(
          `  hostile account afterwards: ${state!.pending} deliveries pending, ${state!.tried} tried at least once, ${state!.paused ?? "n/a"} of ${FAIR_HOSTILE_WEBHOOKS} webhooks paused by their breaker`,
        );
      }
      for (const socket of sockets) socket.destroy();
      await dispatcher.stop();
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => tarpit.close(() => resolve()));
    await receiver.stop();
    await dataSource.destroy().catch(() => undefined);
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

if (process.argv[2] === "--run") {
  const tls = JSON.parse(process.env.BENCH_TLS!) as { key: string; cert: string };
  await (process.argv[3] === "fairness" ? fairness(tls) : run(tls));
} else {
  const tls = await makeTestTls();
  const child = fork(fileURLToPath(import.meta.url), ["--run", ...process.argv.slice(2)], {
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: tls.caFile,
      BENCH_TLS: JSON.stringify({ key: tls.key, cert: tls.cert }),
    },
    execArgv: process.execArgv,
  });
  await new Promise<void>((resolve) => child.on("exit", (code) => ((process.exitCode = code ?? 1), resolve())));
}
