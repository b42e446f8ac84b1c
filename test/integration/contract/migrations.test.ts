import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataSource } from "typeorm";
import { dataSourceFor } from "../../../src/db/database.js";
import { migrations } from "../../../src/db/migrations/index.js";
import { idempotencyKeyDigest } from "../../../src/modules/idempotency/idempotency-seal.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";

let database: TestDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 2);
  await dataSource.initialize();
});
afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe("migrations and entities", () => {
  it("leave nothing for TypeORM to synchronize: the entities describe exactly the migrated schema", async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it("are listed in timestamp order: the order every database applies them in, whichever branch added one", () => {
    const stamps = migrations.map((migration) => Number(/\d{13}$/.exec(migration.name)![0]));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
  });

  it("have no pending migration after start", async () => {
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it("turn the idempotency keys stored before digests into the digests the service looks up", async () => {
    // Back to just before the digests (and whatever came after them).
    const applied = async () =>
      ((await dataSource.query(`SELECT "name" FROM "migrations"`)) as Array<{ name: string }>).map((row) => row.name);
    while ((await applied()).includes("IdempotencyDigests1764900000000")) await dataSource.undoLastMigration();
    await dataSource.query(
      `INSERT INTO "idempotency_keys" ("scope", "key", "operation", "request_hash", "job_id") VALUES ('ip:203.0.113.0', 'order-4711', 'score', 'h', '00000000-0000-4000-8000-000000000001')`,
    );
    await dataSource.runMigrations();
    const rows = (await dataSource.query(`SELECT "key", "sealed_claim_token" FROM "idempotency_keys"`)) as Array<{
      key: string;
      sealed_claim_token: string | null;
    }>;
    expect(rows).toEqual([{ key: idempotencyKeyDigest("order-4711"), sealed_claim_token: null }]);
    await dataSource.query(`DELETE FROM "idempotency_keys"`);
  });

  it("can be reverted and re-applied", async () => {
    for (let i = 0; i < dataSource.migrations.length; i += 1) await dataSource.undoLastMigration();
    expect(await dataSource.showMigrations()).toBe(true);
    await dataSource.runMigrations();
    expect(await dataSource.showMigrations()).toBe(false);
  });
});
