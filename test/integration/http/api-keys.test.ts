import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, signIn, type CallInit } from "../../support/http.js";

/** API keys over REST (and the same operations behind them over GraphQL): lifecycle, plans, metering. */
let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

async function member(email: string, plan?: "free" | "pro" | "business" | "enterprise") {
  const caller = await signIn(service, email);
  if (plan) await setPlan(caller.accountId, plan);
  return caller;
}

const setPlan = (accountId: string, plan: string) =>
  service.app.database.dataSource.query("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, accountId]);

const api = (path: string, init: CallInit = {}) => apiClient(service)(path, init);

describe("API keys", () => {
  it("are refused on Free and Pro with 402 PLAN_LIMIT_REACHED", async () => {
    for (const plan of ["free", "pro"] as const) {
      const { cookie } = await member(`${plan}-keys@example.com`, plan);
      const response = await api("/api/keys", { method: "POST", cookie, body: { name: "ci" } });
      expect(response.status).toBe(402);
      expect((await response.json()).error).toMatchObject({ code: "PLAN_LIMIT_REACHED", retryable: false });
    }
  });

  it("show the secret once, list by prefix, authenticate, count API calls, and stop working when revoked", async () => {
    const owner = await member("owner@example.com", "business");
    const created = await api("/api/keys", {
      method: "POST",
      cookie: owner.cookie,
      body: { name: "  CI deploys  " },
    });
    expect(created.status).toBe(201);
    const { key, secret } = await created.json();
    expect(secret).toMatch(/^pms_live_[0-9A-Za-z]{49}$/);
    expect(key).toEqual({
      id: expect.any(String),
      name: "CI deploys",
      prefix: secret.slice(0, 13),
      mode: "live",
      createdAt: expect.any(String),
      lastUsedAt: null,
    });

    const listed = await (await api("/api/keys", { cookie: owner.cookie })).json();
    expect(listed).toEqual({ keys: [key] });
    expect(JSON.stringify(listed)).not.toContain(secret);
    const stored = await service.app.database.dataSource.query("SELECT * FROM api_keys WHERE id = $1", [key.id]);
    expect(JSON.stringify(stored)).not.toContain(secret);

    // Each request the key authenticates is one API call: 0.1 credit and one unit of the ceiling.
    const first = await (await api("/api/usage", { bearer: secret })).json();
    expect(first.apiCalls).toEqual({ limit: 25_000, used: 1 });
    expect(first.credits.used).toBe(0.1);
    const viaGraphQL = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ query: "{ usage { apiCalls { used } credits { used } } }" }),
    });
    expect(await viaGraphQL.json()).toEqual({ data: { usage: { apiCalls: { used: 2 }, credits: { used: 0.2 } } } });
    const [{ last_used_at: lastUsed }] = await service.app.database.dataSource.query(
      "SELECT last_used_at FROM api_keys WHERE id = $1",
      [key.id],
    );
    expect(lastUsed).not.toBeNull();

    // A key cannot mint or revoke keys.
    const minted = await api("/api/keys", { method: "POST", bearer: secret, body: { name: "escalate" } });
    expect(minted.status).toBe(403);
    expect((await minted.json()).error.code).toBe("FORBIDDEN");
    // Who may call is decided before the input is read.
    const invalid = await api("/api/keys", { method: "POST", bearer: secret, body: { name: "" } });
    expect((await invalid.json()).error.code).toBe("FORBIDDEN");

    const revoked = await api(`/api/keys/${key.id}`, { method: "DELETE", cookie: owner.cookie });
    expect(revoked.status).toBe(204);
    expect(await revoked.text()).toBe("");
    const after = await api("/api/usage", { bearer: secret });
    expect(after.status).toBe(401);
    expect((await after.json()).error).toMatchObject({ code: "AUTH_REQUIRED", message: "The API key is not valid." });
    // Also where anonymous callers are welcome: credentials are checked before the input.
    const scoring = await api("/api/score", {
      method: "POST",
      bearer: secret,
      body: { url: `https://example.com/${"a".repeat(2_100)}` },
    });
    expect(scoring.status).toBe(401);
    expect((await scoring.json()).error).toMatchObject({ code: "AUTH_REQUIRED", message: "The API key is not valid." });
    expect((await api(`/api/keys/${key.id}`, { method: "DELETE", cookie: owner.cookie })).status).toBe(404);
    expect(await (await api("/api/keys", { cookie: owner.cookie })).json()).toEqual({ keys: [] });
  });

  it("answers 404 for another account's key, and 403 once the key's account leaves the API plans", async () => {
    const owner = await member("second-owner@example.com", "business");
    const { key, secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "k" } })
    ).json();
    const stranger = await member("stranger@example.com", "enterprise");
    const response = await api(`/api/keys/${key.id}`, { method: "DELETE", cookie: stranger.cookie });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("NOT_FOUND");

    await setPlan(owner.accountId, "pro");
    const downgraded = await api("/api/usage", { bearer: secret });
    expect(downgraded.status).toBe(403);
    expect((await downgraded.json()).error.code).toBe("FORBIDDEN");
  });

  it("refuses malformed keys, a wrong checksum and other schemes with 401", async () => {
    const owner = await member("third-owner@example.com", "business");
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "k" } })
    ).json();
    const typo = `${secret.slice(0, 20)}${secret[20] === "A" ? "B" : "A"}${secret.slice(21)}`;
    for (const authorization of [
      `Bearer ${typo}`,
      "Bearer pms_live_short",
      `Basic ${Buffer.from("a:b").toString("base64")}`,
      "Bearer",
    ]) {
      const response = await fetch(`${service.url}/api/usage`, { headers: { authorization } });
      expect({ authorization, status: response.status }).toEqual({ authorization, status: 401 });
    }
  });

  it("refuses a cross-site form post with the session cookie (CSRF): only JSON bodies are read", async () => {
    const owner = await member("csrf-owner@example.com", "business");
    for (const [type, body] of [
      ["text/plain", '{"name":"evil"}'],
      ["application/x-www-form-urlencoded", "name=evil"],
      ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nevil\r\n--x--'],
    ]) {
      const response = await fetch(`${service.url}/api/keys`, {
        method: "POST",
        headers: { cookie: owner.cookie, "content-type": type! },
        body,
      });
      expect({ type, status: response.status }).toEqual({ type, status: 415 });
    }
    expect(await (await api("/api/keys", { cookie: owner.cookie })).json()).toEqual({ keys: [] });
  });

  it("validates the name, naming the field", async () => {
    const owner = await member("fourth-owner@example.com", "business");
    const missing = await api("/api/keys", { method: "POST", cookie: owner.cookie, body: {} });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.message).toMatch(/name/);
    const long = await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "x".repeat(101) } });
    expect(long.status).toBe(400);
    expect((await long.json()).error).toMatchObject({
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/^name: /),
    });
  });
});

