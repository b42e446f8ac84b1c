import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../../src/events/domain-events.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { startFakeStripe, type FakeStripe } from "../../support/fake-stripe.js";
import { apiClient, signIn, type Caller } from "../../support/http.js";

/**
 * Checkout through Stripe: the service's real `stripe` client talks to a local fake
 * of api.stripe.com, and completions arrive as events signed like Stripe's.
 */
const SECRET_KEY = "sk_test_fake000000000000";
const WEBHOOK_SECRET = "whsec_test_fake_signing_secret";

let stripe: FakeStripe;
let service: TestApp;
let api: ReturnType<typeof apiClient>;
const heard: DomainEvent<"subscription.changed">[] = [];

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  service = await startTestApp({
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
  });
  stripe.webhookUrl = `${service.url}/webhooks/stripe`;
  api = apiClient(service);
  service.app.events.on("subscription.changed", (event) => {
    heard.push(event);
  });
});
afterAll(async () => {
  await service?.close();
  await stripe?.close();
});

const checkout = async (caller: Caller, body: unknown) => {
  const response = await api("/api/billing/checkout", { method: "POST", cookie: caller.cookie, body });
  return { status: response.status, body: await response.json() };
};
const account = async (caller: Caller) =>
  (
    await service.app.database.dataSource.query(
      `SELECT plan, stripe_customer_id, stripe_subscription_id FROM accounts WHERE id = $1`,
      [caller.accountId],
    )
  )[0];
const providerSessionOf = async (sessionId: string): Promise<string> =>
  (
    await service.app.database.dataSource.query(`SELECT provider_session_id FROM checkout_sessions WHERE id = $1`, [
      sessionId,
    ])
  )[0].provider_session_id;

