import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { SHARE_PAGE_REVISION } from "../../../src/http/share-route.js";

/**
 * Anonymous results are held: no account, a one-time claim token (answered once,
 * stored only as a hash), 30 days to link them into an account's history
 * (POST /api/score/link), after which maintenance purges them.
 *
 * One anonymous score per address per hour: each anonymous caller here comes
 * through the local proxy (TRUST_PROXY) with an address of its own.
 */

let service: ScoringTestApp;
beforeAll(async () => {
  service = await startScoringApp({ env: { TRUST_PROXY: "127.0.0.1" } });
});
afterAll(() => service?.close());

const api = () => apiClient(service);
const dataSource = () => service.app.database.dataSource;
const DAY_MS = 24 * 60 * 60 * 1000;
let nextAddress = 10;

interface Held {
  readonly id: string;
  readonly claimToken: string;
}

/** An anonymous `POST /api/score` from an address of its own. */
async function anonymousScore(host = "maker.test"): Promise<Held> {
  const response = await api()("/api/score", {
    method: "POST",
    body: { url: service.siteUrl(host) },
    headers: { "x-forwarded-for": `203.0.113.${nextAddress++}` },
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body).toMatchObject({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    claimToken: expect.stringMatching(/^clm_[\w-]{20,}$/),
  });
  return { id: body.id, claimToken: body.claimToken };
}

const link = (cookie: string | undefined, body: Record<string, unknown>) =>
  api()("/api/score/link", { method: "POST", body, ...(cookie ? { cookie } : {}) });

async function historyIds(cookie: string): Promise<string[]> {
  const response = await api()("/api/scores", { cookie });
  expect(response.status).toBe(200);
  return ((await response.json()).results as Array<{ id: string }>).map((result) => result.id);
}

async function expectNotFound(response: Response) {
  expect(response.status).toBe(404);
  expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND" });
}

interface StoredResult {
  account_id: string | null;
  claim_token_hash: string | null;
  claim_expires_at: Date | null;
}
const stored = async (id: string): Promise<StoredResult | undefined> =>
  (
    (await dataSource().query(
      `SELECT "account_id", "claim_token_hash", "claim_expires_at" FROM "score_results" WHERE "id" = $1`,
      [id],
    )) as StoredResult[]
  )[0];

describe("held anonymous results", () => {
  let linked: Held;
  let held: Held;
  let member: Awaited<ReturnType<typeof signIn>>;

  it("are held for 30 days with a token stored only as a hash, outside every history", async () => {
    const started = Date.now();
    linked = await anonymousScore();
    const row = (await stored(linked.id))!;
    expect(row.account_id).toBeNull();
    expect(row.claim_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.claim_token_hash).not.toContain(linked.claimToken);
    expect(row.claim_expires_at!.getTime()).toBeGreaterThanOrEqual(started + 30 * DAY_MS - 1_000);
    expect(row.claim_expires_at!.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 1_000);

    member = await signIn(service, "held-linker@example.com");
    expect(await historyIds(member.cookie)).toEqual([]);
    // Anyone with the id can read it (share links).
    expect((await api()(`/api/score/${linked.id}`)).status).toBe(200);
  });

  it("link into the caller's history with the session cookie, once", async () => {
    // Without credentials: refused, and the token is not used up.
    const anonymous = await link(undefined, { resultId: linked.id, claimToken: linked.claimToken });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error).toMatchObject({ code: "AUTH_REQUIRED" });

    const response = await link(member.cookie, { resultId: linked.id, claimToken: linked.claimToken });
    expect(response.status).toBe(200);
    expect((await response.json()).result).toMatchObject({ id: linked.id });
    expect(await historyIds(member.cookie)).toEqual([linked.id]);
    expect(await stored(linked.id)).toEqual({
      account_id: member.accountId,
      claim_token_hash: null,
      claim_expires_at: null,
    });

    // The token worked once: neither the same caller nor anyone else can use it again.
    await expectNotFound(await link(member.cookie, { resultId: linked.id, claimToken: linked.claimToken }));
    const other = await signIn(service, "held-other@example.com");
    await expectNotFound(await link(other.cookie, { resultId: linked.id, claimToken: linked.claimToken }));
    expect(await historyIds(other.cookie)).toEqual([]);
    expect(await historyIds(member.cookie)).toEqual([linked.id]);
  });

  it("answer NOT_FOUND to a wrong token, and stay held", async () => {
    held = await anonymousScore();
    await expectNotFound(await link(member.cookie, { resultId: held.id, claimToken: `clm_${"x".repeat(32)}` }));
    // Another result's (already used) token does not open this one either.
    await expectNotFound(await link(member.cookie, { resultId: held.id, claimToken: linked.claimToken }));
    expect((await stored(held.id))!.account_id).toBeNull();
    expect(await historyIds(member.cookie)).toEqual([linked.id]);
  });

  let purged: Held;

  it("are purged after 30 days unless linked; linked and unexpired ones are kept", async () => {
    purged = await anonymousScore("early.test");
    // 31 days pass for this one; the linked one is as old, linked long ago.
    await dataSource().query(
      `UPDATE "score_results" SET "created_at" = now() - interval '31 days', "claim_expires_at" = now() - interval '1 day' WHERE "id" = $1`,
      [purged.id],
    );
    await dataSource().query(`UPDATE "score_results" SET "created_at" = now() - interval '40 days' WHERE "id" = $1`, [
      linked.id,
    ]);

    // Past its 30 days, the token no longer links it.
    await expectNotFound(await link(member.cookie, { resultId: purged.id, claimToken: purged.claimToken }));

    expect(await new ScoreResultRepository(dataSource()).purgeExpiredHeld(new Date())).toBe(1);
    expect(await stored(purged.id)).toBeUndefined();
    expect(await dataSource().query(`SELECT 1 FROM "score_dimensions" WHERE "result_id" = $1`, [purged.id])).toEqual(
      [],
    );
    await expectNotFound(await link(member.cookie, { resultId: purged.id, claimToken: purged.claimToken }));

    // The linked one and the unexpired held one are kept, and the held one can still be linked.
    expect(await stored(linked.id)).toMatchObject({ account_id: member.accountId });
    expect(await stored(held.id)).toMatchObject({ account_id: null });
    expect((await api()(`/api/score/${linked.id}`)).status).toBe(200);
    expect((await api()(`/api/score/${held.id}`)).status).toBe(200);
    expect(await new ScoreResultRepository(dataSource()).purgeExpiredHeld(new Date())).toBe(0);
    const late = await link(member.cookie, { resultId: held.id, claimToken: held.claimToken });
    expect(late.status).toBe(200);
    expect((await historyIds(member.cookie)).sort()).toEqual([linked.id, held.id].sort());
  });

  it("are no longer served once purged (REST 404, GraphQL NOT_FOUND), even if their share link was read before", async () => {
    const shared = await anonymousScore("seed.test");
    expect((await api()(`/api/score/${shared.id}`)).status).toBe(200);
    await dataSource().query(
      `UPDATE "score_results" SET "claim_expires_at" = now() - interval '1 day' WHERE "id" = $1`,
      [shared.id],
    );
    expect(await new ScoreResultRepository(dataSource()).purgeExpiredHeld(new Date())).toBe(1);
    expect(await stored(shared.id)).toBeUndefined();

    for (const gone of [purged, shared]) {
      const rest = await api()(`/api/score/${gone.id}`);
      expect(rest.status, `GET /api/score/${gone.id} of a purged result`).toBe(404);
      const graphql = await (
        await api()("/graphql", {
          method: "POST",
          body: { query: `query R($id: ID!) { scoreResult(id: $id) { id } }`, variables: { id: gone.id } },
        })
      ).json();
      expect(graphql.errors?.[0]?.extensions, `scoreResult(${gone.id}) of a purged result`).toMatchObject({
        code: "NOT_FOUND",
      });
    }
  });
});

