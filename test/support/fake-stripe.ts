import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * A local stand-in for api.stripe.com that speaks its wire protocol (form-encoded
 * requests with Bearer auth and Idempotency-Key, JSON objects and error envelopes),
 * driven by the real `stripe` client inside the service. Like Stripe, it reports
 * completions by POSTing signed events to the service's webhook endpoint; the
 * signature header is made by the real library's test helper.
 */
export interface RecordedStripeRequest {
  readonly method: string;
  readonly path: string;
  readonly form: URLSearchParams;
  readonly idempotencyKey: string | undefined;
}

interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  lookupKey: string;
  /** The current period's start, in Unix seconds (on the subscription item, as API versions since 2025-03-31 have it). */
  periodStart: number;
}

export interface FakeStripe {
  readonly url: string;
  readonly requests: RecordedStripeRequest[];
  /** Where events go: the service's webhook URL. */
  webhookUrl: string;
  /** Prices by lookup key (`pms_pro_monthly` …); remove one to simulate a missing price. */
  readonly prices: Map<string, string>;
  /** Answer every API request with this status (e.g. 500) until cleared. */
  failWith: number | undefined;
  readonly subscriptions: Map<string, FakeSubscription>;
  /**
   * Pays the checkout session: creates the customer (and subscription, its period starting now or at
   * `periodStart`) and delivers checkout.session.completed (held back with `deliver: false`).
   */
  completeCheckout(
    sessionId: string,
    options?: { deliver?: boolean; periodStart?: Date },
  ): Promise<{ response: Response | undefined; event: Stripe.Event }>;
  /** Changes a subscription and delivers customer.subscription.updated (or .deleted when cancelled). */
  changeSubscription(
    id: string,
    change: { status?: string; lookupKey?: string },
  ): Promise<{ response: Response; event: Stripe.Event }>;
  /** Delivers an event (again), signed, optionally with a chosen signature header. */
  deliver(event: Stripe.Event, options?: { signature?: string }): Promise<Response>;
  close(): Promise<void>;
}

