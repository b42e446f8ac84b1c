import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions } from "../../../src/db/transaction.js";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import type { ScoreResult } from "../../../src/modules/scoring/scoring.types.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import type { Site } from "../../support/fixture-sites.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Comparing two stored results (docs/api.md §13) through both doors: the same
 * product scored before and after its site grew, a result of another framework
 * version written through the repository, and the ids GET /api/score/{id} refuses.
 */

const pagesOf = (host: string): Site => calibrationSites.find((site) => site.host === host)!.pages;
/** evolving.test serves one calibration site's pages, then another's: the same product, grown. */
let evolving: Site = pagesOf("early.test");
const evolvingSite = new Proxy({} as Site, { get: (_target, path: string) => evolving[path] });

let service: ScoringTestApp;
let member: Caller;
let before: string;
let after: string;
let productId: string;
beforeAll(async () => {
  service = await startScoringApp({ extraSites: { "evolving.test": evolvingSite }, env: { TRUST_PROXY: "127.0.0.1" } });
  member = await signIn(service, "compare@example.com");
  before = await productScore();
  evolving = pagesOf("scaleup.test");
  after = await productScore();
}, 120_000);
afterAll(() => service?.close());

const api = () => apiClient(service);
const gql = () => graphqlClient(service);

async function productScore(): Promise<string> {
  const response = await api()("/api/score/product", {
    method: "POST",
    cookie: member.cookie,
    body: { url: service.siteUrl("evolving.test") },
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  productId = body.productId;
  return body.id;
}

const COMPARE = `query Compare($id: ID!, $other: ID!, $allow: Boolean) {
  scoreResult(id: $id) {
    compareTo(id: $other, allowVersionMismatch: $allow) {
      from { id totalScore stageName frameworkVersion }
      to { id totalScore stageName frameworkVersion }
      totalDelta stageChange { from to } comparable comparableDimensions incomparableDimensions
      dimensions { dimensionId fromScore toScore delta confidenceChanged comparable }
      evidenceAdded { total truncated items { dimensionId quote url } }
      evidenceRemoved { total truncated }
    }
  }
}`;

/** A copy of a stored result under another framework version, written as the runner writes results. */
async function storedUnderVersion(id: string, frameworkVersion: string): Promise<string> {
  const source = await (await api()(`/api/products/${productId}?limit=1`, { cookie: member.cookie })).json();
  const result = (source.results as Array<Record<string, any>>)[0]!;
  expect(result.id).toBe(id);
  const copy = randomUUID();
  const dataSource = service.app.database.dataSource;
  const scored: ScoreResult = {
    ...(result as unknown as ScoreResult),
    frameworkVersion,
    // The older version had no talent dimension, and the AI governance one did not apply.
    dimensions: (result.dimensions as Array<Record<string, any>>)
      .filter((dimension) => dimension.dimensionId !== "talent_organization")
      .map((dimension) => ({
        ...dimension,
        evidenceItems: dimension.evidenceItems.map((item: { url: string | null }) => ({
          ...item,
          url: item.url ?? undefined,
        })),
        applicable: dimension.dimensionId !== "ai_governance",
      })) as unknown as ScoreResult["dimensions"],
    scorer: { engine: "heuristic" } as ScoreResult["scorer"],
  };
  await new Transactions(dataSource).run((tx) =>
    new ScoreResultRepository(dataSource).insert(tx, {
      id: copy,
      job: { id: randomUUID(), accountId: member.accountId, productId: null, claimTokenHash: null },
      result: scored,
      claimExpiresAt: null,
    }),
  );
  return copy;
}

describe("the share page /r/{id}", () => {
  it("of a product's later result shows the change since the product's previous one, and its ETag names both", async () => {
    const page = await api()(`/r/${after}`);
    const html = await page.text();
    expect(html).toContain("Since the previous score");
    expect(html).toContain(`/r/${before}"`);
    expect(page.headers.get("etag")).toMatch(new RegExp(`^"r-${after}-\\d+(-p[\\d.]+)?-s${before}"$`));
    const comparison = await (await api()(`/api/score/${after}/compare/${before}`)).json();
    for (const moved of comparison.dimensions.slice(0, 5).filter((d: { delta: number }) => d.delta !== 0))
      expect(html).toContain(`href="#dim-${moved.dimensionId}" class="bare">`);
    // The first result of the product has nothing before it.
    const first = await api()(`/r/${before}`);
    expect(await first.text()).not.toContain("Since the previous score");
    expect(first.headers.get("etag")).not.toContain("-s");
  });
});

describe("GET /api/score/{id}/compare/{otherId}", () => {
  it("answers the change from otherId to id: totals, stage, 27 dimensions most moved first, evidence", async () => {
    const response = await api()(`/api/score/${after}/compare/${before}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    const [earlier, later] = await Promise.all(
      [before, after].map(async (id) => (await api()(`/api/score/${id}`)).json()),
    );
    expect(body.from).toMatchObject({ id: before, totalScore: earlier.totalScore, held: false });
    expect(body.to).toMatchObject({ id: after, totalScore: later.totalScore, held: false });
    expect(body.totalDelta).toBe(later.totalScore - earlier.totalScore);
    expect(body.totalDelta).toBeGreaterThan(0);
    expect(body.stageChange).toEqual(
      later.stageName === earlier.stageName ? null : { from: earlier.stageName, to: later.stageName },
    );
    expect(body.comparable).toBe(true);
    expect(body.dimensions).toHaveLength(27);
    const moves = body.dimensions.map((d: { delta: number }) => Math.abs(d.delta));
    expect(moves).toEqual([...moves].sort((a, b) => b - a));
    for (const d of body.dimensions) {
      const was = earlier.dimensions.find((x: { dimensionId: string }) => x.dimensionId === d.dimensionId);
      const now = later.dimensions.find((x: { dimensionId: string }) => x.dimensionId === d.dimensionId);
      expect(d).toMatchObject({ fromScore: was.score, toScore: now.score, delta: now.score - was.score });
      expect(d.confidenceChanged).toBe(was.confidence !== now.confidence);
    }
    expect(body.evidenceAdded.total).toBeGreaterThan(0);
    expect(body.evidenceAdded.items.length).toBe(Math.min(50, body.evidenceAdded.total));
    expect(body.evidenceAdded.truncated).toBe(body.evidenceAdded.total > 50);
    // Every added quote is in the later result and not in the earlier one for its dimension.
    for (const item of body.evidenceAdded.items) {
      const quotes = (result: typeof later) =>
        result.dimensions
          .find((d: { dimensionId: string }) => d.dimensionId === item.dimensionId)
          .evidenceItems.map((e: { text: string }) => e.text);
      expect(quotes(later)).toContain(item.quote);
      expect(quotes(earlier)).not.toContain(item.quote);
    }
  });

  it("is the same answer over GraphQL, and the reverse comparison negates it", async () => {
    const rest = await (await api()(`/api/score/${after}/compare/${before}`)).json();
    const graph = await gql()(COMPARE, { id: after, other: before });
    expect(graph.errors).toBeUndefined();
    const comparison = graph.data!.scoreResult.compareTo;
    expect(comparison.totalDelta).toBe(rest.totalDelta);
    expect(comparison.dimensions.map((d: { delta: number }) => d.delta)).toEqual(
      rest.dimensions.map((d: { delta: number }) => d.delta),
    );
    expect(comparison.evidenceAdded.total).toBe(rest.evidenceAdded.total);
    const reverse = await (await api()(`/api/score/${before}/compare/${after}`)).json();
    expect(reverse.totalDelta).toBe(-rest.totalDelta);
    expect(reverse.evidenceAdded.total).toBe(rest.evidenceRemoved.total);
    expect(reverse.evidenceRemoved.total).toBe(rest.evidenceAdded.total);
  });

  it("compares a result with itself as no change", async () => {
    const body = await (await api()(`/api/score/${after}/compare/${after}`)).json();
    expect(body).toMatchObject({ totalDelta: 0, stageChange: null, comparable: true });
    expect(body.dimensions.every((d: { delta: number }) => d.delta === 0)).toBe(true);
    expect(body.evidenceAdded.total + body.evidenceRemoved.total).toBe(0);
  });

  it("is cacheable between two final results: ETag, public max-age, 304 on If-None-Match", async () => {
    const first = await api()(`/api/score/${after}/compare/${before}`);
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await api()(`/api/score/${after}/compare/${before}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    // The other direction is another answer.
    const reverse = await api()(`/api/score/${before}/compare/${after}`);
    expect(reverse.headers.get("etag")).not.toBe(etag);
  });

  it("answers 404 exactly where GET /api/score/{id} does, on either side", async () => {
    const unknown = randomUUID();
    for (const path of [
      `/api/score/${unknown}/compare/${before}`,
      `/api/score/${after}/compare/${unknown}`,
      `/api/score/not-a-uuid/compare/${before}`,
      `/api/score/${after}/compare/not-a-uuid`,
    ]) {
      const response = await api()(path);
      expect(response.status, path).toBe(404);
      expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND" });
    }
    const graph = await gql()(COMPARE, { id: after, other: unknown });
    expect(graph.errors?.[0]?.extensions).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers a held result as GET does, uncached, and 404 once it is purged", async () => {
    const anonymous = await api()("/api/score", {
      method: "POST",
      body: { url: service.siteUrl("maker.test") },
      headers: { "x-forwarded-for": "203.0.113.77" },
    });
    const held = await anonymous.json();
    expect(anonymous.status, JSON.stringify(held)).toBe(200);
    const readable = await api()(`/api/score/${held.id}/compare/${held.id}`);
    expect(readable.status).toBe(200);
    expect(readable.headers.get("cache-control")).toBe("no-store");
    expect(readable.headers.get("etag")).toBeNull();
    expect((await readable.json()).to.held).toBe(true);
    // Its hold ran out and maintenance purged it: GET refuses it, and so does compare.
    await service.app.database.dataSource.query(
      `UPDATE "score_results" SET "claim_expires_at" = now() - interval '1 day' WHERE "id" = $1`,
      [held.id],
    );
    await new ScoreResultRepository(service.app.database.dataSource).purgeExpiredHeld(new Date());
    expect((await api()(`/api/score/${held.id}`)).status).toBe(404);
    expect((await api()(`/api/score/${held.id}/compare/${before}`)).status).toBe(404);
    expect((await api()(`/api/score/${before}/compare/${held.id}`)).status).toBe(404);
  });

  it("refuses two framework versions unless allowVersionMismatch, then compares the dimensions both mean alike", async () => {
    const older = await storedUnderVersion(after, "1.9.0");
    const refused = await api()(`/api/score/${after}/compare/${older}`);
    expect(refused.status).toBe(400);
    const { error } = await refused.json();
    expect(error).toMatchObject({ code: "VALIDATION_FAILED", param: "allowVersionMismatch" });
    expect(error.action).toContain("allowVersionMismatch=true");
    const graphRefused = await gql()(COMPARE, { id: after, other: older });
    expect(graphRefused.errors?.[0]?.extensions).toMatchObject({
      code: "VALIDATION_FAILED",
      param: "allowVersionMismatch",
    });

    const allowed = await api()(`/api/score/${after}/compare/${older}?allowVersionMismatch=true`);
    expect(allowed.status).toBe(200);
    const body = await allowed.json();
    expect(body).toMatchObject({ comparable: false, totalDelta: 0 });
    expect(body.from.frameworkVersion).toBe("1.9.0");
    // Not comparable: absent from the older version, or not applying on either side; in framework order, last.
    const later = await (await api()(`/api/score/${after}`)).json();
    const expected = (later.dimensions as Array<{ dimensionId: string; applicable: boolean }>)
      .filter((d) => !d.applicable || d.dimensionId === "ai_governance" || d.dimensionId === "talent_organization")
      .map((d) => d.dimensionId);
    expect(body.incomparableDimensions).toEqual(expected);
    expect(body.comparableDimensions).toHaveLength(27 - expected.length);
    expect(body.dimensions.slice(-expected.length).map((d: { dimensionId: string }) => d.dimensionId)).toEqual(
      expected,
    );
    expect(body.dimensions.find((d: { dimensionId: string }) => d.dimensionId === "talent_organization")).toMatchObject(
      { fromScore: null, delta: null, comparable: false },
    );
    expect(
      body.dimensions
        .filter((d: { comparable: boolean }) => d.comparable)
        .every((d: { delta: number }) => d.delta === 0),
    ).toBe(true);
    const graph = await gql()(COMPARE, { id: after, other: older, allow: true });
    expect(graph.data!.scoreResult.compareTo.incomparableDimensions).toEqual(body.incomparableDimensions);

    const malformed = await api()(`/api/score/${after}/compare/${older}?allowVersionMismatch=yes`);
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({ code: "VALIDATION_FAILED", param: "allowVersionMismatch" });
  });

  it("refuses two frameworks even with allowVersionMismatch", async () => {
    const plain = await api()("/api/score", {
      method: "POST",
      cookie: member.cookie,
      body: { url: service.siteUrl("evolving.test") },
    });
    const maturity = await plain.json();
    expect(plain.status, JSON.stringify(maturity)).toBe(200);
    const refused = await api()(`/api/score/${after}/compare/${maturity.id}?allowVersionMismatch=true`);
    expect(refused.status).toBe(400);
    const { error } = await refused.json();
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.param).toBeUndefined();
    expect(error.message).toContain("different frameworks");
  });
});