describe("credentials over graphql-ws", () => {
  async function wsQuery(
    query: string,
    options: { connectionParams?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    const { createClient } = await import("graphql-ws");
    const { default: WebSocket } = await import("ws");
    const headers = options.headers ?? {};
    const client = createClient({
      url: `${service.url.replace("http", "ws")}/graphql`,
      retryAttempts: 0,
      connectionParams: options.connectionParams,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers });
        }
      },
    });
    try {
      return await new Promise<unknown>((resolve) => {
        let value: unknown;
        client.subscribe({ query }, { next: (data) => (value = data), error: resolve, complete: () => resolve(value) });
      });
    } finally {
      await client.dispose();
    }
  }

  it("takes an API key from connectionParams, metered like HTTP", async () => {
    const owner = await member("ws-owner@example.com", "business");
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ws" } })
    ).json();
    const result = await wsQuery("{ usage { apiCalls { used } } }", {
      connectionParams: { authorization: `Bearer ${secret}` },
    });
    expect(result).toEqual({ data: { usage: { apiCalls: { used: 1 } } } });
  });

  it("takes the session cookie from the service's own origin only (no cross-site socket hijacking)", async () => {
    const owner = await member("ws-session@example.com");
    const host = new URL(service.url).host;
    const own = await wsQuery("{ usage { plan } }", { headers: { cookie: owner.cookie, origin: `http://${host}` } });
    expect(own).toEqual({ data: { usage: { plan: "free" } } });
    const foreign = (await wsQuery("{ usage { plan } }", {
      headers: { cookie: owner.cookie, origin: "https://evil.example" },
    })) as { errors: Array<{ extensions: { code: string } }> };
    expect(foreign.errors[0]!.extensions.code).toBe("AUTH_REQUIRED");
  });
});
