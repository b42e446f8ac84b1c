import { isIP } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../../src/modules/crawl/address-guard.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";

/**
 * A webhook destination the address guard refuses is refused saying what kind of
 * address its name resolves to, never which address: with split-horizon DNS the
 * message would otherwise map internal names to internal addresses. Names resolve
 * through an in-test DNS; "rebind.test" answers a public address once (at creation)
 * and a private one after that (at delivery).
 */
const PUBLIC = "93.184.216.34";
let rebindLookups = 0;
const table: Record<string, () => string[]> = {
  "private.test": () => ["10.1.2.3"],
  "mixed.test": () => [PUBLIC, "10.0.0.5"],
  "loop.test": () => ["127.0.0.53"],
  "v6.test": () => ["fd12:3456::7"],
  "rebind.test": () => (++rebindLookups === 1 ? [PUBLIC] : ["10.0.0.9"]),
};
const resolver: Resolver = async (hostname) =>
  (table[hostname]?.() ?? []).map((address) => ({
    address,
    family: isIP(address) === 6 ? (6 as const) : (4 as const),
  }));
const ADDRESSES = /10\.1\.2\.3|10\.0\.0\.5|10\.0\.0\.9|127\.0\.0\.53|fd12:3456::7|93\.184\.216\.34/;

let service: TestApp;
let owner: Caller;
beforeAll(async () => {
  service = await startTestApp({}, { webhooks: { resolver, jitter: 0, pollMs: 100 } });
  owner = await signIn(service, "owner@refused.test");
});
afterAll(() => service?.close());

describe("a refused webhook destination", () => {
  it.each([
    ["private.test", "private network"],
    ["mixed.test", "private network"],
    ["loop.test", "loopback"],
    ["v6.test", "unique-local"],
  ])(
    "%s is refused at creation naming the kind of address (%s), not the address, over REST and GraphQL",
    async (host, kind) => {
      const expected = `url: refused address ${host} (resolves to a non-public address, ${kind})`;
      const rest = await apiClient(service)("/api/webhooks", {
        method: "POST",
        cookie: owner.cookie,
        body: { url: `https://${host}/hook` },
      });
      expect(rest.status).toBe(400);
      const { error } = (await rest.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code: "VALIDATION_FAILED", message: expected });
      const graphql = await graphqlClient(service)(
        `mutation($url: String!) { createWebhook(input: { url: $url }) { secret } }`,
        { url: `https://${host}/hook` },
        { cookie: owner.cookie },
      );
      expect(graphql.errors?.[0]).toMatchObject({ message: expected, extensions: { code: "VALIDATION_FAILED" } });
      expect(JSON.stringify([error, graphql])).not.toMatch(ADDRESSES);
    },
  );

  it("that turns private after creation leaves a lastError naming the kind of address, not the address", async () => {
    const api = apiClient(service);
    const created = await api("/api/webhooks", {
      method: "POST",
      cookie: owner.cookie,
      body: { url: "https://rebind.test/hook" },
    });
    expect(created.status).toBe(201);
    const { webhook } = (await created.json()) as { webhook: { id: string } };
    expect((await api(`/api/webhooks/${webhook.id}/test`, { method: "POST", cookie: owner.cookie })).status).toBe(202);
    const lastError = async () => {
      const { deliveries } = (await (
        await api(`/api/webhooks/${webhook.id}/deliveries`, { cookie: owner.cookie })
      ).json()) as { deliveries: Array<{ lastError: string | null }> };
      return deliveries[0]?.lastError ?? null;
    };
    await expect.poll(lastError).not.toBeNull();
    const message = await lastError();
    expect(message).toBe("refused address rebind.test (resolves to a non-public address, private network)");
    expect(message).not.toMatch(ADDRESSES);
  });
});
