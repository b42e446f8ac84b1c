import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../src/db/migrations/index.js";
import { Account } from "../../src/modules/accounts/account.entity.js";
import { startTestApp, type TestApp } from "../support/app.js";

/**
 * The zero-setup default: no DATABASE_URL, so the service starts its own
 * PostgreSQL under DATA_DIR. Runs in CI too, beside the real-server suites.
 */
let dataDir: string;
let service: TestApp | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "pms-embedded-"));
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const start = () => startTestApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });

describe("embedded PostgreSQL (no DATABASE_URL)", () => {
  it("starts, migrates and reports pass on /api/health", async () => {
    service = await start();
    const response = await fetch(`${service.url}/api/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe("pass");
    expect(body.checks.database.detail).toBe("embedded PostgreSQL answered");
    expect(body.checks.environment.detail).toContain("embedded database");

    const applied = await service.app.database.dataSource.query("SELECT name FROM migrations ORDER BY id");
    expect(applied.map((row: { name: string }) => row.name)).toEqual(migrations.map((migration) => migration.name));
    // The password file sits beside the data, readable by its owner only.
    expect((await stat(path.join(dataDir, "postgres.secret"))).mode & 0o077).toBe(0);
  });

  it("gives real transactions and row locks under a pool (SKIP LOCKED skips a locked row)", async () => {
    const { dataSource } = service!.app.database;
    await dataSource.query(
      "INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('lock-a', now()), ('lock-b', now())",
    );
    const holder = dataSource.createQueryRunner();
    const other = dataSource.createQueryRunner();
    await holder.connect();
    await other.connect();
    try {
      await holder.startTransaction();
      const [locked] = await holder.query(
        "SELECT name FROM accounts WHERE name LIKE 'lock-%' ORDER BY name LIMIT 1 FOR UPDATE SKIP LOCKED",
      );
      await other.startTransaction();
      const [next] = await other.query(
        "SELECT name FROM accounts WHERE name LIKE 'lock-%' ORDER BY name LIMIT 1 FOR UPDATE SKIP LOCKED",
      );
      expect(locked.name).toBe("lock-a");
      expect(next.name).toBe("lock-b");
      await other.rollbackTransaction();
      await holder.rollbackTransaction();
    } finally {
      await holder.release();
      await other.release();
    }
  });

  it("keeps its data across a restart", async () => {
    const accounts = service!.app.database.dataSource.getRepository(Account);
    const saved = await accounts.save(accounts.create({ name: "Survivor Inc", billingCycleAnchor: new Date("2026-01-01T00:00:00Z") }));
    await service!.close();

    service = await start();
    const reloaded = await service.app.database.dataSource.getRepository(Account).findOneByOrFail({ id: saved.id });
    expect(reloaded).toMatchObject({ name: "Survivor Inc", plan: "free" });
    expect(reloaded.billingCycleAnchor.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    const response = await fetch(`${service.url}/api/health`);
    expect((await response.json()).status).toBe("pass");
  });
});
