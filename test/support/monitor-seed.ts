import type pg from "pg";

/**
 * `products` monitored products spread over `accounts` accounts of `plan`, all due
 * (their due times spread over the last minute, as the jitter spreads them), in a
 * handful of statements: the multi-process tests and `bench:schedule` start from it.
 */
export async function seedDueProducts(
  client: pg.Client | pg.Pool,
  { accounts, products, plan = "business" }: { accounts: number; products: number; plan?: string },
): Promise<{ accountIds: string[] }> {
  const created = await client.query<{ id: string }>(
    `INSERT INTO accounts (name, plan, billing_cycle_anchor)
     SELECT 'monitor ' || n, $2, now() FROM generate_series(1, $1) AS n RETURNING id`,
    [accounts, plan],
  );
  const accountIds = created.rows.map((row) => row.id);
  await client.query(
    `INSERT INTO products (account_id, name, url, monitor_interval, monitor_next_run_at)
     SELECT ($1::uuid[])[1 + (n % $3)], 'p' || n, 'https://p' || n || '.monitor.test', 'weekly',
            now() - interval '1 minute' * random()
       FROM generate_series(1, $2) AS n`,
    [accountIds, products, accounts],
  );
  return { accountIds };
}

/** Every monitored product with its number of jobs and of spend entries (the charges of its jobs). */
export async function jobsPerProduct(
  client: pg.Client | pg.Pool,
): Promise<Array<{ id: string; jobs: number; charges: number; due: boolean }>> {
  const { rows } = await client.query<{ id: string; jobs: number; charges: number; due: boolean }>(
    `SELECT p.id,
            (SELECT COUNT(*)::int FROM score_jobs j WHERE j.product_id = p.id) AS jobs,
            (SELECT COUNT(*)::int FROM score_jobs j JOIN credit_entries e ON e.reference = 'job:' || j.id AND e.kind = 'spend'
              WHERE j.product_id = p.id) AS charges,
            p.monitor_next_run_at <= now() AS due
       FROM products p WHERE p.monitor_interval IS NOT NULL`,
  );
  return rows;
}
