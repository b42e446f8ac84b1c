// Webhook delivery latency, from the commit of an event to its receipt by an HTTPS
// endpoint (issue 12): 1,000 `subscription.changed` events of one account with one
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

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import got from "got";
import { pino } from "pino";
import { dataSourceFor } from "../src/db/database.js";
import { DomainEvents } from "../src/events/domain-events.js";
import { AddressGuard } from "../src/modules/crawl/address-guard.js";
import { WebhookDispatcher } from "../src/modules/webhooks/webhook-dispatcher.js";
import { signatureHeader } from "../src/modules/webhooks/signature.js";
import { newWebhookSecret } from "../src/modules/webhooks/webhooks.service.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { makeTestTls } from "../test/support/test-tls.js";
import { WebhookReceiver } from "../test/support/webhook-receiver.js";

const EVENTS = 1_000;
const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const line = (name: string, latencies: number[], seconds: number) =>
  console.log(
    `${name.padEnd(44)} median ${percentile(latencies, 50).toFixed(1).padStart(7)} ms   p99 ${percentile(latencies, 99).toFixed(1).padStart(7)} ms   max ${Math.max(...latencies).toFixed(1).padStart(7)} ms   ${(latencies.length / seconds).toFixed(0)} events/s`,
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
    const [account] = (await dataSource.query(`INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('bench', now()) RETURNING id`)) as Array<{ id: string }>;
    const secret = newWebhookSecret();
    await dataSource.query(`INSERT INTO webhooks (account_id, url, events, secret) VALUES ($1, $2, $3, $4)`, [account!.id, receiver.url("/bench"), ["subscription.changed"], secret]);
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
            const body = JSON.stringify({ type: "subscription.changed", timestamp: new Date().toISOString(), data: { i } });
            const timestamp = Math.floor(Date.now() / 1000);
            const sent = performance.now();
            await got.post(receiver.url("/baseline"), {
              body,
              headers: { "content-type": "application/json", "webhook-id": `base_${i}`, "webhook-timestamp": String(timestamp), "webhook-signature": signatureHeader([secret], `base_${i}`, timestamp, body) },
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
      const dispatcher = new WebhookDispatcher(dataSource, guard, events, silent, { publicBaseUrl: "https://pms.test" }).start();
      const committedAt = new Map<string, number>();
      const before = receiver.received.length;
      const started = performance.now();
      try {
        for (let i = 0; i < EVENTS; i += 1) {
          const event = await dataSource.transaction((manager) =>
            events.record(manager, "subscription.changed", { accountId: account!.id, previousPlan: "free", plan: "pro", reason: "checkout", checkoutSessionId: null }),
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

if (process.argv[2] === "--run") {
  await run(JSON.parse(process.env.BENCH_TLS!) as { key: string; cert: string });
} else {
  const tls = await makeTestTls();
  const child = fork(fileURLToPath(import.meta.url), ["--run"], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.caFile, BENCH_TLS: JSON.stringify({ key: tls.key, cert: tls.cert }) },
    execArgv: process.execArgv,
  });
  await new Promise<void>((resolve) => child.on("exit", (code) => ((process.exitCode = code ?? 1), resolve())));
}
