import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEALTHY, startTestApp, type TestApp } from "../support/app.js";
import { TcpRelay } from "../support/tcp-relay.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

let database: TestDatabase;
let link: TcpRelay;
let service: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  const real = new URL(database.url);
  link = new TcpRelay({ host: real.hostname, port: Number(real.port || 5432) });
  await link.open();
  const relayed = new URL(database.url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(link.port);
  service = await startTestApp({ DATABASE_URL: relayed.toString() });
});

afterAll(async () => {
  await service?.close();
  await link?.cut();
  await database?.drop();
});

async function health() {
  const response = await fetch(`${service.url}/api/health`);
  return { status: response.status, body: await response.json() };
}

describe("health while the database goes away and comes back", () => {
  it("passes, fails with 503 while unreachable, and passes again without a restart", async () => {
    const before = await health();
    expect(before.status).toBe(200);
    expect(before.body.status).toBe(HEALTHY);

    await link.cut();
    const during = await health();
    expect(during.status).toBe(503);
    expect(during.body.status).toBe("fail");
    expect(during.body.checks.database).toMatchObject({ status: "fail", latencyMs: null });
    expect(during.body.checks.database.detail).toMatch(/^PostgreSQL unreachable: /);
    // Secret-free: no connection string or password in what the public sees.
    expect(JSON.stringify(during.body)).not.toMatch(/postgres:\/\/|password/i);

    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ health { status checks { database { status } } } }" }),
    });
    expect(await graphql.json()).toEqual({
      data: { health: { status: "fail", checks: { database: { status: "fail" } } } },
    });

    await link.open();
    const after = await health();
    expect(after.status).toBe(200);
    expect(after.body.status).toBe(HEALTHY);
  });
});