describe("checkout with Stripe", () => {
  it("creates a subscription Checkout Session for the plan's price, once per checkout", async () => {
    const ada = await signIn(service, "ada@stripe.test");
    const started = await checkout(ada, { plan: "pro" });
    expect(started.status).toBe(201);
    expect(started.body.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);

    const created = stripe.requests.filter((request) => request.path === "/v1/checkout/sessions");
    expect(created).toHaveLength(1);
    const form = created[0]!.form;
    expect(form.get("mode")).toBe("subscription");
    expect(form.get("line_items[0][price]")).toBe("price_test_pro");
    expect(form.get("client_reference_id")).toBe(started.body.sessionId);
    expect(form.get("customer_email")).toBe("ada@stripe.test");
    expect(form.get("metadata[account_id]")).toBe(ada.accountId);
    expect(created[0]!.idempotencyKey).toBe(`checkout-${started.body.sessionId}`);
    expect((await account(ada)).plan).toBe("free");
  });

  it("applies a paid checkout from its signed webhook once, however often Stripe delivers it", async () => {
    const bea = await signIn(service, "bea@stripe.test");
    const { body } = await checkout(bea, { plan: "business" });
    const before = heard.length;
    const { response, event } = await stripe.completeCheckout(await providerSessionOf(body.sessionId));
    expect(response?.status).toBe(200);
    expect(await response?.json()).toEqual({ received: true });
    const after = await account(bea);
    expect(after).toMatchObject({
      plan: "business",
      stripe_customer_id: expect.stringMatching(/^cus_test_/),
      stripe_subscription_id: expect.stringMatching(/^sub_test_/),
    });

    // Redelivery and replay of the same event: 200 (Stripe stops retrying), no second change.
    expect((await stripe.deliver(event)).status).toBe(200);
    expect((await stripe.deliver(event)).status).toBe(200);
    const mine = heard.slice(before).filter((heardEvent) => heardEvent.accountId === bea.accountId);
    expect(mine.map((heardEvent) => heardEvent.data)).toEqual([
      {
        accountId: bea.accountId,
        previousPlan: "free",
        plan: "business",
        reason: "checkout",
        checkoutSessionId: body.sessionId,
      },
    ]);
    // Business includes API keys now.
    expect((await api("/api/keys", { method: "POST", cookie: bea.cookie, body: { name: "ci" } })).status).toBe(201);
  });

  it("refuses events whose signature is wrong, missing, or too old, and applies none of them", async () => {
    const cal = await signIn(service, "cal@stripe.test");
    const { body } = await checkout(cal, { plan: "pro" });
    const providerSession = await providerSessionOf(body.sessionId);
    const forged = {
      id: "evt_forged",
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: providerSession,
          object: "checkout.session",
          client_reference_id: body.sessionId,
          payment_status: "paid",
          customer: "cus_x",
          subscription: "sub_x",
        },
      },
    } as unknown as Stripe.Event;
    const payload = JSON.stringify(forged);
    const signer = new Stripe(SECRET_KEY);
    const signatures = {
      wrongSecret: signer.webhooks.generateTestHeaderString({ payload, secret: "whsec_someone_else" }),
      stale: signer.webhooks.generateTestHeaderString({
        payload,
        secret: WEBHOOK_SECRET,
        timestamp: Math.floor(Date.now() / 1000) - 3600,
      }),
      garbage: "t=1,v1=00",
    };
    for (const [name, signature] of Object.entries(signatures)) {
      const response = await stripe.deliver(forged, { signature });
      expect(response.status, name).toBe(400);
      expect((await response.json()).error, name).toMatchObject({
        code: "VALIDATION_FAILED",
        message: expect.stringMatching(/^stripe-signature: /),
      });
    }
    const unsigned = await fetch(stripe.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    expect(unsigned.status).toBe(400);
    // A body altered after signing.
    const signed = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const altered = payload.replace("cus_x", "cus_y");
    const tampered = await fetch(stripe.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signed },
      body: altered,
    });
    expect(tampered.status).toBe(400);
    expect(await account(cal)).toMatchObject({ plan: "free", stripe_customer_id: null });
  });

  it("follows subscription updates and cancellation, re-reading the subscription so a late event cannot roll back", async () => {
    const dan = await signIn(service, "dan@stripe.test");
    const { body } = await checkout(dan, { plan: "pro" });
    await stripe.completeCheckout(await providerSessionOf(body.sessionId));
    const { stripe_subscription_id: subscription } = await account(dan);
    const before = heard.length;

    const upgraded = await stripe.changeSubscription(subscription, { lookupKey: "pms_business_monthly" });
    expect(upgraded.response.status).toBe(200);
    expect((await account(dan)).plan).toBe("business");

    // An older "pro" snapshot delivered late: the service reads the current state (business).
    const stale = structuredClone(upgraded.event) as unknown as {
      id: string;
      data: { object: { items: { data: Array<{ price: { lookup_key: string } }> } } };
    };
    stale.id = "evt_late_pro";
    stale.data.object.items.data[0]!.price.lookup_key = "pms_pro_monthly";
    expect((await stripe.deliver(stale as unknown as Stripe.Event)).status).toBe(200);
    expect((await account(dan)).plan).toBe("business");

    // past_due keeps the plan while Stripe retries the card; cancellation ends it.
    await stripe.changeSubscription(subscription, { status: "past_due" });
    expect((await account(dan)).plan).toBe("business");
    await stripe.changeSubscription(subscription, { status: "canceled" });
    expect(await account(dan)).toMatchObject({ plan: "free", stripe_subscription_id: null });
    expect(heard.slice(before).map((event) => [event.data.previousPlan, event.data.plan, event.data.reason])).toEqual([
      ["pro", "business", "subscription_updated"],
      ["business", "free", "subscription_cancelled"],
    ]);
  });

  it("bills in the subscription's periods: the cycle starts where Stripe's period starts, and follows a renewal", async () => {
    const flo = await signIn(service, "flo@stripe.test");
    await service.app.database.dataSource.query(
      `UPDATE accounts SET billing_cycle_anchor = now() - interval '28 days' WHERE id = $1`,
      [flo.accountId],
    );
    const { body } = await checkout(flo, { plan: "pro" });
    const periodStart = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    await stripe.completeCheckout(await providerSessionOf(body.sessionId), { periodStart });
    const usage = async () => (await api("/api/usage", { cookie: flo.cookie })).json();
    const first = await usage();
    // Not the old cycle that ends in two or three days: a month from the subscription's start.
    expect(first.period.start).toBe(periodStart.toISOString());
    expect(new Date(first.period.end).getTime() - periodStart.getTime()).toBeGreaterThanOrEqual(28 * 24 * 3_600_000);
    expect(first.credits).toMatchObject({ limit: 1000, remaining: 1000 });

    // A renewal moves Stripe's period; the cycle follows it.
    const { stripe_subscription_id: subscription } = await account(flo);
    const renewed = stripe.subscriptions.get(subscription)!;
    renewed.periodStart = Math.floor(Date.now() / 1000) - 60;
    await stripe.changeSubscription(subscription, {});
    expect((await usage()).period.start).toBe(new Date(renewed.periodStart * 1000).toISOString());
  });

  it("does not restore the paid plan when the checkout's completion arrives after the subscription was cancelled", async () => {
    const hal = await signIn(service, "hal@stripe.test");
    const { body } = await checkout(hal, { plan: "business" });
    const { event } = await stripe.completeCheckout(await providerSessionOf(body.sessionId), { deliver: false });
    const subscription = (event.data.object as { subscription: string }).subscription;
    // The cancellation is delivered first (Stripe does not order events).
    expect((await stripe.changeSubscription(subscription, { status: "canceled" })).response.status).toBe(200);
    const late = await stripe.deliver(event);
    expect(late.status).toBe(200);
    expect(await account(hal)).toMatchObject({ plan: "free", stripe_subscription_id: null });
    const [row] = await service.app.database.dataSource.query(`SELECT status FROM checkout_sessions WHERE id = $1`, [
      body.sessionId,
    ]);
    expect(row.status).toBe("completed");
  });

  it("replaces the subscription on a new plan checkout and cancels the old one at Stripe", async () => {
    const eli = await signIn(service, "eli@stripe.test");
    await stripe.completeCheckout(await providerSessionOf((await checkout(eli, { plan: "pro" })).body.sessionId));
    const first = await account(eli);
    const second = await checkout(eli, { plan: "business" });
    // The customer is reused, not created again.
    expect(stripe.requests.at(-1)!.form.get("customer")).toBe(first.stripe_customer_id);
    await stripe.completeCheckout(await providerSessionOf(second.body.sessionId));
    const now = await account(eli);
    expect(now.plan).toBe("business");
    expect(now.stripe_subscription_id).not.toBe(first.stripe_subscription_id);
    expect(stripe.subscriptions.get(first.stripe_subscription_id)!.status).toBe("canceled");
    // The old subscription's deletion event is not the account's subscription any more: no downgrade.
    await stripe.changeSubscription(first.stripe_subscription_id, { status: "canceled" });
    expect((await account(eli)).plan).toBe("business");
  });

  it("sells packs as one-time payments at the contract's price and grants them once", async () => {
    const fay = await signIn(service, "fay@stripe.test");
    await stripe.completeCheckout(await providerSessionOf((await checkout(fay, { plan: "pro" })).body.sessionId));
    const { body } = await checkout(fay, { pack: "large" });
    const form = stripe.requests.at(-1)!.form;
    expect(form.get("mode")).toBe("payment");
    expect(form.get("line_items[0][price_data][unit_amount]")).toBe("9900");
    expect(form.get("line_items[0][price_data][currency]")).toBe("usd");
    const { event } = await stripe.completeCheckout(await providerSessionOf(body.sessionId));
    await stripe.deliver(event);
    const usage = await (await api("/api/usage", { cookie: fay.cookie })).json();
    expect(usage.credits.packBalance).toBe(1500);
  });

  it("answers 503 without leaving a checkout behind when Stripe fails or a plan has no price", async () => {
    const gus = await signIn(service, "gus@stripe.test");
    stripe.failWith = 500;
    try {
      const failed = await checkout(gus, { plan: "pro" });
      expect(failed.status).toBe(503);
      expect(failed.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: true });
      expect(JSON.stringify(failed.body)).not.toContain("Stripe's end");
    } finally {
      stripe.failWith = undefined;
    }
    stripe.prices.delete("pms_business_monthly");
    try {
      const unpriced = await checkout(gus, { plan: "business" });
      expect(unpriced.status).toBe(503);
    } finally {
      stripe.prices.set("pms_business_monthly", "price_test_business");
    }
    expect(
      await service.app.database.dataSource.query(
        `SELECT count(*)::int AS n FROM checkout_sessions WHERE account_id = $1`,
        [gus.accountId],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it("has no local completion route when Stripe is the provider", async () => {
    const hal = await signIn(service, "hal@stripe.test");
    const { body } = await checkout(hal, { plan: "pro" });
    expect((await api(`/dev/checkout/${body.sessionId}/complete`, { method: "POST" })).status).toBe(404);
    expect((await account(hal)).plan).toBe("free");
  });
});
