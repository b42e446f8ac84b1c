import "reflect-metadata";
import { pino } from "pino";
import type { DataSource } from "typeorm";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import type { Transaction } from "../../src/db/transaction.js";
import { DomainEvents } from "../../src/events/domain-events.js";
import { MonitorScheduler } from "../../src/modules/monitor/monitor-scheduler.js";
import { ProductRepository } from "../../src/modules/products/product.repository.js";
import { scoreServiceOn } from "./score-services.js";

/**
 * A scheduler process for the multi-process tests and `bench:schedule`: the monitor
 * scheduler over DATABASE_URL, with a queue that only records (no worker runs here).
 * Prints one JSON line per event: `{"ready":true}`, `{"claimed":n}` each time a claim
 * holds its rows (and, with PAUSE_AFTER_CLAIM_MS, waits holding them: a SIGKILL then
 * lands mid-claim), `{"tick":{…}}` per tick. With ONCE=1 it exits after one tick.
 */
class PausingProducts extends ProductRepository {
  constructor(
    dataSource: DataSource,
    private readonly pauseMs: number,
  ) {
    super(dataSource);
  }

  override async claimDue(tx: Transaction, now: Date, limit: number) {
    const due = await super.claimDue(tx, now, limit);
    if (due.length > 0) {
      console.log(JSON.stringify({ claimed: due.length }));
      if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
    return due;
  }
}

const env = process.env;
const config = loadConfig({ DATABASE_URL: env.DATABASE_URL, LOG_LEVEL: "silent", DATABASE_POOL_SIZE: "4" });
const logger = pino({ level: "silent" });
const database = await openDatabase(config, logger);
const { scores, queue, ledger, transactions } = scoreServiceOn(database.dataSource);
const scheduler = new MonitorScheduler(
  new PausingProducts(database.dataSource, Number(env.PAUSE_AFTER_CLAIM_MS ?? 0)),
  scores,
  ledger,
  new DomainEvents(logger),
  transactions,
  logger,
  { batch: Number(env.MONITOR_BATCH ?? 200) },
);
console.log(JSON.stringify({ ready: true }));
// START_AT (epoch ms): processes started one after another begin their first tick together (the benchmark).
const startAt = Number(env.START_AT ?? 0);
if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
const tickMs = Number(env.MONITOR_TICK_MS ?? 100);
for (;;) {
  const started = performance.now();
  const tick = await scheduler.tick();
  console.log(
    JSON.stringify({
      tick: { claimed: tick.claimed, queued: tick.jobIds.length, skipped: tick.skipped, busy: tick.busy },
      ms: Math.round(performance.now() - started),
      endedAt: Date.now(),
      enqueued: queue.enqueued.length,
    }),
  );
  if (env.ONCE === "1") break;
  await new Promise((resolve) => setTimeout(resolve, tickMs));
}
await database.close();