describe("a held result's expiresAt", () => {
  const readBothDoors = async (id: string) => {
    const rest = await api()(`/api/score/${id}`);
    expect(rest.status).toBe(200);
    const graphql = await graphqlClient(service)(`query R($id: ID!) { scoreResult(id: $id) { expiresAt held } }`, {
      id,
    });
    return { rest: (await rest.json()).expiresAt, graphql: graphql.data?.scoreResult };
  };

  it("is the end of the hold, in the score answer, GET /api/score/{id}, GraphQL and the share page; null once linked", async () => {
    const response = await api()("/api/score/quick", {
      method: "POST",
      body: { url: service.siteUrl("maker.test") },
      headers: { "x-forwarded-for": `203.0.113.${nextAddress++}` },
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    const end = (await stored(body.id))!.claim_expires_at!.toISOString();
    expect(body.expiresAt).toBe(end);

    expect(await readBothDoors(body.id)).toEqual({ rest: end, graphql: { expiresAt: end, held: true } });
    const page = await (await api()(`/r/${body.id}`, { headers: { accept: "text/html" } })).text();
    const day = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(new Date(end));
    expect(page).toContain(`Kept until <time datetime="${end}">${day}</time> unless claimed`);

    const member = await signIn(service, "held-expiry@example.com");
    const linked = await link(member.cookie, { resultId: body.id, claimToken: body.claimToken });
    expect(linked.status).toBe(200);
    expect((await linked.json()).result.expiresAt).toBeNull();
    expect(await readBothDoors(body.id)).toEqual({ rest: null, graphql: { expiresAt: null, held: false } });
    expect(await (await api()(`/r/${body.id}`)).text()).not.toContain("Kept until");
  });
});

describe("the anonymous cap counts networks, not addresses", () => {
  it("treats every address of one IPv6 /64 as one caller, and another /64 as another", async () => {
    const from = (address: string) =>
      api()("/api/score/quick", {
        method: "POST",
        body: { url: service.siteUrl("maker.test") },
        headers: { "x-forwarded-for": address },
      });
    expect((await from("2001:db8:77:1::1")).status).toBe(200);
    const sameNetwork = await from("2001:db8:77:1:abcd:ef01:2345:6789");
    expect(sameNetwork.status).toBe(429);
    expect((await sameNetwork.json()).error).toMatchObject({ code: "ANON_RATE_LIMIT" });
    expect((await from("2001:db8:77:2::1")).status).toBe(200);
    // IPv4 stays per address.
    expect((await from("198.51.100.201")).status).toBe(200);
    expect((await from("198.51.100.202")).status).toBe(200);
  });

  it("lets another address of the requester's /64 follow its job", async () => {
    const started = await api()("/graphql", {
      method: "POST",
      body: {
        query: `mutation($input: StartScoreInput!) { startScore(input: $input) { job { id } } }`,
        variables: { input: { url: service.siteUrl("maker.test"), kind: "quick" } },
      },
      headers: { "x-forwarded-for": "2001:db8:77:9::1" },
    });
    const jobId = (await started.json()).data.startScore.job.id as string;
    const follow = (address: string) =>
      api()("/graphql", {
        method: "POST",
        body: { query: `query($id: ID!) { scoreJob(id: $id) { id } }`, variables: { id: jobId } },
        headers: { "x-forwarded-for": address },
      }).then((response) => response.json());
    expect((await follow("2001:db8:77:9::2")).data?.scoreJob.id).toBe(jobId);
    expect((await follow("2001:db8:77:8::1")).errors?.[0].extensions.code).toBe("NOT_FOUND");
  });
});

describe("an anonymous Idempotency-Key replay", () => {
  it("answers the same claim token from another process, which then links the result; the table keeps neither key nor token readable", async () => {
    // A second service on the same database: another process as far as the scoring service knows (nothing shared in memory).
    const other = await startScoringApp({ env: { TRUST_PROXY: "127.0.0.1", DATABASE_URL: service.database!.url } });
    try {
      const address = `203.0.113.${nextAddress++}`;
      const key = `anon-replay-${Date.now()}`;
      const request = {
        method: "POST",
        body: { url: service.siteUrl("maker.test") },
        headers: { "x-forwarded-for": address, "idempotency-key": key },
      };
      const first = await api()("/api/score", request);
      const firstBody = await first.json();
      expect(first.status, JSON.stringify(firstBody)).toBe(200);
      expect(firstBody.claimToken).toMatch(/^clm_/);

      // The client's connection dropped; its retry reaches the other process.
      const replay = await apiClient(other)("/api/score", request);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual(firstBody);
      // And GraphQL's door, with the same key, answers the same token.
      const viaGraphQL = await (
        await apiClient(other)("/graphql", {
          method: "POST",
          body: {
            query: `mutation($input: ScoreInput!) { score(input: $input) { result { id } claimToken } }`,
            variables: { input: { url: service.siteUrl("maker.test") } },
          },
          headers: { "x-forwarded-for": address, "idempotency-key": key },
        })
      ).json();
      expect(viaGraphQL.data?.score).toEqual({ result: { id: firstBody.id }, claimToken: firstBody.claimToken });

      const rows = (await dataSource().query(
        `SELECT "key", "sealed_claim_token" FROM "idempotency_keys" WHERE "resource_id" = (SELECT "id"::text FROM "score_jobs" WHERE "result_id" = $1)`,
        [firstBody.id],
      )) as Array<{ key: string; sealed_claim_token: string }>;
      expect(rows).toHaveLength(1);
      expect(rows[0]!.key).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(rows[0]!.key).not.toContain(key);
      expect(rows[0]!.sealed_claim_token).toMatch(/^v1\./);
      expect(rows[0]!.sealed_claim_token).not.toContain(firstBody.claimToken.slice(4));

      // The replayed token is the real one: it links the result, once.
      const member = await signIn(other, "replay-linker@example.com");
      const linked = await apiClient(other)("/api/score/link", {
        method: "POST",
        body: { resultId: firstBody.id, claimToken: firstBody.claimToken },
        cookie: member.cookie,
      });
      expect(linked.status).toBe(200);
      expect((await stored(firstBody.id))!.account_id).toBe(member.accountId);
    } finally {
      await other.close();
    }
  });
});

describe("concurrent anonymous retries with one Idempotency-Key", () => {
  it("all answer the first request's result: none is refused the hour's one anonymous score the first is using", async () => {
    const headers = { "x-forwarded-for": `203.0.113.${nextAddress++}`, "idempotency-key": `race-${Date.now()}` };
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        api()("/api/score", { method: "POST", body: { url: service.siteUrl("maker.test") }, headers }),
      ),
    );
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as Array<{
      id?: string;
      claimToken?: string;
      error?: { code: string };
    }>;
    expect(
      answers.map((answer) => answer.status),
      JSON.stringify(bodies.map((body) => body.error)),
    ).toEqual([200, 200, 200]);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(new Set(bodies.map((body) => body.claimToken)).size).toBe(1);
    // Every answer, replays included, says the hour's one anonymous score is spent.
    expect(answers.map((answer) => /;r=(\d+);/.exec(answer.headers.get("ratelimit") ?? "")?.[1])).toEqual([
      "0",
      "0",
      "0",
    ]);
  });
});

