import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { WebhookReceiver, type ReceivedWebhook } from "../../support/webhook-receiver.js";

/**
 * Webhooks end to end: subscriptions over REST and GraphQL, and deliveries to a real
 * HTTPS receiver (a certificate of the run's CA, trusted through NODE_EXTRA_CA_CERTS)
 * verified with the published Standard Webhooks library, not with the service's code.
 */
let service: ScoringTestApp;
let receiver: WebhookReceiver;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;
let offsetMs = 0;

beforeAll(async () => {
  receiver = await new WebhookReceiver(inject("testTls")).start();
  service = await startScoringApp({
    env: { SSRF_ALLOWLIST: "127.0.0.1/32,*.test" },
    webhooks: { clock: () => new Date(Date.now() + offsetMs), jitter: 0, pollMs: 200 },
  });
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(async () => {
  await service?.close();
  await receiver?.stop();
});

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);
const create = (caller: Caller, body: unknown) => api("/api/webhooks", { method: "POST", cookie: caller.cookie, body });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});
/** The Standard Webhooks verifier's view of a request: throws unless the signature is right. */
const verify = (secret: string, request: ReceivedWebhook) =>
  new StandardWebhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };

describe("webhook subscriptions", () => {
  it("creates over REST (secret once, score.completed by default), reads and changes over both doors, deletes", async () => {
    const ada = await signIn(service, "ada@hooks.test");
    const created = await create(ada, { url: receiver.url("/ada") });
    expect(created.status).toBe(201);
    const { webhook } = await created.json();
    expect(webhook).toMatchObject({
      accountId: ada.accountId,
      url: receiver.url("/ada"),
      events: ["score.completed"],
      enabled: true,
    });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await (await api(`/api/webhooks/${webhook.id}`, { cookie: ada.cookie })).json();
    expect(read.webhook).toEqual({
      id: webhook.id,
      accountId: ada.accountId,
      url: webhook.url,
      events: ["score.completed"],
      enabled: true,
      disabledReason: null,
      createdAt: webhook.createdAt,
    });
    const listed = await (await api("/api/webhooks", { cookie: ada.cookie })).json();
    expect(listed.webhooks.map((item: { id: string }) => item.id)).toEqual([webhook.id]);
    expect(JSON.stringify([read, listed])).not.toContain(webhook.secret);

    const patched = await api(`/api/webhooks/${webhook.id}`, {
      method: "PATCH",
      cookie: ada.cookie,
      body: { events: ["score.completed", "subscription.changed"], enabled: false },
    });
    expect((await patched.json()).webhook).toMatchObject({
      events: ["score.completed", "subscription.changed"],
      enabled: false,
    });
    const viaGraphql = await graphql(
      `
        query {
          webhooks {
            webhooks {
              id
              events
              enabled
            }
          }
        }
      `,
      {},
      { cookie: ada.cookie },
    );
    expect(viaGraphql.data).toEqual({
      webhooks: { webhooks: [{ id: webhook.id, events: ["score.completed", "subscription.changed"], enabled: false }] },
    });

    expect((await api(`/api/webhooks/${webhook.id}`, { method: "DELETE", cookie: ada.cookie })).status).toBe(204);
    expect((await api(`/api/webhooks/${webhook.id}`, { cookie: ada.cookie })).status).toBe(404);
  });

  it("pages a webhook's delivery log one delivery at a time, every page after the first included", async () => {
    const ida = await signIn(service, "ida@hooks.test");
    const { webhook } = await (await create(ida, { url: receiver.url("/ida") })).json();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const test = await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: ida.cookie });
      expect(test.status).toBe(202);
      sent.push((await test.json()).delivery.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (
        await api(`/api/webhooks/${webhook.id}/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ""}`, {
          cookie: ida.cookie,
        })
      ).json()) as { deliveries: Array<{ id: string }>; nextCursor: string | null };
      expect(page.deliveries).toHaveLength(1);
      seen.push(page.deliveries[0]!.id);
      cursor = page.nextCursor;
    } while (cursor && seen.length < 5);
    expect(seen).toEqual([...sent].reverse());
  });

  it("refuses a non-HTTPS, private, overlong or malformed url and unknown event kinds with 400 naming the field", async () => {
    const bo = await signIn(service, "bo@hooks.test");
    const refused = async (body: unknown) => errorOf(await create(bo, body));
    expect(await refused({ url: "http://127.0.0.1/hook" })).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/^url: .*https/),
    });
    expect(await refused({ url: "https://10.0.0.5/hook" })).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/^url: /),
    });
    expect(await refused({ url: "https://169.254.169.254/latest" })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^url: /),
    });
    expect(await refused({ url: `https://example.com/${"a".repeat(2_040)}` })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^url: .*2048/),
    });
    expect(await refused({ url: "not a url" })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^url: /),
    });
    expect(await refused({ url: receiver.url(), events: ["score.started"] })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^events: /),
    });
    expect((await sql(`SELECT count(*)::int AS n FROM webhooks WHERE account_id = $1`, [bo.accountId]))[0].n).toBe(0);
  });

  it("allows 10 per account (the 11th is 402) and hides another account's webhooks (404)", async () => {
    const cy = await signIn(service, "cy@hooks.test");
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1)
      ids.push((await (await create(cy, { url: receiver.url(`/cy/${i}`) })).json()).webhook.id);
    expect(await errorOf(await create(cy, { url: receiver.url("/cy/11") }))).toMatchObject({
      status: 402,
      code: "PLAN_LIMIT_REACHED",
    });
    const eve = await signIn(service, "eve@hooks.test");
    expect((await api(`/api/webhooks/${ids[0]}`, { cookie: eve.cookie })).status).toBe(404);
    expect((await api(`/api/webhooks/${ids[0]}`, { method: "DELETE", cookie: eve.cookie })).status).toBe(404);
    expect(
      (await api(`/api/webhooks/${ids[0]}`, { method: "PATCH", cookie: eve.cookie, body: { enabled: false } })).status,
    ).toBe(404);
    expect((await api(`/api/webhooks/${ids[0]}`, { cookie: cy.cookie })).status).toBe(200);
  });
});

