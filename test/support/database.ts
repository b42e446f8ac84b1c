import { randomBytes } from "node:crypto";
import type { DataSource } from "typeorm";
import { inject } from "vitest";
import { dataSourceFor } from "../../src/db/database.js";
import { withClient, withDatabase } from "./global-setup.js";

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of this test file's own, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject("adminDatabaseUrl");
  const template = inject("templateDatabase");
  const name = `pms_t_${template.replace("pms_template_", "")}_${randomBytes(4).toString("hex")}`;
  await withClient(adminUrl, async (client) => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (error) {
        // Two files cloning at the same instant: PostgreSQL refuses the second while the first copies.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  return {
    url: withDatabase(adminUrl, name),
    name,
    drop: () =>
      withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export interface ClonedDatabase {
  /** A pool on the file's own clone of the migrated template. */
  readonly dataSource: DataSource;
  /** Closes the pool and drops the clone. */
  close(): Promise<void>;
}

/** A database of the file's own with a pool on it: what a service test builds its repositories over. */
export async function openClonedDatabase(poolSize = 10): Promise<ClonedDatabase> {
  const database = await createTestDatabase();
  const dataSource = dataSourceFor(database.url, poolSize);
  await dataSource.initialize();
  return {
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
