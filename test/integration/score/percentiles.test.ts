import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_POPULATION } from "../../../src/modules/score/percentiles.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { storeScore } from "../../support/population.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Percentiles as a caller sees them (docs/api.md §13): a real job enters its result
 * into the population; the product view (REST) and `ScoreResult.percentiles`
 * (GraphQL) answer the same ranks, or the reason there are none; a list of results
 * reads the histograms once; `GET /api/score/{id}` keeps the contract's shape.
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

const dataSource = () => service.app.database.dataSource;

const PERCENTILES = `percentiles { available reason population total { percentile topPercent } dimensions { dimensionId percentile topPercent } }`;

type QueryFunction = (...args: unknown[]) => unknown;

/** The statements the app's pg clients send while `work` runs. */
async function statementsDuring<T>(work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const { Client } = (
    dataSource().driver as unknown as { postgres: { Client: { prototype: { query: QueryFunction } } } }
  ).postgres;
  const original = Client.prototype.query;
  const statements: string[] = [];
  Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0];
    statements.push(typeof config === "string" ? config : String((config as { text?: unknown })?.text ?? ""));
    return original.apply(this, args);
  };
  try {
    return { value: await work(), statements };
  } finally {
    Client.prototype.query = original;
  }
}

/** The rank the contract defines, computed by hand over a list of sites' values. */
const rank = (values: readonly number[], v: number) => {
  const below = values.filter((value) => value < v).length;
  const equal = values.filter((value) => value === v).length;
  return {
    percentile: Math.round((1000 * (below + equal / 2)) / values.length) / 10,
    topPercent: Math.round((1000 * (values.length - below)) / values.length) / 10,
  };
};

describe("percentiles through both doors", () => {
  it("a product score enters the population; the product view answers the reason, then the ranks from 30 sites on", async () => {
    const gus = await signIn(service, "gus@percentiles.test");
    const scored = await api("/api/score/product", {
      method: "POST",
      body: { url: service.siteUrl("scaleup.test") },
      cookie: gus.cookie,
    });
    expect(scored.status).toBe(200);
    const result = await scored.json();
    // The job's own transaction counted it: the first site of its version.
    expect(result.percentiles).toEqual({
      available: false,
      reason: `Percentiles need ${MIN_POPULATION} distinct sites scored with the product framework ${result.frameworkVersion}; 1 so far.`,
      population: 1,
      total: null,
      dimensions: [],
    });

    // 29 other sites of the same framework version (and some of another, which must not count).
    const others = Array.from({ length: MIN_POPULATION - 1 }, (_, i) => (i * 37) % 101);
    for (const [i, total] of others.entries())
      await storeScore(dataSource(), {
        url: `https://peer${i}.example/`,
        total,
        framework: "product",
        frameworkVersion: result.frameworkVersion,
      });
    for (let i = 0; i < 5; i += 1)
      await storeScore(dataSource(), {
        url: `https://old${i}.example/`,
        total: 99,
        framework: "product",
        frameworkVersion: "0.9.0",
      });

    const product = await (await api(`/api/products/${result.productId}`, { cookie: gus.cookie })).json();
    const view = product.results[0];
    expect(view.id).toBe(result.id);
    const totals = [...others, result.totalScore];
    expect(view.percentiles).toMatchObject({ available: true, reason: null, population: MIN_POPULATION });
    expect(view.percentiles.total).toEqual(rank(totals, result.totalScore));
    // Each peer scored its total on every dimension.
    expect(view.percentiles.dimensions).toEqual(
      result.dimensions.map((dimension: { dimensionId: string; score: number }) => ({
        dimensionId: dimension.dimensionId,
        ...rank([...others, dimension.score], dimension.score),
      })),
    );
    // Aggregates only: nothing of another site.
    expect(JSON.stringify(view.percentiles)).not.toMatch(/peer|example/);

    const viaGraphQL = await graphql(`query ($id: ID!) { scoreResult(id: $id) { ${PERCENTILES} } }`, { id: result.id });
    expect(viaGraphQL.errors).toBeUndefined();
    expect(viaGraphQL.data?.scoreResult.percentiles).toEqual(view.percentiles);

    // The public result keeps the contract's shape (and its cached, immutable answer): no percentiles there.
    const publicResult = await (await api(`/api/score/${result.id}`)).json();
    expect(publicResult.id).toBe(result.id);
    expect(publicResult).not.toHaveProperty("percentiles");
  });

  it("a quick score is not benchmarked, and says so", async () => {
    const id = await storeScore(dataSource(), { url: "https://quick.example/", total: 50, mode: "quick" });
    const answer = await graphql(`query ($id: ID!) { scoreResult(id: $id) { ${PERCENTILES} } }`, { id });
    expect(answer.data?.scoreResult.percentiles).toMatchObject({ available: false, total: null, dimensions: [] });
    expect(answer.data?.scoreResult.percentiles.reason).toMatch(/quick scores are not benchmarked/i);
  });

  it("a list of results reads the histograms in one statement, whatever its versions", async () => {
    const ann = await signIn(service, "ann@percentiles.test");
    for (let i = 0; i < 12; i += 1)
      await storeScore(dataSource(), {
        url: `https://ann${i}.example/`,
        total: i * 8,
        accountId: ann.accountId,
        frameworkVersion: i % 3 === 0 ? "2.1.0" : "2.2.0",
        framework: i % 4 === 0 ? "product" : "maturity",
      });
    const query = `{ scores(limit: 20) { results { id ${PERCENTILES} } } }`;
    await graphql(query, {}, { cookie: ann.cookie });
    const { value, statements } = await statementsDuring(() => graphql(query, {}, { cookie: ann.cookie }));
    expect(value.errors).toBeUndefined();
    expect(value.data?.scores.results).toHaveLength(12);
    expect(statements.filter((text) => text.includes("score_histograms"))).toHaveLength(1);
  });

  it("an unknown or malformed result id is NOT_FOUND, as for the result itself", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const answer = await graphql(`query ($id: ID!) { scoreResult(id: $id) { ${PERCENTILES} } }`, { id });
      expect(answer.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    }
  });
});