describe("webhook delivery", () => {
  it("delivers score.completed after a real score, signed so the Standard Webhooks verifier accepts it", async () => {
    const dee = await signIn(service, "dee@hooks.test");
    const { webhook } = await (await create(dee, { url: receiver.url("/dee") })).json();
    const before = receiver.received.length;
    const scored = await api("/api/score/quick", {
      method: "POST",
      cookie: dee.cookie,
      body: { url: service.siteUrl("leader.test") },
    });
    expect(scored.status).toBe(200);
    const result = await scored.json();
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    expect(request!.path).toBe("/dee");
    const payload = verify(webhook.secret, request!);
    expect(payload.type).toBe("score.completed");
    expect(payload.data).toMatchObject({
      id: result.id,
      url: result.url,
      totalScore: result.totalScore,
      stageName: result.stageName,
      frameworkVersion: result.frameworkVersion,
    });
    expect(payload.data.shareUrl).toBe(`${service.config.publicBaseUrl}/r/${result.id}`);
    // A tampered body fails the same verifier.
    expect(() =>
      verify(webhook.secret, { ...request!, body: request!.body.replace(/"totalScore":\d+/, '"totalScore":100') }),
    ).toThrow();

    const log = await (await api(`/api/webhooks/${webhook.id}/deliveries`, { cookie: dee.cookie })).json();
    await expect
      .poll(
        async () =>
          (await (await api(`/api/webhooks/${webhook.id}/deliveries`, { cookie: dee.cookie })).json()).deliveries[0]
            .status,
      )
      .toBe("delivered");
    expect(log.deliveries[0]).toMatchObject({ eventId: request!.headers["webhook-id"], eventType: "score.completed" });
    // The secret is in no delivery row.
    expect(
      JSON.stringify(await sql(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id])),
    ).not.toContain(webhook.secret.slice(6));
  });

  it("delivers subscription.changed after a local checkout", async () => {
    const fay = await signIn(service, "fay@hooks.test");
    const { webhook } = await (
      await create(fay, { url: receiver.url("/fay"), events: ["subscription.changed"] })
    ).json();
    const before = receiver.received.length;
    const { sessionId } = await (
      await api("/api/billing/checkout", { method: "POST", cookie: fay.cookie, body: { plan: "pro" } })
    ).json();
    expect((await api(`/dev/checkout/${sessionId}/complete`, { method: "POST" })).status).toBe(200);
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    const payload = verify(webhook.secret, request!);
    expect(payload).toMatchObject({
      type: "subscription.changed",
      data: { accountId: fay.accountId, previousPlan: "free", plan: "pro", effectiveAt: expect.any(String) },
    });
  });

  it("retries a 500 with the same webhook-id after the first backoff step, and stops at a 2xx", async () => {
    const gus = await signIn(service, "gus@hooks.test");
    const { webhook } = await (await create(gus, { url: receiver.url("/gus") })).json();
    let calls = 0;
    receiver.answer = (request) =>
      request.path === "/gus" && ++calls === 1 ? { status: 500, body: "busy" } : { status: 200, body: "ok" };
    try {
      const before = receiver.received.length;
      expect((await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: gus.cookie })).status).toBe(202);
      const [first] = (await receiver.waitFor(before + 1)).slice(before);
      await expect
        .poll(
          async () =>
            (
              await sql(
                `SELECT last_status_code, status, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1`,
                [webhook.id],
              )
            )[0]?.last_status_code,
        )
        .toBe(500);
      const [pending] = await sql(
        `SELECT status, attempts, next_attempt_at, last_response_body FROM webhook_deliveries WHERE webhook_id = $1`,
        [webhook.id],
      );
      expect(pending).toMatchObject({ status: "pending", attempts: 1, last_response_body: "busy" });
      // Nothing before the backoff is due; move the dispatcher's clock past 5 s.
      offsetMs += 6_000;
      service.app.webhooks.wake();
      const [second] = (await receiver.waitFor(before + 2)).slice(before + 1);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
      expect(Number(second!.headers["webhook-timestamp"])).toBeGreaterThan(Number(first!.headers["webhook-timestamp"]));
      expect(verify(webhook.secret, second!).type).toBe("webhook.test");
      await expect
        .poll(
          async () =>
            (await sql(`SELECT status FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id]))[0].status,
        )
        .toBe("delivered");
      // Both attempts are in the process's metrics.
      const counted = await service.app.metrics.webhookDeliveries.get();
      const value = (outcome: string) => counted.values.find((entry) => entry.labels.outcome === outcome)?.value ?? 0;
      expect(value("retry")).toBeGreaterThanOrEqual(1);
      expect(value("delivered")).toBeGreaterThanOrEqual(1);
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
    }
  });

  it("follows the backoff schedule over about a day and gives up after 8 attempts; a webhook failing for 5 days is disabled", async () => {
    const kit = await signIn(service, "kit@hooks.test");
    const { webhook } = await (await create(kit, { url: receiver.url("/kit") })).json();
    receiver.answer = (request) =>
      request.path === "/kit" ? { status: 503, body: "down" } : { status: 200, body: "ok" };
    const row = async () =>
      (
        await sql(`SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1`, [
          webhook.id,
        ])
      )[0];
    try {
      await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: kit.cookie });
      const waits: number[] = [];
      for (let attempt = 1; attempt <= 8; attempt += 1) {
        await expect
          .poll(
            async () =>
              (await row()).attempts === attempt &&
              (await row()).next_attempt_at !== undefined &&
              (await row()).status !== undefined,
          )
          .toBe(true);
        await expect
          .poll(
            async () =>
              (await sql(`SELECT lease_token FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id]))[0]
                .lease_token,
          )
          .toBeNull();
        const current = await row();
        if (attempt < 8) {
          expect(current.status).toBe("pending");
          const wait = new Date(current.next_attempt_at).getTime() - (Date.now() + offsetMs);
          waits.push(wait);
          offsetMs += wait + 1_000;
          service.app.webhooks.wake();
        } else {
          expect(current).toMatchObject({ status: "failed", next_attempt_at: null });
        }
      }
      // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (no jitter in this test), give or take the test's own time.
      const expected = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
      waits.forEach((wait, i) => expect(Math.abs(wait - expected[i]!)).toBeLessThan(3_000));
      expect(receiver.received.filter((request) => request.path === "/kit")).toHaveLength(8);

      // The receiver is fixed: a replay from the delivery log (REST), seen in the log over GraphQL.
      receiver.answer = () => ({ status: 200, body: "ok" });
      const [failed] = (await (await api(`/api/webhooks/${webhook.id}/deliveries`, { cookie: kit.cookie })).json())
        .deliveries;
      const replay = await api(`/api/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, {
        method: "POST",
        cookie: kit.cookie,
      });
      expect(replay.status).toBe(202);
      await expect.poll(async () => (await row()).status).toBe("delivered");
      const log = await graphql(
        `
          query ($id: ID!) {
            webhook(id: $id) {
              deliveries(limit: 5) {
                deliveries {
                  id
                  status
                  attempts
                  lastStatusCode
                }
                nextCursor
              }
            }
          }
        `,
        { id: webhook.id },
        { cookie: kit.cookie },
      );
      expect(log.data).toEqual({
        webhook: {
          deliveries: {
            deliveries: [{ id: failed.id, status: "delivered", attempts: 9, lastStatusCode: 200 }],
            nextCursor: null,
          },
        },
      });
      expect(
        (
          await api(`/api/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, {
            method: "POST",
            cookie: (await signIn(service, "mallory@hooks.test")).cookie,
          })
        ).status,
      ).toBe(404);
      receiver.answer = (request) =>
        request.path === "/kit" ? { status: 503, body: "down" } : { status: 200, body: "ok" };

      // Failing since 5 days ago: the next failure disables the webhook and records why.
      await sql(`UPDATE webhooks SET failing_since = $2 WHERE id = $1`, [
        webhook.id,
        new Date(Date.now() + offsetMs - 5 * 24 * 3_600_000 - 1_000),
      ]);
      await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: kit.cookie });
      await expect
        .poll(
          async () =>
            (await (await api(`/api/webhooks/${webhook.id}`, { cookie: kit.cookie })).json()).webhook.disabledReason,
        )
        .toMatch(/5 days/);
      const [notice] = await sql(`SELECT data FROM domain_events WHERE account_id = $1 AND type = 'webhook.disabled'`, [
        kit.accountId,
      ]);
      expect(notice.data).toMatchObject({ webhookId: webhook.id, reason: expect.stringMatching(/5 days/) });
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
      // Back to the present for the tests after this one (nothing of this webhook is pending).
      offsetMs = 0;
    }
  });

  it("does not follow a redirect, and disables the webhook at once on 410 Gone", async () => {
    const hal = await signIn(service, "hal@hooks.test");
    const moved = (await (await create(hal, { url: receiver.url("/moved") })).json()).webhook;
    const gone = (await (await create(hal, { url: receiver.url("/gone") })).json()).webhook;
    receiver.answer = (request) =>
      request.path === "/moved"
        ? { status: 302, headers: { location: receiver.url("/elsewhere") } }
        : request.path === "/gone"
          ? { status: 410 }
          : { status: 200 };
    try {
      await api(`/api/webhooks/${moved.id}/test`, { method: "POST", cookie: hal.cookie });
      await api(`/api/webhooks/${gone.id}/test`, { method: "POST", cookie: hal.cookie });
      await expect
        .poll(
          async () => (await (await api(`/api/webhooks/${gone.id}`, { cookie: hal.cookie })).json()).webhook.enabled,
        )
        .toBe(false);
      expect(
        (await (await api(`/api/webhooks/${gone.id}`, { cookie: hal.cookie })).json()).webhook.disabledReason,
      ).toMatch(/410/);
      await expect
        .poll(
          async () =>
            (await sql(`SELECT last_error FROM webhook_deliveries WHERE webhook_id = $1`, [moved.id]))[0]?.last_error,
        )
        .toMatch(/redirect 302 not followed/);
      expect(receiver.received.filter((request) => request.path === "/elsewhere")).toEqual([]);
      expect(
        (
          await sql(`SELECT type FROM domain_events WHERE account_id = $1 AND type = 'webhook.disabled'`, [
            hal.accountId,
          ])
        ).length,
      ).toBe(1);
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
    }
  });

  it("signs with both secrets for 24 hours after a rotation", async () => {
    const ivy = await signIn(service, "ivy@hooks.test");
    const { webhook } = await (await create(ivy, { url: receiver.url("/ivy") })).json();
    const rotated = await (
      await api(`/api/webhooks/${webhook.id}/rotate-secret`, { method: "POST", cookie: ivy.cookie })
    ).json();
    expect(rotated.webhook.secret).not.toBe(webhook.secret);
    const before = receiver.received.length;
    await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: ivy.cookie });
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(rotated.webhook.secret, request!).type).toBe("webhook.test");
    expect(verify(webhook.secret, request!).type).toBe("webhook.test");
  });

  it("keeps events recorded while a webhook is disabled as paused deliveries, and sends them once it is enabled again", async () => {
    const jo = await signIn(service, "jo@hooks.test");
    const { webhook } = await (await create(jo, { url: receiver.url("/jo"), events: ["subscription.changed"] })).json();
    await api(`/api/webhooks/${webhook.id}`, { method: "PATCH", cookie: jo.cookie, body: { enabled: false } });
    const { sessionId } = await (
      await api("/api/billing/checkout", { method: "POST", cookie: jo.cookie, body: { plan: "pro" } })
    ).json();
    expect((await api(`/dev/checkout/${sessionId}/complete`, { method: "POST" })).status).toBe(200);
    const log = async () =>
      (await (await api(`/api/webhooks/${webhook.id}/deliveries`, { cookie: jo.cookie })).json()).deliveries;
    const [paused] = await log();
    expect(paused).toMatchObject({
      eventType: "subscription.changed",
      status: "paused",
      attempts: 0,
      nextAttemptAt: null,
    });
    // A replay while it is still disabled waits too (nothing is sent to a disabled webhook).
    const replay = await api(`/api/webhooks/${webhook.id}/deliveries/${paused.id}/retry`, {
      method: "POST",
      cookie: jo.cookie,
    });
    expect(replay.status).toBe(202);
    expect((await replay.json()).delivery).toMatchObject({ id: paused.id, status: "paused" });

    const before = receiver.received.length;
    await api(`/api/webhooks/${webhook.id}`, { method: "PATCH", cookie: jo.cookie, body: { enabled: true } });
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    expect(verify(webhook.secret, request!)).toMatchObject({ type: "subscription.changed", data: { plan: "pro" } });
    await expect.poll(async () => (await log())[0]).toMatchObject({ id: paused.id, status: "delivered", attempts: 1 });
    expect(receiver.received.filter((item) => item.path === "/jo")).toHaveLength(1);
  });

  it("holds a retry that comes due while the webhook is paused, untried, and sends it when the webhook is enabled again", async () => {
    const lee = await signIn(service, "lee@hooks.test");
    const { webhook } = await (await create(lee, { url: receiver.url("/lee") })).json();
    let calls = 0;
    receiver.answer = (request) =>
      request.path === "/lee" && ++calls === 1 ? { status: 500, body: "busy" } : { status: 200, body: "ok" };
    const row = async () =>
      (
        await sql(
          `SELECT status, attempts, next_attempt_at, lease_token FROM webhook_deliveries WHERE webhook_id = $1`,
          [webhook.id],
        )
      )[0];
    try {
      await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: lee.cookie });
      await expect
        .poll(
          async () =>
            (await sql(`SELECT last_status_code FROM webhook_deliveries WHERE webhook_id = $1`, [webhook.id]))[0]
              ?.last_status_code,
        )
        .toBe(500);
      expect(await row()).toMatchObject({ status: "pending", attempts: 1, lease_token: null });
      await api(`/api/webhooks/${webhook.id}`, { method: "PATCH", cookie: lee.cookie, body: { enabled: false } });
      // The retry comes due while paused: it waits, its attempt not counted, nothing sent.
      offsetMs += 6_000;
      service.app.webhooks.wake();
      await expect.poll(async () => (await row()).status).toBe("paused");
      expect(await row()).toEqual({ status: "paused", attempts: 1, next_attempt_at: null, lease_token: null });
      expect(calls).toBe(1);

      await api(`/api/webhooks/${webhook.id}`, { method: "PATCH", cookie: lee.cookie, body: { enabled: true } });
      await expect.poll(async () => (await row()).status).toBe("delivered");
      expect(await row()).toMatchObject({ attempts: 2 });
      expect(calls).toBe(2);
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
      offsetMs = 0;
    }
  });
});

