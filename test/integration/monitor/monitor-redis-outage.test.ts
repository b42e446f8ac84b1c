import { randomInt } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * The scheduler while Redis (the job queue) is cut: a due product still becomes its
 * one charged job in PostgreSQL; the job waits there, and runs once Redis returns
 * (the maintenance sweep enqueues it). Nothing is lost and nothing runs twice.
 */
const real = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `pmsmonitor-${randomInt(1, 1_000_000_000)}`;
let link: TcpRelay;
let service: ScoringTestApp;

beforeAll(async () => {
  link = new TcpRelay({ host: real.hostname, port: Number(real.port || 6379) });
  await link.open();
  service = await startScoringApp({
    env: { REDIS_URL: `redis://127.0.0.1:${link.port}`, REDIS_PREFIX: prefix, MONITOR_TICK_MS: "200" },
    sweepEveryMs: 500,
  });
});
afterAll(async () => {
  await service?.close();
  await link?.cut();
  const redis = new Redis(real.toString(), { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("monitored runs while Redis is down", () => {
  it("are charged and stored, wait in PostgreSQL, and run once Redis is back", async () => {
    const ada = await keyedMember(service, "ada@monitor-outage.test", "business");
    const [product] = (await sql(
      `INSERT INTO products (account_id, name, url, monitor_interval, monitor_next_run_at)
       VALUES ($1, 'maker.test', $2, 'weekly', now() + interval '2 seconds') RETURNING id`,
      [ada.accountId, service.siteUrl("maker.test").replace(/\/$/, "")],
    )) as Array<{ id: string }>;
    await link.cut();
    const jobs = () =>
      sql(`SELECT id, status FROM score_jobs WHERE product_id = $1`, [product!.id]) as Promise<
        Array<{ id: string; status: string }>
      >;
    const [job] = await until("the job", async () => ((await jobs()).length > 0 ? jobs() : undefined));
    const charges = await sql(`SELECT 1 FROM credit_entries WHERE reference = $1 AND kind = 'spend'`, [
      `job:${job!.id}`,
    ]);
    expect(charges).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await jobs()).toEqual([{ id: job!.id, status: "queued" }]);

    await link.open();
    await until("the job's end", async () => ((await jobs())[0]!.status === "completed" ? true : undefined));
    expect(await jobs()).toEqual([{ id: job!.id, status: "completed" }]);
  });
});
