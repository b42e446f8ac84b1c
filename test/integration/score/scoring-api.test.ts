import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";

/**
 * The scoring routes over both doors, against real crawls of local fixture sites:
 * answers, charging in the contract's order, limits, idempotency and products.
 */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;

beforeAll(async () => {
  service = await startScoringApp({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent" } });
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(() => service?.close());

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);
const setPlan = (caller: Caller, plan: string) =>
  sql("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, caller.accountId]);
const usageOf = async (caller: Caller) => (await api("/api/usage", { cookie: caller.cookie })).json();
const score = (
  path: string,
  body: unknown,
  init: { cookie?: string; bearer?: string; headers?: Record<string, string> } = {},
) => api(path, { method: "POST", body, ...init });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string; retryable: boolean } }).error,
});

/** Timestamps Date.parse accepts and Postgres rejects (or reads as another instant), in a cursor of the API's shape. */
const TAMPERED_TIMESTAMPS = [
  "1",
  "+275760-09-13T00:00:00.000Z",
  "March 7",
  "-000001-01-01T00:00:00Z",
  "0000-01-01T00:00:00.000Z",
];
const tampered = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString("base64url");

/** The ETag GET /api/score/{id} gives a final result: derived from the id alone, so anyone can compute it for any id. */
const guessedEtag = (id: string) =>
  `"${createHash("sha256").update(`/api/score/:id\n${id}`).digest("base64url").slice(0, 27)}"`;

const SCORE_FIELDS = `id url companyName totalScore stageName framework frameworkVersion mode
  dimensions { dimensionId dimensionName pillar score stageName evidence evidenceItems { url text selfReported } confidence reasoning }
  strengths gaps createdAt held expiresAt`;