export async function startFakeStripe(options: { secretKey: string; webhookSecret: string }): Promise<FakeStripe> {
  const signer = new Stripe(options.secretKey);
  const sessions = new Map<string, Record<string, unknown>>();
  const idempotent = new Map<string, string>();
  let eventCount = 0;

  const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;
  const subscriptionObject = (subscription: FakeSubscription) => ({
    id: subscription.id,
    object: "subscription",
    customer: subscription.customer,
    status: subscription.status,
    items: {
      object: "list",
      data: [
        {
          id: `si_${subscription.id}`,
          object: "subscription_item",
          price: priceObject(subscription.lookupKey),
          current_period_start: subscription.periodStart,
          current_period_end: subscription.periodStart + 30 * 24 * 3600,
        },
      ],
    },
  });
  const priceObject = (lookupKey: string) => ({
    id: fake.prices.get(lookupKey) ?? `price_gone_${lookupKey}`,
    object: "price",
    lookup_key: lookupKey,
    active: true,
  });
  const eventOf = (type: string, object: unknown): Stripe.Event =>
    ({
      id: `evt_test_${++eventCount}_${randomBytes(4).toString("hex")}`,
      object: "event",
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    }) as unknown as Stripe.Event;

  const server: Server = createServer(async (request, response) => {
    const form = new URLSearchParams(await bodyOf(request));
    const url = new URL(request.url ?? "/", "http://fake");
    const idempotencyKey = header(request, "idempotency-key");
    fake.requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      form: request.method === "GET" ? url.searchParams : form,
      idempotencyKey,
    });
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json", "request-id": id("req") });
      response.end(JSON.stringify(body));
    };
    if (header(request, "authorization") !== `Bearer ${options.secretKey}`) {
      return send(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
    }
    if (fake.failWith)
      return send(fake.failWith, { error: { type: "api_error", message: "Something went wrong on Stripe's end." } });

    if (request.method === "GET" && url.pathname === "/v1/prices") {
      const keys = [...url.searchParams.entries()]
        .filter(([key]) => key.startsWith("lookup_keys"))
        .map(([, value]) => value);
      const data = keys.filter((key) => fake.prices.has(key)).map(priceObject);
      return send(200, { object: "list", data, has_more: false, url: "/v1/prices" });
    }
    if (request.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const replay = idempotencyKey ? idempotent.get(idempotencyKey) : undefined;
      if (replay) return send(200, sessions.get(replay));
      const mode = form.get("mode");
      const price = form.get("line_items[0][price]");
      if (mode === "subscription" && ![...fake.prices.values()].includes(price ?? "")) {
        return send(400, {
          error: { type: "invalid_request_error", message: `No such price: '${price}'`, param: "line_items[0][price]" },
        });
      }
      const session = {
        id: id("cs"),
        object: "checkout.session",
        mode,
        status: "open",
        payment_status: "unpaid",
        client_reference_id: form.get("client_reference_id"),
        customer: form.get("customer"),
        customer_email: form.get("customer_email"),
        subscription: null,
        metadata: { checkout_id: form.get("metadata[checkout_id]"), account_id: form.get("metadata[account_id]") },
        url: "",
        expires_at: Math.floor(Date.now() / 1000) + 24 * 3600,
        line_item: { price, unit_amount: form.get("line_items[0][price_data][unit_amount]") },
      };
      session.url = `https://checkout.stripe.test/c/pay/${session.id}`;
      sessions.set(session.id, session);
      if (idempotencyKey) idempotent.set(idempotencyKey, session.id);
      return send(200, session);
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (subscriptionPath) {
      const subscription = fake.subscriptions.get(decodeURIComponent(subscriptionPath[1]!));
      if (!subscription)
        return send(404, {
          error: { type: "invalid_request_error", message: "No such subscription", code: "resource_missing" },
        });
      if (request.method === "DELETE") subscription.status = "canceled";
      return send(200, subscriptionObject(subscription));
    }
    send(404, {
      error: {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${request.method}: ${url.pathname})`,
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  const fake: FakeStripe = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    webhookUrl: "",
    prices: new Map([
      ["pms_pro_monthly", "price_test_pro"],
      ["pms_business_monthly", "price_test_business"],
    ]),
    failWith: undefined,
    subscriptions: new Map(),

    async completeCheckout(sessionId, completeOptions = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`fake Stripe has no session ${sessionId}`);
      const customer = (session.customer as string | null) ?? id("cus");
      let subscription: string | null = null;
      if (session.mode === "subscription") {
        const lookupKey =
          [...fake.prices.entries()].find(
            ([, price]) => price === (session.line_item as { price: string }).price,
          )?.[0] ?? "";
        subscription = id("sub");
        const periodStart = Math.floor((completeOptions.periodStart?.getTime() ?? Date.now()) / 1000);
        fake.subscriptions.set(subscription, { id: subscription, customer, status: "active", lookupKey, periodStart });
      }
      Object.assign(session, { status: "complete", payment_status: "paid", customer, subscription });
      const event = eventOf("checkout.session.completed", { ...session });
      return { response: completeOptions.deliver === false ? undefined : await fake.deliver(event), event };
    },

    async changeSubscription(subscriptionId, change) {
      const subscription = fake.subscriptions.get(subscriptionId);
      if (!subscription) throw new Error(`fake Stripe has no subscription ${subscriptionId}`);
      Object.assign(
        subscription,
        change.status ? { status: change.status } : {},
        change.lookupKey ? { lookupKey: change.lookupKey } : {},
      );
      const type =
        subscription.status === "canceled" ? "customer.subscription.deleted" : "customer.subscription.updated";
      const event = eventOf(type, subscriptionObject(subscription));
      return { response: await fake.deliver(event), event };
    },

    async deliver(event, deliverOptions = {}) {
      const payload = JSON.stringify(event);
      const signature =
        deliverOptions.signature ??
        signer.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret });
      return fetch(fake.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      });
    },

    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
