import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
import { Redis } from "ioredis";
import { apiClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * The scoring routes with REDIS_URL (rate limits, queue and progress in Redis),
 * through a link the test can cut: while Redis is gone the routes fail closed with
 * 429 and Retry-After: 60, charging nothing; when it returns, scoring resumes
 * without a restart.
 */
const real = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `pmsoutage-${randomInt(1, 1_000_000_000)}`;
let link: TcpRelay;
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  link = new TcpRelay({ host: real.hostname, port: Number(real.port || 6379) });
  await link.open();
  service = await startScoringApp({ env: { REDIS_URL: `redis://127.0.0.1:${link.port}`, REDIS_PREFIX: prefix } });
  api = apiClient(service);
});
afterAll(async () => {
  await service?.close();
  await link?.cut();
  const redis = new Redis(real.toString(), { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const quick = (cookie: string) => api("/api/score/quick", { method: "POST", cookie, body: { url: service.siteUrl("maker.test") } });

describe("scoring while Redis is down", () => {
  it("scores through Redis, refuses with 429 Retry-After: 60 while it is gone (charging nothing), and recovers by itself", async () => {
    const ada = await signIn(service, "ada@outage.test");
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'pro' WHERE id = $1`, [ada.accountId]);
    const before = await quick(ada.cookie);
    expect(before.status).toBe(200);
    expect((await before.json()).dimensions).toHaveLength(27);

    await link.cut();
    const refused = await quick(ada.cookie);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await refused.json()).error).toMatchObject({ code: "SCORING_RATE_LIMITED", retryable: true });
    expect((await (await api("/api/usage", { cookie: ada.cookie })).json()).scores.used).toBe(1);

    await link.open();
    // The connections reconnect in the background (at most every 2 s): retry as a client would.
    let after: Response | undefined;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      after = await quick(ada.cookie);
      if (after.status !== 429 && after.status !== 503) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(after!.status).toBe(200);
    expect((await (await api("/api/usage", { cookie: ada.cookie })).json()).scores.used).toBe(2);
  }, 60_000);
});
