import type pg from "pg";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceFor } from "../../../src/db/database.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";

/**
 * A connection the service holds, checked out of the pool, whose server goes away: the process lives on and
 * the holder's next statement fails as a database error (a killed embedded postmaster once ended a service
 * this way: "terminating connection due to unexpected postmaster exit", an "error" event nobody listened to). Real PostgreSQL; the
 * server side ends the backend (pg_terminate_backend sends the same FATAL a dying postmaster does).
 */
let database: TestDatabase;
let dataSource: DataSource;
let admin: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 2);
  admin = dataSourceFor(database.url, 1);
  await Promise.all([dataSource.initialize(), admin.initialize()]);
});
afterAll(async () => {
  await dataSource?.destroy();
  await admin?.destroy();
  await database?.drop();
});

describe("a pooled connection lost while it is checked out", () => {
  it("does not end the process when TypeORM holds it without a listener (its driver's own checkouts)", async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      // The driver's raw checkout (what TypeORM's start-up checks use): pg-pool has taken its idle listener
      // off, and no query runner has put one on.
      const driver = dataSource.driver as unknown as {
        obtainMasterConnection(): Promise<[pg.PoolClient, (error?: Error) => void]>;
      };
      const [client, release] = await driver.obtainMasterConnection();
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(client.query("SELECT 1")).rejects.toThrow();
      release(new Error("lost"));

      expect(uncaught).toEqual([]);
      expect(await dataSource.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      process.off("uncaughtException", record);
    }
  });

  it("does not end the process when it is lost between two statements of a transaction", async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const [row] = (await runner.query("SELECT pg_backend_pid() AS pid")) as Array<{ pid: number }>;
    await admin.query("SELECT pg_terminate_backend($1)", [row!.pid]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(runner.query("SELECT 1")).rejects.toThrow();
    await runner.release().catch(() => undefined);
    expect(await dataSource.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });
});
