import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataSource } from "typeorm";
import { dataSourceFor } from "../../src/db/database.js";
import { toAppError } from "../../src/errors.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { TcpRelay } from "../support/tcp-relay.js";

/**
 * The pool's two waits: for a pooled connection (a burst the rate limits allow queues
 * there) and for a new connection to open (a database that does not answer is an
 * outage, found out in seconds). pg-pool has one setting for both; they must differ.
 */
let database: TestDatabase;
const opened: DataSource[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const dataSource of opened) if (dataSource.isInitialized) await dataSource.destroy();
  await database?.drop();
});

async function open(url: string, poolSize: number, poolWaitMs?: number): Promise<DataSource> {
  const dataSource = poolWaitMs === undefined ? dataSourceFor(url, poolSize) : dataSourceFor(url, poolSize, poolWaitMs);
  opened.push(dataSource);
  return dataSource.initialize();
}

describe("the database pool", () => {
  it("queues a query for a busy pool longer than a connection may take to open, instead of failing it", async () => {
    const dataSource = await open(database.url, 1);
    // The only connection is busy for 4 s, longer than the 3 s a new connection gets to open.
    const busy = dataSource.query("SELECT pg_sleep(4)");
    const queued = dataSource.query("SELECT 1 AS one");
    await expect(queued).resolves.toEqual([{ one: 1 }]);
    await busy;
  });

  it("still takes a database that accepts the connection but never answers as unreachable (503), whatever the pool wait", async () => {
    const real = new URL(database.url);
    const link = new TcpRelay({ host: real.hostname, port: Number(real.port || 5432) });
    await link.open();
    link.stall();
    try {
      const relayed = new URL(database.url);
      relayed.hostname = "127.0.0.1";
      relayed.port = String(link.port);
      // A pool wait far beyond the test's timeout: only the bound on opening a connection can end this.
      const failure = await open(relayed.toString(), 1, 120_000).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(toAppError(failure)).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryable: true });
    } finally {
      await link.cut();
    }
  });
});