describe("the share page's revalidation", () => {
  it("answers 304 only for a final result: an unknown id is 404 and a held result 200 without an ETag, whatever If-None-Match says", async () => {
    const unknown = "11111111-2222-4333-8444-555555555555";
    const missing = await api()(`/r/${unknown}`, { headers: { "if-none-match": `"r-${unknown}-1"` } });
    expect(missing.status).toBe(404);

    const held = await anonymousScore("seed.test");
    const whileHeld = await api()(`/r/${held.id}`, {
      headers: { "if-none-match": `"r-${held.id}-${SHARE_PAGE_REVISION}"` },
    });
    expect(whileHeld.status).toBe(200);
    expect(whileHeld.headers.get("etag")).toBeNull();
    expect(whileHeld.headers.get("cache-control")).toBe("no-store");

    const member = await signIn(service, "share-revalidator@example.com");
    expect((await link(member.cookie, { resultId: held.id, claimToken: held.claimToken })).status).toBe(200);
    const fresh = await api()(`/r/${held.id}`);
    expect(fresh.status).toBe(200);
    // The tag names the page's layout revision (and, when shown, the population's revision).
    const tag = fresh.headers.get("etag")!;
    expect(tag.startsWith(`"r-${held.id}-${SHARE_PAGE_REVISION}`)).toBe(true);
    for (const header of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
      expect((await api()(`/r/${held.id}`, { headers: { "if-none-match": header } })).status, header).toBe(304);
    }
    // A tag of an earlier layout of the page is not a match: the browser gets the new page.
    const earlierLayout = `"r-${held.id}-${SHARE_PAGE_REVISION - 1}"`;
    expect((await api()(`/r/${held.id}`, { headers: { "if-none-match": earlierLayout } })).status).toBe(200);
  });
});
