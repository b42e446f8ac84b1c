import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanId } from "../../../src/modules/accounts/account.entity.js";
import type { Viewer } from "../../../src/modules/accounts/viewer.js";
import { actionCostTenths } from "../../../src/modules/billing/plans.js";
import type { ScoreCaller, ScoreRequest } from "../../../src/modules/score/score.service.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { scoreServiceOn } from "../../support/score-services.js";

/**
 * ScoreService.start over its real repositories on a database of its own (no HTTP,
 * no app): the layers of docs/api.md §6 run in order, a refused request is charged
 * nothing, and one Idempotency-Key is one job and one charge.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let service: ReturnType<typeof scoreServiceOn>;

beforeAll(async () => {
  database = await openClonedDatabase(6);
  dataSource = database.dataSource;
  service = scoreServiceOn(dataSource);
});
afterAll(async () => {
  await database?.close();
});

async function account(plan: PlanId): Promise<string> {
  const [row] = (await dataSource.query(
    `INSERT INTO "accounts" ("name", "plan", "billing_cycle_anchor") VALUES ('Acme', $1, now()) RETURNING "id"`,
    [plan],
  )) as Array<{ id: string }>;
  return row!.id;
}

const sessionOf = (accountId: string): Viewer => ({ kind: "member", accountId, userId: randomUUID(), via: "session" });
const apiKeyOf = (accountId: string): Viewer => ({
  kind: "member",
  accountId,
  apiKeyId: randomUUID(),
  via: "api_key",
  keyMode: "live",
});

/** A caller as the front door builds it; an API key's call is charged inside the job's transaction, as the context does. */
function callerOf(viewer: Viewer, idempotencyKey?: string) {
  const seen = { headers: {} as Record<string, string>, apiCallCharged: 0 };
  const requestId = `req_${randomUUID()}`;
  const caller: ScoreCaller = {
    viewer,
    clientIp: "203.0.113.7",
    requestId,
    idempotencyKey,
    setHeaders: (headers) => Object.assign(seen.headers, headers),
    apiCallCharged: () => void (seen.apiCallCharged += 1),
    chargeApiCall: async (tx) => {
      if (viewer.kind === "member" && viewer.via === "api_key") {
        await service.ledger.spend(viewer.accountId, "api_call", actionCostTenths.api_call, `request:${requestId}`, {
          manager: tx,
        });
      }
    },
  };
  return { caller, seen };
}

const score = (url: string): ScoreRequest => ({ kind: "score", url });

async function spends(accountId: string): Promise<Array<{ action: string; reference: string }>> {
  return dataSource.query(
    `SELECT "action", "reference" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'spend' ORDER BY "created_at"`,
    [accountId],
  );
}
const jobsOf = async (accountId: string): Promise<Array<{ id: string; fair_rank: number }>> =>
  dataSource.query(`SELECT "id", "fair_rank" FROM "score_jobs" WHERE "account_id" = $1 ORDER BY "created_at"`, [
    accountId,
  ]);
const keysOf = async (accountId: string): Promise<unknown[]> =>
  dataSource.query(`SELECT "resource_id" AS "job_id" FROM "idempotency_keys" WHERE "scope" = $1`, [accountId]);

