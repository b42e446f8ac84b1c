import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import type { PlanId } from "../../../src/modules/accounts/account.entity.js";

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
