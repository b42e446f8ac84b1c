import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { TcpRelay } from "../support/tcp-relay.js";

/**
 * With REDIS_URL set, health reports whether Redis answers (rate limits fail
 * closed without it). Redis runs on 127.0.0.1:6379 on these machines and in CI.
 */
const liveRedis = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const started: TestApp[] = [];
afterAll(async () => {
  for (const app of started) await app.close();
});

async function environmentCheck(env: Record<string, string>) {
  const service = await startTestApp(env);
  started.push(service);
  const response = await fetch(`${service.url}/api/health`);
  return { status: response.status, body: await response.json() };
}

describe("health with Redis configured", () => {
  it("passes with the round trip when Redis answers", async () => {
    const { status, body } = await environmentCheck({ REDIS_URL: liveRedis });
    expect(status).toBe(200);
    expect(body.checks.environment).toMatchObject({
      status: "pass",
      latencyMs: expect.any(Number),
      detail: expect.stringContaining("Redis answered"),
    });
    expect(JSON.stringify(body)).not.toContain(liveRedis);
  });

  it("passes right after start while the connection to Redis is still being opened", async () => {
    // Redis behind a relay that holds its answers: the client cannot be ready when health asks. They are let
    // through 100 ms after the health request, well inside its 500 ms bound even on a busy machine (a fixed
    // 150 ms delay per answer once left too little room for the ready check and the PING on a loaded host).
    const target = new URL(liveRedis);
    const relay = new TcpRelay({ host: target.hostname, port: Number(target.port || 6379) });
    await relay.open();
    relay.stall();
    try {
      const service = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${relay.port}` });
      started.push(service);
      const asked = fetch(`${service.url}/api/health`);
      setTimeout(() => relay.resume(), 100);
      const body = await (await asked).json();
      expect(body.checks.environment).toMatchObject({
        status: "pass",
        detail: expect.stringContaining("Redis answered"),
      });
    } finally {
      await started.pop()?.close();
      await relay.cut();
    }
  });

  it("warns, without failing the service, when Redis does not answer", async () => {
    // A port that accepts connections and never speaks: Redis "up" at TCP level, silent at protocol level.
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const { status, body } = await environmentCheck({ REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(status).toBe(200);
      expect(body.status).toBe("warn");
      expect(body.checks.environment.status).toBe("warn");
      expect(body.checks.environment.detail).toMatch(/Redis unreachable/);
    } finally {
      silent.close();
    }
  });
});