describe("ScoreService.start", () => {
  it("queues a charged job at its place in the owner's backlog, announces and enqueues it", async () => {
    const accountId = await account("pro");
    const viewer = sessionOf(accountId);
    const first = await service.scores.start(callerOf(viewer).caller, score("https://acme.example/"));
    const { caller, seen } = callerOf(viewer);
    const second = await service.scores.start(caller, score("https://acme.example/pricing"));
    expect(first.job).toMatchObject({
      status: "queued",
      accountId,
      fairRank: 0,
      attempts: 0,
      leaseToken: null,
      progress: { jobId: first.job.id, status: "queued" },
    });
    expect(second.job.fairRank).toBe(1);
    expect(second.claimToken).toBeNull();
    expect(seen.apiCallCharged).toBe(1);
    // The short-window limit is per person signed in: two of its five spent.
    expect(seen.headers.RateLimit).toMatch(/^"score";r=3;t=\d+$/);
    expect(await spends(accountId)).toEqual([
      { action: "score", reference: `job:${first.job.id}` },
      { action: "score", reference: `job:${second.job.id}` },
    ]);
    expect(service.queue.enqueued).toEqual(expect.arrayContaining([first.job.id, second.job.id]));
  });

  it("charges once per Idempotency-Key, also when the retries race the first request", async () => {
    const accountId = await account("pro");
    const key = `key-${randomUUID()}`;
    const [a, b, c] = await Promise.all(
      [1, 2, 3].map(() =>
        service.scores.start(callerOf(sessionOf(accountId), key).caller, score("https://acme.example/")),
      ),
    );
    expect(new Set([a!.job.id, b!.job.id, c!.job.id]).size).toBe(1);
    const later = await service.scores.start(
      callerOf(sessionOf(accountId), key).caller,
      score("https://acme.example/"),
    );
    expect(later.job.id).toBe(a!.job.id);
    expect(await spends(accountId)).toEqual([{ action: "score", reference: `job:${a!.job.id}` }]);
    expect(await jobsOf(accountId)).toHaveLength(1);

    // The same key with another body is a conflict, and charges nothing either.
    const conflict = await rejectionOf(
      service.scores.start(callerOf(sessionOf(accountId), key).caller, score("https://other.example/")),
    );
    expect(conflict.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(await spends(accountId)).toHaveLength(1);
  });

  it("refuses over the short-window limit without charging, and a refused key is not kept", async () => {
    const accountId = await account("pro");
    const viewer = sessionOf(accountId);
    for (let n = 0; n < 5; n += 1)
      await service.scores.start(callerOf(viewer).caller, score(`https://acme.example/${n}`));
    const { caller, seen } = callerOf(viewer, `key-${randomUUID()}`);
    const refused = await rejectionOf(service.scores.start(caller, score("https://acme.example/6")));
    expect(refused.code).toBe("SCORING_RATE_LIMITED");
    expect(seen.apiCallCharged).toBe(0);
    expect(seen.headers["Retry-After"]).toBe("60");
    expect(await spends(accountId)).toHaveLength(5);
    expect(await jobsOf(accountId)).toHaveLength(5);
    // The key rolled back with the refusal: a later retry with it is a first request.
    expect(await keysOf(accountId)).toEqual([]);
  });

  it("refuses past the plan's quota without charging the score or the API call", async () => {
    const accountId = await account("free");
    for (let n = 0; n < 3; n += 1)
      await service.scores.start(callerOf(sessionOf(accountId)).caller, score(`https://acme.example/${n}`));
    const { caller, seen } = callerOf(sessionOf(accountId));
    expect((await rejectionOf(service.scores.start(caller, score("https://acme.example/4")))).code).toBe(
      "QUOTA_EXCEEDED",
    );
    expect(seen.apiCallCharged).toBe(0);
    expect(await spends(accountId)).toHaveLength(3);
    expect(await jobsOf(accountId)).toHaveLength(3);
  });

  it("charges an API key's call in the job's transaction, once", async () => {
    const accountId = await account("business");
    const { caller, seen } = callerOf(apiKeyOf(accountId));
    const started = await service.scores.start(caller, score("https://acme.example/"));
    expect(seen.apiCallCharged).toBe(1);
    expect(await spends(accountId)).toEqual([
      { action: "score", reference: `job:${started.job.id}` },
      { action: "api_call", reference: `request:${caller.requestId}` },
    ]);
  });

  it("refuses a product score from an anonymous caller before anything is written", async () => {
    const before = (await dataSource.query(`SELECT COUNT(*)::int AS "n" FROM "score_jobs"`)) as Array<{ n: number }>;
    const refused = await rejectionOf(
      service.scores.start(callerOf({ kind: "anonymous" }).caller, { kind: "product", url: "https://acme.example/" }),
    );
    expect(refused.code).toBe("AUTH_REQUIRED");
    expect(await dataSource.query(`SELECT COUNT(*)::int AS "n" FROM "score_jobs"`)).toEqual(before);
  });

  it("gives an anonymous job a claim token, stored only as its hash, and counts it by network", async () => {
    const { caller } = callerOf({ kind: "anonymous" });
    const started = await service.scores.start(caller, score("https://acme.example/"));
    expect(started.claimToken).toMatch(/^clm_/);
    expect(started.job).toMatchObject({ accountId: null, requesterIp: "203.0.113.7", fairRank: 0 });
    expect(started.job.claimTokenHash).toMatch(/^[0-9a-f]{64}$/);
    // The anonymous cap: one score per network per hour.
    expect(
      (await rejectionOf(service.scores.start(callerOf({ kind: "anonymous" }).caller, score("https://acme.example/2"))))
        .status,
    ).toBe(429);
  });

  it("attaches a product score to the account's product, created on first use", async () => {
    const accountId = await account("pro");
    const first = await service.scores.start(callerOf(sessionOf(accountId)).caller, {
      kind: "product",
      url: "https://acme.example/app/",
    });
    const again = await service.scores.start(callerOf(sessionOf(accountId)).caller, {
      kind: "product",
      url: "https://acme.example/app",
    });
    expect(first.job.productId).not.toBeNull();
    expect(again.job.productId).toBe(first.job.productId);
  });
});
