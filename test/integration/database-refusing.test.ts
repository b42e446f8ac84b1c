import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../support/http.js";
import { withClient } from "../support/global-setup.js";

/**
 * A database that is up but refuses sessions (ALLOW_CONNECTIONS false, its backends
 * ended, as during maintenance) is an outage the caller should wait out: 503, not 500.
 */
let service: TestApp;
let ada: Caller;
const admin = (text: string) => withClient(inject("adminDatabaseUrl"), (client) => client.query(text));
const allowConnections = (allow: boolean) =>
  admin(`ALTER DATABASE ${service.database!.name} ALLOW_CONNECTIONS ${allow}`);

beforeAll(async () => {
  service = await startTestApp();
  ada = await signIn(service, "ada@refusing.test");
});

afterAll(async () => {
  if (service?.database) await allowConnections(true);
  await service?.close();
});

describe("a database that refuses connections", () => {
  it("answers 503 SERVICE_UNAVAILABLE, retryable, in the envelope on REST and GraphQL, and serves again once it accepts them", async () => {
    const api = apiClient(service);
    expect((await api("/api/usage", { cookie: ada.cookie })).status).toBe(200);

    await allowConnections(false);
    await admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${service.database!.name}' AND pid <> pg_backend_pid()`,
    );
    try {
      const refused = await api("/api/usage", { cookie: ada.cookie });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await refused.json()).toEqual({
        error: {
          code: "SERVICE_UNAVAILABLE",
          message: "The service cannot reach its database right now.",
          action: expect.any(String),
          retryable: true,
          requestId: refused.headers.get("x-request-id"),
          docUrl: "/docs#section/Errors/SERVICE_UNAVAILABLE",
        },
      });
      const viaGraphQL = await graphqlClient(service)("{ usage { credits { used } } }", {}, { cookie: ada.cookie });
      expect(viaGraphQL.errors?.[0]?.extensions).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        retryable: true,
        retryAfter: 5,
      });
    } finally {
      await allowConnections(true);
    }
    expect((await api("/api/usage", { cookie: ada.cookie })).status).toBe(200);
  });
});