describe("webhook test events and replays", () => {
  it("refuses a replay of a delivery while it is being sent, on both doors (409 DELIVERY_IN_PROGRESS): the receiver gets one request", async () => {
    const mo = await signIn(service, "mo@hooks.test");
    const { webhook } = await (await create(mo, { url: receiver.url("/mo") })).json();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.answer = async (request) => {
      if (request.path === "/mo") await released;
      return { status: 200, body: "ok" };
    };
    const before = receiver.received.length;
    try {
      const { delivery } = await (
        await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: mo.cookie })
      ).json();
      await receiver.waitFor(before + 1);
      const refused = await api(`/api/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, {
        method: "POST",
        cookie: mo.cookie,
      });
      expect(await errorOf(refused)).toMatchObject({ status: 409, code: "DELIVERY_IN_PROGRESS", retryable: true });
      const viaGraphql = await graphql(
        `
          mutation ($id: ID!, $d: ID!) {
            retryWebhookDelivery(id: $id, deliveryId: $d) {
              id
            }
          }
        `,
        { id: webhook.id, d: delivery.id },
        { cookie: mo.cookie },
      );
      expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({ code: "DELIVERY_IN_PROGRESS", retryable: true });
      release();
      await expect
        .poll(async () => (await sql(`SELECT status FROM webhook_deliveries WHERE id = $1`, [delivery.id]))[0].status)
        .toBe("delivered");
      expect(receiver.received.slice(before).filter((item) => item.path === "/mo")).toHaveLength(1);

      // Once that attempt has ended, a replay is sent, with the same webhook-id.
      expect(
        (
          await api(`/api/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, {
            method: "POST",
            cookie: mo.cookie,
          })
        ).status,
      ).toBe(202);
      const [first, second] = (await receiver.waitFor(before + 2)).slice(before);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    } finally {
      release();
      receiver.answer = () => ({ status: 200, body: "ok" });
    }
  });

  it("counts each as an API call for an API key and allows 30 a minute per account across both doors; the 31st is 429 with Retry-After and costs nothing", async () => {
    const max = await keyedMember(service, "max@hooks.test");
    const { webhook } = await (await create(max, { url: receiver.url("/max") })).json();
    const apiCalls = async () =>
      (await (await api("/api/usage", { cookie: max.cookie })).json()).apiCalls.used as number;
    const start = await apiCalls();
    const first = await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", bearer: max.apiKey });
    expect(first.status).toBe(202);
    // The route's window, then the key's monthly API-call allowance.
    expect(first.headers.get("ratelimit-policy")).toMatch(/^"webhook-sends";q=30;w=60, "api-calls";q=25000;w=\d+$/);
    expect(await apiCalls()).toBe(start + 1);
    const { delivery } = await first.json();
    await expect
      .poll(async () => (await sql(`SELECT status FROM webhook_deliveries WHERE id = $1`, [delivery.id]))[0].status)
      .toBe("delivered");

    // The account's window, whoever sends: members by session, keys, and replays, on either door.
    for (let i = 1; i < 30; i += 1) {
      if (i % 3 === 0) {
        const replayed = await graphql(
          `
            mutation ($id: ID!, $d: ID!) {
              retryWebhookDelivery(id: $id, deliveryId: $d) {
                id
              }
            }
          `,
          { id: webhook.id, d: delivery.id },
          { cookie: max.cookie },
        );
        // A replay may meet the previous one still being sent: refused, it spends no slot, so it is asked again.
        if (replayed.errors?.[0]?.extensions?.code === "DELIVERY_IN_PROGRESS") i -= 1;
        else expect(replayed.errors).toBeUndefined();
      } else {
        expect((await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: max.cookie })).status).toBe(
          202,
        );
      }
    }
    const charged = await apiCalls();
    const refused = await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", bearer: max.apiKey });
    expect(await errorOf(refused.clone())).toMatchObject({
      status: 429,
      code: "SCORING_RATE_LIMITED",
      retryable: true,
      message: expect.stringMatching(/webhook test events and replays/),
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await apiCalls()).toBe(charged);
    const viaGraphql = await graphql(
      `
        mutation ($id: ID!, $d: ID!) {
          retryWebhookDelivery(id: $id, deliveryId: $d) {
            id
          }
        }
      `,
      { id: webhook.id, d: delivery.id },
      { bearer: max.apiKey },
    );
    expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({ code: "SCORING_RATE_LIMITED", retryable: true });
    expect(await apiCalls()).toBe(charged);
  });
});