describe("POST /api/score and mutation score", () => {
  it("scores a site for a signed-in member, stores it in history, and charges one score (10 credits)", async () => {
    const ada = await signIn(service, "ada@score.test");
    const response = await score(
      "/api/score",
      { url: service.siteUrl("leader.test"), context: "We sell to banks." },
      { cookie: ada.cookie },
    );
    expect(response.status).toBe(200);
    const result = await response.json();
    expect(result).toMatchObject({
      url: service.siteUrl("leader.test"),
      companyName: "Stackform Inc.",
      framework: "maturity",
      mode: "full",
    });
    expect(result.claimToken).toBeUndefined();
    expect(result.totalScore).toBeGreaterThanOrEqual(0);
    expect(result.totalScore).toBeLessThanOrEqual(100);
    expect(result.dimensions).toHaveLength(27);
    expect(new Set(result.dimensions.map((dimension: { dimensionId: string }) => dimension.dimensionId)).size).toBe(27);
    expect(result.strengths).toHaveLength(3);
    expect(result.gaps).toHaveLength(3);
    // Product-view fields are not in this answer.
    expect(result.crawledPages).toBeUndefined();
    // The rate-limit state comes with the answer.
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"score";q=5;w=60/);

    const usage = await usageOf(ada);
    expect(usage.scores).toEqual({ limit: 3, used: 1 });
    expect(usage.credits.used).toBe(10);
    const history = await (await api("/api/scores", { cookie: ada.cookie })).json();
    expect(history).toEqual({ results: [result].map(({ claimToken: _omit, ...rest }) => rest), nextCursor: null });
    // score.completed is in the outbox, for webhooks.
    const events = await sql(`SELECT type, data FROM domain_events WHERE account_id = $1`, [ada.accountId]);
    expect(events).toEqual([
      {
        type: "score.completed",
        data: expect.objectContaining({
          resultId: result.id,
          totalScore: result.totalScore,
          stageName: result.stageName,
        }),
      },
    ]);

    // The share page for people.
    const page = await api(`/r/${result.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    const html = await page.text();
    expect(html).toContain("Stackform Inc.");
    expect(html).toContain(`<meta property="og:url" content="${service.config.publicBaseUrl}/r/${result.id}"`);
    expect((await api("/r/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("answers the same result over GraphQL as over REST, and the same errors", async () => {
    const bea = await signIn(service, "bea@score.test");
    await setPlan(bea, "pro");
    const rest = await (
      await score("/api/score", { url: service.siteUrl("seed.test") }, { cookie: bea.cookie })
    ).json();
    const viaGraphQL = await graphql(
      `mutation($input: ScoreInput!) { score(input: $input) { result { ${SCORE_FIELDS} } claimToken } }`,
      { input: { url: service.siteUrl("seed.test") } },
      { cookie: bea.cookie },
    );
    const { id: _a, createdAt: _b, ...restRest } = rest;
    const { id: _c, createdAt: _d, ...graphRest } = viaGraphQL.data!.score.result;
    // A second crawl of the same site and the same framework version scores the same, to the point.
    expect(graphRest).toEqual(restRest);
    // The stored result reads back identically through both doors.
    const byId = await (await api(`/api/score/${rest.id}`)).json();
    const byIdGraphQL = await graphql(`query($id: ID!) { scoreResult(id: $id) { ${SCORE_FIELDS} } }`, { id: rest.id });
    expect(byId).toEqual(rest);
    expect(byIdGraphQL.data!.scoreResult).toEqual(rest);

    const cases: Array<[unknown, string]> = [
      [{ url: "ftp://example.com" }, "INVALID_URL"],
      [{}, "VALIDATION_FAILED"],
      [{ url: "https://example.com", context: "x".repeat(5_001) }, "VALIDATION_FAILED"],
      [{ url: `https://example.com/${"a".repeat(2_050)}` }, "VALIDATION_FAILED"],
    ];
    for (const [body, code] of cases) {
      const restError = await errorOf(await score("/api/score", body, { cookie: bea.cookie }));
      const graphError = await graphql(
        `
          mutation ($input: ScoreInput!) {
            score(input: $input) {
              job {
                id
              }
            }
          }
        `,
        { input: body },
        { cookie: bea.cookie },
      );
      expect(restError.code, JSON.stringify(body).slice(0, 60)).toBe(code);
      expect(graphError.errors?.[0]?.extensions?.code, JSON.stringify(body).slice(0, 60)).toBe(code);
    }
    // Refused requests were charged nothing: two scores only.
    expect((await usageOf(bea)).scores.used).toBe(2);

    // An address the crawl would refuse without a DNS lookup is refused when asked, with no job: not queued to fail.
    const jobsBefore = Number(
      (await sql(`SELECT count(*) AS n FROM score_jobs WHERE account_id = $1`, [bea.accountId]))[0].n,
    );
    for (const url of [
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://2130706434/",
      "https://example.com:8443/",
    ]) {
      const refused = await errorOf(await score("/api/score", { url }, { cookie: bea.cookie }));
      expect(refused, url).toMatchObject({ status: 400, code: "INVALID_URL" });
      const started = await graphql(
        `
          mutation ($input: StartScoreInput!) {
            startScore(input: $input) {
              job {
                id
              }
            }
          }
        `,
        { input: { url } },
        { cookie: bea.cookie },
      );
      expect(started.errors?.[0]?.extensions?.code, url).toBe("INVALID_URL");
    }
    expect(
      Number((await sql(`SELECT count(*) AS n FROM score_jobs WHERE account_id = $1`, [bea.accountId]))[0].n),
    ).toBe(jobsBefore);
    expect((await usageOf(bea)).scores.used).toBe(2);
  });

  it("refunds a score whose crawl failed, and answers the crawl's error", async () => {
    const cy = await signIn(service, "cy@score.test");
    const failed = await errorOf(
      await score("/api/score", { url: service.siteUrl("down.test") }, { cookie: cy.cookie }),
    );
    expect(failed).toMatchObject({ status: 400, code: "CRAWL_FAILED", retryable: false });
    const usage = await usageOf(cy);
    expect(usage.scores.used).toBe(0);
    expect(usage.credits.used).toBe(0);
  });

  it("holds an anonymous result with a one-time claim token, readable by anyone by id, cacheable once linked", async () => {
    const response = await score(
      "/api/score",
      { url: service.siteUrl("growing.test") },
      { headers: { "x-test": "anon" } },
    );
    expect(response.status).toBe(200);
    const held = await response.json();
    expect(held.claimToken).toMatch(/^clm_[A-Za-z0-9_-]{32}$/);

    // Held (not final: purged unless linked), so not cacheable.
    const shared = await api(`/api/score/${held.id}`);
    expect(shared.status).toBe(200);
    expect(shared.headers.get("etag")).toBeNull();
    expect(shared.headers.get("cache-control")).toBe("no-store");
    const { claimToken, ...publicView } = held;
    expect(publicView.held).toBe(true);
    expect(await shared.json()).toEqual(publicView);
    // Not even to a client that presents the ETag it would have once final: a held result may yet be purged.
    for (const ifNoneMatch of [guessedEtag(held.id), "*"]) {
      const revalidated = await api(`/api/score/${held.id}`, { headers: { "if-none-match": ifNoneMatch } });
      expect(revalidated.status, ifNoneMatch).toBe(200);
      expect(revalidated.headers.get("etag")).toBeNull();
      expect(await revalidated.json()).toEqual(publicView);
    }

    // Linked to an account, it is final: ETag, public caching, 304 on revalidation.
    const ivy = await signIn(service, "ivy@score.test");
    const linked = await api("/api/score/link", {
      method: "POST",
      cookie: ivy.cookie,
      body: { resultId: held.id, claimToken },
    });
    expect(linked.status).toBe(200);
    const final = await api(`/api/score/${held.id}`);
    const etag = final.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(etag).toBe(guessedEtag(held.id));
    expect(final.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await final.json()).toEqual({ ...publicView, held: false, expiresAt: null });
    const again = await api(`/api/score/${held.id}`, { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("public, max-age=300");
    // RFC 9110: a weak tag compares equal, a list matches when one of its tags does, `*` matches an answer that exists.
    for (const ifNoneMatch of [`W/${etag}`, `"something-else", ${etag}`, `W/"x",W/${etag}`, "*"]) {
      expect(
        (await api(`/api/score/${held.id}`, { headers: { "if-none-match": ifNoneMatch } })).status,
        ifNoneMatch,
      ).toBe(304);
    }
    expect((await api(`/api/score/${held.id}`, { headers: { "if-none-match": '"something-else"' } })).status).toBe(200);

    // The anonymous cap: one per IP per hour.
    const capped = await score("/api/score/quick", { url: service.siteUrl("growing.test") });
    expect(capped.status).toBe(429);
    expect(capped.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(capped.headers.get("retry-after"))).toBeGreaterThan(3_000);
    expect((await capped.json()).error).toMatchObject({ code: "ANON_RATE_LIMIT", retryable: true });

    // Unknown ids are 404 in the envelope, and not cached.
    const missing = await api("/api/score/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    expect((await api("/api/score/not-a-uuid")).status).toBe(404);
    // Also to an If-None-Match that looks right: the ETag only names an answer that exists.
    for (const ifNoneMatch of [guessedEtag("11111111-2222-4333-8444-555555555555"), "*"]) {
      const guessed = await api("/api/score/11111111-2222-4333-8444-555555555555", {
        headers: { "if-none-match": ifNoneMatch },
      });
      expect(guessed.status, ifNoneMatch).toBe(404);
      expect(guessed.headers.get("etag")).toBeNull();
      expect((await guessed.json()).error.code).toBe("NOT_FOUND");
    }
  });
});

describe("startScore", () => {
  it("needs only the url: kind defaults to the full maturity score", async () => {
    const kit = await signIn(service, "kit@score.test");
    await setPlan(kit, "pro");
    const started = await graphql(
      `
        mutation ($input: StartScoreInput!) {
          startScore(input: $input) {
            job {
              id
              kind
              status
            }
          }
        }
      `,
      { input: { url: service.siteUrl("bare.test") } },
      { cookie: kit.cookie },
    );
    expect(started.errors).toBeUndefined();
    expect(started.data?.startScore.job).toMatchObject({ kind: "score" });
    const literal = await graphql(
      `mutation { startScore(input: { url: "${service.siteUrl("bare.test")}" }) { job { kind } } }`,
      undefined,
      { cookie: kit.cookie },
    );
    expect(literal.data?.startScore.job.kind).toBe("score");
  });
});

describe("limits, in the contract's order", () => {
  it("lets 5 score requests a minute through and refuses the 6th with 429 and Retry-After: 60, charging it nothing", async () => {
    const dee = await signIn(service, "dee@score.test");
    await setPlan(dee, "pro");
    for (let i = 0; i < 5; i += 1) {
      const started = await graphql(
        `
          mutation ($input: StartScoreInput!) {
            startScore(input: $input) {
              job {
                id
              }
            }
          }
        `,
        { input: { url: service.siteUrl("bare.test"), kind: "quick" } },
        { cookie: dee.cookie },
      );
      expect(started.errors, `request ${i + 1}`).toBeUndefined();
    }
    const sixth = await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { cookie: dee.cookie });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBe("60");
    expect(sixth.headers.get("ratelimit-policy")).toMatch(/"score";q=5;w=60/);
    expect(sixth.headers.get("ratelimit")).toMatch(/"score";r=0;t=\d+/);
    expect((await sixth.json()).error).toMatchObject({ code: "SCORING_RATE_LIMITED", retryable: true });
    expect((await usageOf(dee)).scores.used).toBe(5);
  });

  it("refuses Free's 4th score with QUOTA_EXCEEDED (429, not retryable) and charges nothing", async () => {
    const eve = await signIn(service, "eve@score.test");
    for (let i = 0; i < 3; i += 1)
      expect(
        (await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { cookie: eve.cookie })).status,
      ).toBe(200);
    const fourth = await errorOf(
      await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { cookie: eve.cookie }),
    );
    expect(fourth).toMatchObject({ status: 429, code: "QUOTA_EXCEEDED", retryable: false });
    const usage = await usageOf(eve);
    expect(usage.scores.used).toBe(3);
    expect(usage.credits.used).toBe(30);
  });

  it("charges an API key's score its API call in the same transaction, and holds all of an account's keys to 5 scores per 60 s", async () => {
    const owner = await signIn(service, "keys@score.test");
    await setPlan(owner, "business");
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ci" } })
    ).json();
    const { secret: second } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ci-2" } })
    ).json();
    for (let i = 0; i < 5; i += 1) {
      const started = await graphql(
        `
          mutation ($input: StartScoreInput!) {
            startScore(input: $input) {
              job {
                id
              }
            }
          }
        `,
        { input: { url: service.siteUrl("bare.test"), kind: "quick" } },
        { bearer: i % 2 ? second : secret },
      );
      expect(started.errors, `request ${i + 1}`).toBeUndefined();
    }
    // A sixth, through either key, meets the short-window limit: 429, retryable, charged nothing.
    const sixth = await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { bearer: second });
    expect(sixth.headers.get("retry-after")).toBe("60");
    expect(await errorOf(sixth)).toMatchObject({ status: 429, code: "SCORING_RATE_LIMITED", retryable: true });
    const usage = await usageOf(owner);
    expect(usage.scores.used).toBe(5);
    expect(usage.apiCalls.used).toBe(5);
    // 5 × 10 + 5 × 0.1 credits, exact.
    expect(usage.credits.used).toBe(50.5);
    // The limit is the account's, not the whole service's: another account's key still scores.
    const other = await signIn(service, "keys-other@score.test");
    await setPlan(other, "business");
    const { secret: otherKey } = await (
      await api("/api/keys", { method: "POST", cookie: other.cookie, body: { name: "ci" } })
    ).json();
    expect((await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { bearer: otherKey })).status).toBe(
      200,
    );

    // The API-call ceiling refuses after the quota layer passed: nothing of it is kept.
    await sql(`UPDATE accounts SET plan = 'enterprise' WHERE id = $1`, [other.accountId]);
    await sql(
      `INSERT INTO credit_entries (account_id, kind, bucket, amount_tenths, action, reference, cycle_start)
       SELECT $1, 'spend', 'plan', 0, 'api_call', 'filler-' || g, cycle_start FROM generate_series(1, 100000) g,
       (SELECT cycle_start FROM credit_entries WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1) c`,
      [other.accountId],
    );
    // The ledger's running totals follow its own writes only; the bulk insert moves them by hand.
    await sql(`UPDATE credit_balances SET api_call_count = api_call_count + 100000 WHERE account_id = $1`, [
      other.accountId,
    ]);
    const refused = await errorOf(
      await score("/api/score/quick", { url: service.siteUrl("bare.test") }, { bearer: otherKey }),
    );
    expect(refused).toMatchObject({ status: 429, code: "QUOTA_EXCEEDED" });
    expect((await usageOf(other)).scores.used).toBe(1);
  });
});

