import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { jitterMs } from "../../../src/modules/products/monitor-schedule.js";

/**
 * PATCH /api/products/{id} and updateProduct (docs/api.md §13): the schedule and the
 * badge switch through both doors, the plan's monitored products (also under
 * concurrent changes), and another account's product answering 404.
 */
let service: TestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;

beforeAll(async () => {
  // No scheduler here: these tests read the schedule, nothing runs it.
  service = await startTestApp({ MONITOR_TICK_MS: "0" });
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(async () => {
  await service?.close();
});

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);
const DAY = 24 * 60 * 60 * 1000;

async function member(email: string, plan: string): Promise<Caller> {
  const caller = await signIn(service, email);
  await sql("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, caller.accountId]);
  return caller;
}

async function productOf(caller: Caller, host: string): Promise<string> {
  const [row] = (await sql(`INSERT INTO products (account_id, name, url) VALUES ($1, $2, $3) RETURNING id`, [
    caller.accountId,
    host,
    `https://${host}`,
  ])) as Array<{ id: string }>;
  return row!.id;
}

const patch = (caller: Caller, id: string, body: unknown) =>
  api(`/api/products/${id}`, { method: "PATCH", cookie: caller.cookie, body });

describe("PATCH /api/products/{id}", () => {
  it("turns monitoring on (first due one period out plus the product's jitter), keeps it on a repeat, stops it", async () => {
    const ada = await member("ada@monitor-settings.test", "pro");
    const id = await productOf(ada, "ada.test");
    const before = Date.now();
    const on = await patch(ada, id, { monitor: { interval: "weekly" } });
    expect(on.status).toBe(200);
    const { product } = await on.json();
    expect(product).toMatchObject({
      id,
      url: "https://ada.test",
      publicBadge: false,
      monitor: { interval: "weekly" },
      trend: [],
    });
    const due = Date.parse(product.monitor.nextRunAt);
    const expected = 7 * DAY + jitterMs(id, "weekly");
    expect(due - before).toBeGreaterThanOrEqual(expected - 1);
    expect(due - Date.now()).toBeLessThanOrEqual(expected + 1);
    expect(jitterMs(id, "weekly")).toBeLessThan(0.7 * DAY + 1);

    // The same interval again (a retried PATCH) keeps the due time.
    const again = await (await patch(ada, id, { monitor: { interval: "weekly" } })).json();
    expect(again.product.monitor.nextRunAt).toBe(product.monitor.nextRunAt);

    const read = await (await api(`/api/products/${id}`, { cookie: ada.cookie })).json();
    expect(read).toMatchObject({ id, monitor: product.monitor, publicBadge: false, trend: [], results: [] });

    const monthly = await (await patch(ada, id, { monitor: { interval: "monthly" } })).json();
    expect(monthly.product.monitor.interval).toBe("monthly");
    expect(Date.parse(monthly.product.monitor.nextRunAt) - Date.now()).toBeGreaterThan(29 * DAY);

    const badge = await (await patch(ada, id, { publicBadge: true })).json();
    expect(badge.product).toMatchObject({ publicBadge: true, monitor: { interval: "monthly" } });

    const off = await (await patch(ada, id, { monitor: null })).json();
    expect(off.product).toMatchObject({ monitor: null, publicBadge: true });
    const [row] = await sql(`SELECT monitor_interval, monitor_next_run_at, public_badge FROM products WHERE id = $1`, [
      id,
    ]);
    expect(row).toEqual({ monitor_interval: null, monitor_next_run_at: null, public_badge: true });
  });

  it("works with an API key and through GraphQL updateProduct the same way", async () => {
    const bea = await keyedMember(service, "bea@monitor-settings.test", "business");
    const id = await productOf(bea, "bea.test");
    const viaKey = await api(`/api/products/${id}`, {
      method: "PATCH",
      bearer: bea.apiKey,
      body: { monitor: { interval: "monthly" }, publicBadge: true },
    });
    expect(viaKey.status).toBe(200);
    expect((await viaKey.json()).product).toMatchObject({ monitor: { interval: "monthly" }, publicBadge: true });

    const answer = await graphql(
      `
        mutation ($id: ID!) {
          updateProduct(id: $id, input: { monitor: null, publicBadge: false }) {
            id
            monitor {
              interval
            }
            publicBadge
          }
        }
      `,
      { id },
      { bearer: bea.apiKey },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.updateProduct).toEqual({ id, monitor: null, publicBadge: false });
    const read = await graphql(
      `
        query ($id: ID!) {
          product(id: $id) {
            monitor {
              interval
              nextRunAt
            }
            publicBadge
            trend(limit: 52) {
              total
            }
          }
        }
      `,
      { id },
      { bearer: bea.apiKey },
    );
    expect(read.data?.product).toEqual({ monitor: null, publicBadge: false, trend: [] });
  });

  it("refuses bad input with VALIDATION_FAILED naming the field, and charges nothing", async () => {
    const cai = await member("cai@monitor-settings.test", "pro");
    const id = await productOf(cai, "cai.test");
    for (const body of [
      { monitor: { interval: "daily" } },
      { monitor: "weekly" },
      { monitor: { interval: "weekly", extra: 1 } },
      { publicBadge: "yes" },
      { owner: "me" },
    ]) {
      const response = await patch(cai, id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = await response.json();
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.param, JSON.stringify(body)).toMatch(/^(monitor|interval|publicBadge|owner)/);
    }
    const trend = await api(`/api/products/${id}?trend=53`, { cookie: cai.cookie });
    expect(trend.status).toBe(400);
    expect((await trend.json()).error.code).toBe("VALIDATION_FAILED");
  });

  it("answers 404 for another account's product, an unknown id and a malformed one, changing nothing", async () => {
    const dan = await member("dan@monitor-settings.test", "pro");
    const eve = await member("eve@monitor-settings.test", "pro");
    const dans = await productOf(dan, "dan.test");
    for (const id of [dans, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const response = await patch(eve, id, { monitor: { interval: "weekly" } });
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe("NOT_FOUND");
    }
    const [row] = await sql(`SELECT monitor_interval FROM products WHERE id = $1`, [dans]);
    expect(row.monitor_interval).toBeNull();
  });

  it("counts monitored products against the plan: Free none, Pro 5; stopping one frees its place", async () => {
    const fay = await member("fay@monitor-settings.test", "free");
    const free = await patch(fay, await productOf(fay, "fay.test"), { monitor: { interval: "weekly" } });
    expect(free.status).toBe(402);
    const refused = (await free.json()).error;
    expect(refused).toMatchObject({ code: "PLAN_LIMIT_REACHED", param: "monitor" });
    expect(refused.action).toMatch(/Upgrade/);

    const gus = await member("gus@monitor-settings.test", "pro");
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await productOf(gus, `gus${i}.test`));
    for (const id of ids.slice(0, 5))
      expect((await patch(gus, id, { monitor: { interval: "weekly" } })).status).toBe(200);
    const sixth = await patch(gus, ids[5]!, { monitor: { interval: "monthly" } });
    expect(sixth.status).toBe(402);
    expect((await sixth.json()).error.code).toBe("PLAN_LIMIT_REACHED");
    // Changing the period of a monitored one is not a new one; the badge needs no place.
    expect((await patch(gus, ids[0]!, { monitor: { interval: "monthly" } })).status).toBe(200);
    expect((await patch(gus, ids[5]!, { publicBadge: true })).status).toBe(200);
    expect((await patch(gus, ids[1]!, { monitor: null })).status).toBe(200);
    expect((await patch(gus, ids[5]!, { monitor: { interval: "monthly" } })).status).toBe(200);
  });

  it("never passes the limit under concurrent PATCHes: exactly the plan's 5 of 12 succeed", async () => {
    const hal = await member("hal@monitor-settings.test", "pro");
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await productOf(hal, `hal${i}.test`));
    const answers = await Promise.all(ids.map((id) => patch(hal, id, { monitor: { interval: "weekly" } })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 402)).toHaveLength(7);
    const [count] = await sql(
      `SELECT COUNT(*)::int AS n FROM products WHERE account_id = $1 AND monitor_interval IS NOT NULL`,
      [hal.accountId],
    );
    expect(count.n).toBe(5);
  });
});
