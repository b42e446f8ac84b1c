import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { dataSourceFor } from "../../../src/db/database.js";
import type { PlanId } from "../../../src/modules/accounts/account.entity.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";

/** A cloned, migrated database of the file's own and a DataSource on it. */
export async function openClonedDatabase(): Promise<{ dataSource: DataSource; close: () => Promise<void> }> {
  const database: TestDatabase = await createTestDatabase();
  const dataSource = dataSourceFor(database.url, 10);
  await dataSource.initialize();
  return {
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** An account (and one member) on `plan`, its billing cycles anchored at `anchor`. */
export async function createAccount(
  dataSource: DataSource,
  plan: PlanId,
  anchor: Date,
): Promise<{ accountId: string; userId: string }> {
  const [account] = (await dataSource.query(
    `INSERT INTO "accounts" ("name", "plan", "billing_cycle_anchor") VALUES ($1, $2, $3) RETURNING "id"`,
    [`${plan} customer`, plan, anchor],
  )) as Array<{ id: string }>;
  const [user] = (await dataSource.query(
    `INSERT INTO "users" ("account_id", "subject", "email") VALUES ($1, $2, $3) RETURNING "id"`,
    [account!.id, randomUUID(), `${randomUUID()}@example.com`],
  )) as Array<{ id: string }>;
  return { accountId: account!.id, userId: user!.id };
}