describe("concurrency", () => {
  it("charges exactly 3 of 50 concurrent score requests of one key when credits cover 3: 45 meet the short-window limit, 2 CREDIT_EXHAUSTED", async () => {
    const owner = await signIn(service, "fifty@score.test");
    await setPlan(owner, "business");
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "load" } })
    ).json();
    // One API call opens the cycle (its grant) and costs 0.1.
    expect((await api("/api/usage", { bearer: secret })).status).toBe(200);
    // Leave 30.3 credits: three scores with their API calls (3 × 10.1), not a fourth.
    await sql(
      `INSERT INTO credit_entries (account_id, kind, bucket, amount_tenths, action, reference, cycle_start)
       SELECT $1, 'spend', 'plan', -19696, 'chat', 'filler', cycle_start FROM credit_entries WHERE account_id = $1 AND kind = 'grant' LIMIT 1`,
      [owner.accountId],
    );
    await sql(
      `UPDATE credit_balances SET plan_balance = plan_balance - 19696, plan_used = plan_used + 19696, chat_count = chat_count + 1 WHERE account_id = $1`,
      [owner.accountId],
    );
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        graphql(
          `
            mutation ($input: StartScoreInput!) {
              startScore(input: $input) {
                job {
                  id
                }
              }
            }
          `,
          { input: { url: service.siteUrl("bare.test"), kind: "quick" } },
          { bearer: secret },
        ),
      ),
    );
    const started = answers.filter((answer) => answer.data?.startScore);
    const codes = answers.flatMap((answer) => answer.errors?.map((error) => error.extensions?.code as string) ?? []);
    expect(started).toHaveLength(3);
    // 5 pass the account's short-window limit; credits cover 3 of them.
    expect(codes.sort()).toEqual([...Array(2).fill("CREDIT_EXHAUSTED"), ...Array(45).fill("SCORING_RATE_LIMITED")]);
    const [charged] = await sql(
      `SELECT count(*) FILTER (WHERE action = 'score')::int AS scores, count(*) FILTER (WHERE action = 'api_call')::int AS calls
         FROM credit_entries WHERE account_id = $1 AND kind = 'spend' AND bucket = 'plan'`,
      [owner.accountId],
    );
    expect(charged).toEqual({ scores: 3, calls: 4 });
    expect((await usageOf(owner)).credits.remaining).toBe(0);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first answer within 24 h and charges nothing more; another body is a 409", async () => {
    const fay = await signIn(service, "fay@score.test");
    await setPlan(fay, "pro");
    const headers = { "idempotency-key": "order-4711" };
    const first = await score("/api/score", { url: service.siteUrl("early.test") }, { cookie: fay.cookie, headers });
    const second = await score("/api/score", { url: service.siteUrl("early.test") }, { cookie: fay.cookie, headers });
    expect(second.status).toBe(first.status);
    const [a, b] = [await first.json(), await second.json()];
    expect(b).toEqual(a);
    // Only the replay says it is one.
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    // The replay spent no slot, and still says where the caller stands.
    const remaining = (response: Response) => /;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1];
    expect(second.headers.get("ratelimit-policy")).toMatch(/^"score";q=5;w=60/);
    expect(remaining(second)).toBe(remaining(first));
    expect(remaining(first)).toBe("4");
    expect((await usageOf(fay)).scores.used).toBe(1);

    const conflict = await errorOf(
      await score("/api/score", { url: service.siteUrl("seed.test") }, { cookie: fay.cookie, headers }),
    );
    expect(conflict).toMatchObject({ status: 409, code: "IDEMPOTENCY_CONFLICT" });
    // Over GraphQL the same header works the same.
    const replayed = await graphql(
      `
        mutation ($input: ScoreInput!) {
          score(input: $input) {
            result {
              id
            }
          }
        }
      `,
      { input: { url: service.siteUrl("early.test") } },
      { cookie: fay.cookie, headers },
    );
    expect(replayed.data!.score.result.id).toBe(a.id);
    expect((replayed as { extensions?: unknown }).extensions).toEqual({ idempotentReplayed: true });
    // Concurrent first requests with one key start one job.
    const racing = { "idempotency-key": "race-1" };
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        score("/api/score/quick", { url: service.siteUrl("maker.test") }, { cookie: fay.cookie, headers: racing }),
      ),
    );
    const bodies = await Promise.all(answers.map(async (answer) => answer.json()));
    const ids = new Set(bodies.map((body) => body.id ?? body.error?.code));
    expect(ids.size).toBe(1);
    expect((await usageOf(fay)).scores.used).toBe(2);
    // Only the first of the racing three spent a slot of the 5 per 60 s: order-4711, race-1 and this one make 3.
    const next = await score(
      "/api/score/quick",
      { url: service.siteUrl("maker.test") },
      { cookie: fay.cookie, headers: { "idempotency-key": "after-the-race" } },
    );
    expect(next.status).toBe(200);
    expect(next.headers.get("ratelimit")).toMatch(/^"score";r=2;t=\d+$/);
  });
});

