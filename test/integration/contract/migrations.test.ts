import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataSource } from "typeorm";
import { dataSourceFor } from "../../../src/db/database.js";
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

  it("have no pending migration after start", async () => {
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it("can be reverted and re-applied", async () => {
    for (let i = 0; i < dataSource.migrations.length; i += 1) await dataSource.undoLastMigration();
    expect(await dataSource.showMigrations()).toBe(true);
    await dataSource.runMigrations();
    expect(await dataSource.showMigrations()).toBe(false);
  });
});
