import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { drainCredits, keyedMember } from "../../support/api-key.js";
import { apiClient, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { WebhookReceiver, type ReceivedWebhook } from "../../support/webhook-receiver.js";

/**
 * The monitor scheduler inside a real service (MONITOR_TICK_MS 200): due products
 * become charged product jobs that really crawl the fixture sites; an account that
 * cannot pay gets `monitor.skipped`; a monitored product whose total moved 5 points
 * or more gets `score.changed`, delivered to an HTTPS receiver and verified with the
 * published Standard Webhooks library.
 */
let service: ScoringTestApp;
let receiver: WebhookReceiver;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  receiver = await new WebhookReceiver(inject("testTls")).start();
  service = await startScoringApp({
    env: { MONITOR_TICK_MS: "200" },
    webhooks: { jitter: 0, pollMs: 200 },
  });
  api = apiClient(service);
});
afterAll(async () => {
  await service?.close();
  await receiver?.stop();
});

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);
const DAY = 24 * 60 * 60 * 1000;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function productOf(caller: Caller, url: string): Promise<string> {
  const [row] = (await sql(`INSERT INTO products (account_id, name, url) VALUES ($1, $2, $3) RETURNING id`, [
    caller.accountId,
    new URL(url).hostname,
    url.replace(/\/$/, ""),
  ])) as Array<{ id: string }>;
  return row!.id;
}

/** Monitored weekly and due `agoMs` ago. */
const makeDue = (productId: string, agoMs = 60_000) =>
  sql(
    `UPDATE products SET monitor_interval = 'weekly', monitor_next_run_at = now() - ($2 || ' milliseconds')::interval WHERE id = $1`,
    [productId, String(agoMs)],
  );

const jobsOf = (productId: string) =>
  sql(`SELECT id, kind, status, account_id FROM score_jobs WHERE product_id = $1 ORDER BY created_at`, [
    productId,
  ]) as Promise<Array<{ id: string; kind: string; status: string; account_id: string }>>;

async function webhookFor(caller: Caller & { apiKey: string }, path: string, events: string[]): Promise<string> {
  const created = await api("/api/webhooks", {
    method: "POST",
    bearer: caller.apiKey,
    body: { url: receiver.url(path), events },
  });
  expect(created.status).toBe(201);
  return (await created.json()).webhook.secret as string;
}

const verify = (secret: string, request: ReceivedWebhook) =>
  new StandardWebhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  }) as { type: string; timestamp: string; data: Record<string, any> };

const deliveredTo = (path: string) => receiver.received.filter((request) => request.path === path);

