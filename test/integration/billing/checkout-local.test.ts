import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../../src/events/domain-events.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";

/** Checkout with the local provider (the embedded default), over REST and GraphQL. */
let service: TestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;
const heard: DomainEvent<"subscription.changed">[] = [];

beforeAll(async () => {
  service = await startTestApp();
  api = apiClient(service);
  graphql = graphqlClient(service);
  service.app.events.on("subscription.changed", (event) => {
    heard.push(event);
  });
});
afterAll(() => service?.close());

const checkout = (cookie: string, body: unknown) => api("/api/billing/checkout", { method: "POST", cookie, body });
const complete = (sessionId: string) =>
  api(`/dev/checkout/${encodeURIComponent(sessionId)}/complete`, { method: "POST" });
const usageOf = async (cookie: string) => (await api("/api/usage", { cookie })).json();
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});

describe("checkout with the local provider", () => {
  it("starts a new billing cycle at an upgrade: an upgrade on day 29 does not grant a second month of credits three days later", async () => {
    const cal = await signIn(service, "cal@checkout.test");
    await service.app.database.dataSource.query(
      `UPDATE accounts SET billing_cycle_anchor = now() - interval '28 days' WHERE id = $1`,
      [cal.accountId],
    );
    const before = await usageOf(cal.cookie);
    expect(new Date(before.period.end).getTime() - Date.now()).toBeLessThan(4 * 24 * 3_600_000);

    const { sessionId } = await (await checkout(cal.cookie, { plan: "pro" })).json();
    const upgradedAt = Date.now();
    expect((await complete(sessionId)).status).toBe(200);
    const after = await usageOf(cal.cookie);
    expect(Math.abs(new Date(after.period.start).getTime() - upgradedAt)).toBeLessThan(60_000);
    expect(new Date(after.period.end).getTime() - upgradedAt).toBeGreaterThanOrEqual(28 * 24 * 3_600_000);
    expect(after.credits).toMatchObject({ limit: 1000, used: 0, remaining: 1000 });
  });

  it("upgrades a plan once, emits subscription.changed once, and tops up this cycle's credits", async () => {
    const ada = await signIn(service, "ada@checkout.test");
    const started = await checkout(ada.cookie, { plan: "pro" });
    expect(started.status).toBe(201);
    const { sessionId, checkoutUrl } = await started.json();
    expect(sessionId).toMatch(/^chk_[A-Za-z0-9_-]{32}$/);
    expect(checkoutUrl).toBe(`${service.config.publicBaseUrl}/dev/checkout/${sessionId}`);

    // Nothing changes until the checkout completes.
    expect((await usageOf(ada.cookie)).plan).toBe("free");
    const page = await api(new URL(checkoutUrl).pathname);
    expect(await page.json()).toMatchObject({
      checkout: { sessionId, status: "open", purchase: { kind: "plan", plan: "pro" } },
    });

    const before = heard.length;
    const done = await complete(sessionId);
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ checkout: { sessionId, status: "completed", plan: "pro" }, plan: "pro" });
    const usage = await usageOf(ada.cookie);
    expect(usage).toMatchObject({
      plan: "pro",
      credits: { limit: 1000, used: 0, remaining: 1000 },
      seats: { limit: 3 },
    });

    // Completing again (a retried request) applies nothing more.
    expect(await (await complete(sessionId)).json()).toMatchObject({ plan: "pro" });
    const events = heard.slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "subscription.changed",
      accountId: ada.accountId,
      data: {
        accountId: ada.accountId,
        previousPlan: "free",
        plan: "pro",
        reason: "checkout",
        checkoutSessionId: sessionId,
      },
    });
    // The event is in the outbox, written with the change.
    const stored = await service.app.database.dataSource.query(
      `SELECT type, data FROM domain_events WHERE account_id = $1`,
      [ada.accountId],
    );
    expect(stored).toEqual([{ type: "subscription.changed", data: events[0]!.data }]);
  });

  it("sells packs to paid plans only, grants N × 10 credits once, and keeps them across plans", async () => {
    const free = await signIn(service, "free-pack@checkout.test");
    expect(await errorOf(await checkout(free.cookie, { pack: "small" }))).toMatchObject({
      status: 402,
      code: "PLAN_LIMIT_REACHED",
    });

    const pro = await signIn(service, "pro-pack@checkout.test");
    await complete((await (await checkout(pro.cookie, { plan: "pro" })).json()).sessionId);
    const before = heard.length;
    const { sessionId } = await (await checkout(pro.cookie, { pack: "medium" })).json();
    await complete(sessionId);
    await complete(sessionId);
    expect((await usageOf(pro.cookie)).credits.packBalance).toBe(500);
    // A pack is not a subscription change.
    expect(heard.length).toBe(before);

    const large = await (await checkout(pro.cookie, { pack: "large" })).json();
    // Paid for, so granted even if the plan lapsed meanwhile.
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'free' WHERE id = $1`, [pro.accountId]);
    expect((await complete(large.sessionId)).status).toBe(200);
    expect((await usageOf(pro.cookie)).credits.packBalance).toBe(2000);
  });

  it("refuses malformed or impossible purchases with the field named, over REST and GraphQL alike", async () => {
    const bob = await signIn(service, "bob@checkout.test");
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, "VALIDATION_FAILED", /plan, pack: send exactly one/],
      [{ plan: "pro", pack: "small" }, "VALIDATION_FAILED", /exactly one/],
      [{ plan: "enterprise" }, "VALIDATION_FAILED", /plan: Enterprise is arranged with sales/],
      [{ plan: "free" }, "VALIDATION_FAILED", /plan: checkout buys pro or business/],
      [{ plan: "platinum" }, "VALIDATION_FAILED", /platinum/],
      [{ pack: 20 }, "VALIDATION_FAILED", /pack/],
    ];
    for (const [body, code, message] of cases) {
      const rest = await errorOf(await checkout(bob.cookie, body));
      expect(rest, JSON.stringify(body)).toMatchObject({ status: 400, code });
      expect(rest.message).toMatch(message);
      const viaGraphQL = await graphql(
        "mutation($input: CheckoutInput!) { startCheckout(input: $input) { sessionId } }",
        { input: body },
        { cookie: bob.cookie },
      );
      expect(viaGraphQL.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe(code);
    }
    await complete((await (await checkout(bob.cookie, { plan: "business" })).json()).sessionId);
    expect((await errorOf(await checkout(bob.cookie, { plan: "business" }))).message).toMatch(
      /already on the Business plan/,
    );
    expect(
      await service.app.database.dataSource.query(
        `SELECT count(*)::int AS n FROM checkout_sessions WHERE account_id = $1`,
        [bob.accountId],
      ),
    ).toEqual([{ n: 1 }]);
  });

  it("needs a signed-in person: anonymous is 401, an API key is 403", async () => {
    expect(await errorOf(await api("/api/billing/checkout", { method: "POST", body: { plan: "pro" } }))).toMatchObject({
      status: 401,
      code: "AUTH_REQUIRED",
    });
    const owner = await signIn(service, "keys@checkout.test");
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'business' WHERE id = $1`, [
      owner.accountId,
    ]);
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ci" } })
    ).json();
    expect(
      await errorOf(await api("/api/billing/checkout", { method: "POST", bearer: secret, body: { pack: "small" } })),
    ).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });

  it("gives the same answer over GraphQL as over REST", async () => {
    const cy = await signIn(service, "cy@checkout.test");
    const result = await graphql(
      `
        mutation {
          startCheckout(input: { plan: pro }) {
            sessionId
            checkoutUrl
          }
        }
      `,
      {},
      { cookie: cy.cookie },
    );
    const { sessionId, checkoutUrl } = result.data!.startCheckout;
    expect(checkoutUrl).toBe(`${service.config.publicBaseUrl}/dev/checkout/${sessionId}`);
    expect((await complete(sessionId)).status).toBe(200);
  });

  it("does not complete an unknown or expired checkout, and changes nothing", async () => {
    expect(await errorOf(await complete("chk_nope"))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const dee = await signIn(service, "dee@checkout.test");
    const { sessionId } = await (await checkout(dee.cookie, { plan: "pro" })).json();
    await service.app.database.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [sessionId],
    );
    expect(await errorOf(await complete(sessionId))).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect((await usageOf(dee.cookie)).plan).toBe("free");
  });

  it("refuses a form-encoded completion (a cross-site form cannot trigger it)", async () => {
    const eve = await signIn(service, "eve@checkout.test");
    const { sessionId } = await (await checkout(eve.cookie, { plan: "pro" })).json();
    const forged = await fetch(`${service.url}/dev/checkout/${sessionId}/complete`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expect(forged.status).toBe(415);
    expect((await usageOf(eve.cookie)).plan).toBe("free");
  });
});
