import { apiClient, signIn, type Caller } from "./http.js";
import type { TestApp } from "./app.js";

/** A member of a new account on `plan` (Business by default: API keys need it) and one API key of it. */
export async function keyedMember(
  service: TestApp,
  email: string,
  plan = "business",
): Promise<Caller & { apiKey: string }> {
  const caller = await signIn(service, email);
  await service.app.database.dataSource.query("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, caller.accountId]);
  const created = await apiClient(service)("/api/keys", {
    method: "POST",
    cookie: caller.cookie,
    body: { name: "client tests" },
  });
  if (created.status !== 201) throw new Error(`POST /api/keys answered ${created.status}: ${await created.text()}`);
  const { secret } = (await created.json()) as { secret: string };
  return { ...caller, apiKey: secret };
}

/**
 * Spends all but `leaveTenths` tenths of the account's plan credits, as the ledger
 * would (one spend entry and the balance row), so a real request meets CREDIT_EXHAUSTED.
 */
export async function drainCredits(
  service: TestApp,
  caller: Caller & { apiKey: string },
  leaveTenths = 0,
): Promise<void> {
  // One API call opens the cycle (its grant).
  await apiClient(service)("/api/usage", { bearer: caller.apiKey });
  const sql = (text: string, values: unknown[]) => service.app.database.dataSource.query(text, values);
  const [balance] = (await sql("SELECT plan_balance FROM credit_balances WHERE account_id = $1", [
    caller.accountId,
  ])) as Array<{ plan_balance: string | number }>;
  const amount = Number(balance!.plan_balance) - leaveTenths;
  await sql(
    `INSERT INTO credit_entries (account_id, kind, bucket, amount_tenths, action, reference, cycle_start)
     SELECT $1, 'spend', 'plan', $2, 'chat', 'filler', cycle_start FROM credit_entries WHERE account_id = $1 AND kind = 'grant' LIMIT 1`,
    [caller.accountId, -amount],
  );
  await sql(
    `UPDATE credit_balances SET plan_balance = plan_balance - $2, plan_used = plan_used + $2, chat_count = chat_count + 1 WHERE account_id = $1`,
    [caller.accountId, amount],
  );
}