describe("the monitor scheduler", () => {
  it("turns each due product into exactly one charged product job, and moves it one period on (missed periods skipped)", async () => {
    const ada = await keyedMember(service, "ada@monitor-run.test", "business");
    const first = await productOf(ada, service.siteUrl("growing.test"));
    const second = await productOf(ada, service.siteUrl("seed.test"));
    const notDue = await productOf(ada, service.siteUrl("maker.test"));
    await sql(
      `UPDATE products SET monitor_interval = 'weekly', monitor_next_run_at = now() + interval '1 day' WHERE id = $1`,
      [notDue],
    );
    await makeDue(first);
    // Due three periods ago: one run, not three.
    await makeDue(second, 3 * 7 * DAY + 60_000);

    for (const id of [first, second]) {
      const [job] = await until("a job", async () => ((await jobsOf(id)).length > 0 ? jobsOf(id) : undefined));
      expect(job).toMatchObject({ kind: "product", account_id: ada.accountId });
      const charges = await sql(`SELECT amount_tenths FROM credit_entries WHERE reference = $1 AND kind = 'spend'`, [
        `job:${job!.id}`,
      ]);
      expect(charges.map((row: { amount_tenths: string | number }) => Number(row.amount_tenths))).toEqual([-100]);
      await until(
        "the job's end",
        async () => ((await jobsOf(id))[0]!.status === "completed" ? true : undefined),
        60_000,
      );
    }
    // Several ticks later: still one job each, none for the product not yet due.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await jobsOf(first)).toHaveLength(1);
    expect(await jobsOf(second)).toHaveLength(1);
    expect(await jobsOf(notDue)).toHaveLength(0);
    const rows = (await sql(`SELECT id, monitor_next_run_at FROM products WHERE id = ANY($1)`, [
      [first, second],
    ])) as Array<{
      id: string;
      monitor_next_run_at: Date;
    }>;
    for (const row of rows) {
      const ahead = row.monitor_next_run_at.getTime() - Date.now();
      expect(ahead).toBeGreaterThan(7 * DAY - 5 * 60_000);
      expect(ahead).toBeLessThanOrEqual(7 * DAY);
    }
    // The product view shows the run's total in its trend.
    const view = await (await api(`/api/products/${first}`, { bearer: ada.apiKey })).json();
    expect(view.trend).toHaveLength(1);
    expect(view.trend[0]).toMatchObject({ resultId: view.results[0].id, total: view.results[0].totalScore });
  });

  it("skips a run the account cannot pay for, with a signed monitor.skipped delivery and nothing charged", async () => {
    const bea = await keyedMember(service, "bea@monitor-run.test", "business");
    const secret = await webhookFor(bea, "/bea", ["monitor.skipped"]);
    const id = await productOf(bea, service.siteUrl("early.test"));
    await drainCredits(service, bea, 50);
    const before = await sql(`SELECT COUNT(*)::int AS n FROM credit_entries WHERE account_id = $1`, [bea.accountId]);
    await makeDue(id);

    const [request] = await until("a monitor.skipped delivery", async () => {
      const got = deliveredTo("/bea");
      return got.length > 0 ? got : undefined;
    });
    const event = verify(secret, request!);
    expect(event.type).toBe("monitor.skipped");
    expect(event.data).toEqual({
      productId: id,
      url: service.siteUrl("early.test").replace(/\/$/, ""),
      dueAt: expect.any(String),
      reason: "credits_exhausted",
      creditsNeeded: 10,
      creditsAvailable: 5,
    });
    expect(await jobsOf(id)).toHaveLength(0);
    const after = await sql(`SELECT COUNT(*)::int AS n FROM credit_entries WHERE account_id = $1`, [bea.accountId]);
    expect(after[0].n).toBe(before[0].n);
    // The schedule moved on: one event per period, not one per tick.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(deliveredTo("/bea")).toHaveLength(1);
  });

  it("sends score.changed when a monitored product's total moves 5 points, and nothing below that", async () => {
    const cai = await keyedMember(service, "cai@monitor-run.test", "business");
    const secret = await webhookFor(cai, "/cai", ["score.changed"]);
    const url = service.siteUrl("leader.test");
    const scored = await api("/api/score/product", { method: "POST", bearer: cai.apiKey, body: { url } });
    expect(scored.status).toBe(200);
    const firstResult = await scored.json();
    const productId = firstResult.productId as string;
    expect(
      (
        await api(`/api/products/${productId}`, {
          method: "PATCH",
          bearer: cai.apiKey,
          body: { monitor: { interval: "weekly" } },
        })
      ).status,
    ).toBe(200);
    // A not monitored product's first score sent nothing; make the stored total 10 lower, so the re-score moves +10.
    const [stored] = await sql(`SELECT id, total_score, stage_name FROM score_results WHERE product_id = $1`, [
      productId,
    ]);
    await sql(`UPDATE score_results SET total_score = total_score - 10 WHERE id = $1`, [stored.id]);
    await makeDue(productId);

    const [request] = await until(
      "a score.changed delivery",
      async () => {
        const got = deliveredTo("/cai");
        return got.length > 0 ? got : undefined;
      },
      60_000,
    );
    const event = verify(secret, request!);
    expect(event.type).toBe("score.changed");
    expect(event.data).toMatchObject({
      productId,
      previousResultId: stored.id,
      previousTotal: stored.total_score - 10,
      total: stored.total_score,
      totalDelta: 10,
      previousStage: stored.stage_name,
      stage: stored.stage_name,
      frameworkVersion: expect.any(String),
    });
    expect(event.data.resultId).not.toBe(stored.id);
    expect(event.data.shareUrl).toMatch(new RegExp(`/r/${event.data.resultId}$`));

    // 4 points: below the threshold, same stage: no event.
    await sql(`UPDATE score_results SET total_score = total_score - 4 WHERE id = $1`, [event.data.resultId]);
    await makeDue(productId);
    await until(
      "the second re-score",
      async () => {
        const jobs = await jobsOf(productId);
        return jobs.length === 3 && jobs[2]!.status === "completed" ? true : undefined;
      },
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const changed = await sql(
      `SELECT COUNT(*)::int AS n FROM domain_events WHERE account_id = $1 AND type = 'score.changed'`,
      [cai.accountId],
    );
    expect(changed[0].n).toBe(1);
    expect(deliveredTo("/cai")).toHaveLength(1);
  });
});