describe("products", () => {
  it("attaches product scores to the caller's product, answers the product view, and hides it from other accounts", async () => {
    const gus = await signIn(service, "gus@score.test");
    const response = await score(
      "/api/score/product",
      { url: service.siteUrl("scaleup.test") },
      { cookie: gus.cookie },
    );
    expect(response.status).toBe(200);
    const result = await response.json();
    expect(result).toMatchObject({
      framework: "product",
      crawledPages: expect.any(Array),
      crossDimensionNotes: expect.any(String),
      antiPatternsDetected: expect.any(Array),
    });
    expect(result.crawlStats).toMatchObject({ pagesAnalyzed: expect.any(Number), contentLength: expect.any(Number) });
    expect(result.productId).toMatch(/^[0-9a-f-]{36}$/);

    const again = await (
      await score("/api/score/product", { url: `${service.siteUrl("scaleup.test")}#pricing` }, { cookie: gus.cookie })
    ).json();
    expect(again.productId).toBe(result.productId);
    const product = await (await api(`/api/products/${result.productId}`, { cookie: gus.cookie })).json();
    expect(product).toMatchObject({ id: result.productId, accountId: gus.accountId, name: result.companyName });
    expect(product.results.map((item: { id: string }) => item.id)).toEqual([again.id, result.id]);
    expect(product.nextCursor).toBeNull();

    // Results are paged (never all of them at once): limit and cursor, as for history.
    const first = await (await api(`/api/products/${result.productId}?limit=1`, { cookie: gus.cookie })).json();
    expect(first.results.map((item: { id: string }) => item.id)).toEqual([again.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await (
      await api(`/api/products/${result.productId}?limit=1&cursor=${first.nextCursor}`, { cookie: gus.cookie })
    ).json();
    expect(second.results.map((item: { id: string }) => item.id)).toEqual([result.id]);
    expect(second.nextCursor).toBeNull();
    expect((await api(`/api/products/${result.productId}?limit=101`, { cookie: gus.cookie })).status).toBe(400);
    expect((await api(`/api/products/${result.productId}?cursor=forged`, { cookie: gus.cookie })).status).toBe(400);
    for (const at of TAMPERED_TIMESTAMPS) {
      expect(
        (await api(`/api/products/${result.productId}?cursor=${tampered(at, result.id)}`, { cookie: gus.cookie }))
          .status,
        at,
      ).toBe(400);
    }
    const viaGraphQL = await graphql(
      `
        query ($id: ID!) {
          product(id: $id) {
            results(limit: 1) {
              id
            }
            resultPage(limit: 1) {
              results {
                id
              }
              nextCursor
            }
          }
        }
      `,
      { id: result.productId },
      { cookie: gus.cookie },
    );
    expect(viaGraphQL.data?.product).toEqual({
      results: [{ id: again.id }],
      resultPage: { results: [{ id: again.id }], nextCursor: first.nextCursor },
    });

    // Free includes one product: a second address is refused before anything is charged.
    const refused = await errorOf(
      await score("/api/score/product", { url: service.siteUrl("seed.test") }, { cookie: gus.cookie }),
    );
    expect(refused).toMatchObject({ status: 402, code: "PLAN_LIMIT_REACHED" });
    const usage = await usageOf(gus);
    expect(usage.scores.used).toBe(2);
    expect(usage.products).toEqual({ limit: 1, used: 1 });

    const stranger = await signIn(service, "stranger@score.test");
    expect((await api(`/api/products/${result.productId}`, { cookie: stranger.cookie })).status).toBe(404);
    expect((await score("/api/score/product", { url: service.siteUrl("seed.test") })).status).toBe(401);
  });
});

describe("GET /api/scores", () => {
  it("pages the history newest first with a cursor, and refuses a forged cursor", async () => {
    const hal = await signIn(service, "hal@score.test");
    await setPlan(hal, "pro");
    const ids: string[] = [];
    for (const host of ["bare.test", "maker.test", "early.test"]) {
      ids.push(
        (await (await score("/api/score/quick", { url: service.siteUrl(host) }, { cookie: hal.cookie })).json()).id,
      );
    }
    const first = await (await api("/api/scores?limit=2", { cookie: hal.cookie })).json();
    expect(first.results.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await (await api(`/api/scores?limit=2&cursor=${first.nextCursor}`, { cookie: hal.cookie })).json();
    expect(second).toMatchObject({ results: [{ id: ids[0] }], nextCursor: null });
    for (const query of ["limit=0", "limit=101", "limit=abc", "cursor=forged"]) {
      expect((await errorOf(await api(`/api/scores?${query}`, { cookie: hal.cookie }))).code, query).toBe(
        "VALIDATION_FAILED",
      );
    }
    // A cursor re-encoded with a timestamp Date.parse accepts but Postgres does not is still the caller's mistake.
    for (const at of TAMPERED_TIMESTAMPS) {
      expect(
        await errorOf(await api(`/api/scores?cursor=${tampered(at, ids[0]!)}`, { cookie: hal.cookie })),
        at,
      ).toMatchObject({
        status: 400,
        code: "VALIDATION_FAILED",
        message: "cursor: is not a cursor this API returned",
      });
    }
    expect((await api("/api/scores")).status).toBe(401);
  });
});
