import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dimensions as frameworkDimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { graphqlClient, signIn, type Caller } from "../../support/http.js";

/**
 * `products { results { dimensions } }` is batched per request (a DataLoader for
 * the results of all products, one read of all their dimensions), so its cost in
 * SQL statements does not grow with the number of products or results. Statements
 * are counted where they leave the process: every `query` of the pg clients of the
 * app's pool while the one GraphQL request runs.
 */

let service: TestApp;
beforeAll(async () => {
  // No maintenance sweep and no webhook poll may run while statements are counted (the first sweep runs at start, long before).
  service = await startTestApp({}, { scoring: { sweepEveryMs: 3_600_000 }, webhooks: { deliver: false } });
});
afterAll(() => service?.close());

const dataSource = () => service.app.database.dataSource;

interface SeededProduct {
  readonly id: string;
  /** Newest first. */
  readonly results: ReadonlyArray<{ readonly id: string; readonly scores: readonly number[] }>;
}

const scoreOf = (product: number, result: number, dimension: number) =>
  (product * 31 + result * 7 + dimension * 3) % 101;

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * `productCount` products, each with `resultCount` results of 27 dimensions, written
 * with SQL in shuffled order (so neither insertion order nor ids decide the order
 * the API answers). Answers the products newest first, their results newest first.
 */
async function seed(accountId: string, productCount: number, resultCount: number): Promise<SeededProduct[]> {
  const base = Date.UTC(2026, 0, 15, 12, 0, 0);
  const products = Array.from({ length: productCount }, (_, p) => ({
    id: randomUUID(),
    url: `https://p${p}-${accountId.slice(0, 8)}.example`,
    createdAt: new Date(base - p * 60_000),
    results: Array.from({ length: resultCount }, (_, r) => ({
      id: randomUUID(),
      createdAt: new Date(base + 3_600_000 - p * 60_000 - r * 1_000),
      scores: frameworkDimensions.map((_, d) => scoreOf(p, r, d)),
    })),
  }));

  const rows = shuffled(products);
  await dataSource().query(
    `INSERT INTO "products" ("id", "account_id", "name", "url", "created_at")
     SELECT t.id, $1, 'Product', t.url, t.created_at FROM unnest($2::uuid[], $3::text[], $4::timestamptz[]) AS t(id, url, created_at)`,
    [accountId, rows.map((row) => row.id), rows.map((row) => row.url), rows.map((row) => row.createdAt)],
  );

  const results = shuffled(products.flatMap((product) => product.results.map((result) => ({ ...result, product }))));
  await dataSource().query(
    `INSERT INTO "score_results" ("id", "account_id", "product_id", "url", "company_name", "total_score", "stage_name", "framework",
       "framework_version", "mode", "strengths", "gaps", "cross_dimension_notes", "anti_patterns", "crawled_pages", "crawl_stats", "scorer", "created_at")
     SELECT t.id, $1, t.product_id, t.url, 'Co', 50, 'Growth', 'product', '1.0.0', 'full', '{}', '{}', '', '{}', '{}',
       '{"pagesAnalyzed":1,"contentLength":10,"failures":[],"durationMs":5,"partial":false,"pagesPlanned":1,"robotsTxt":"absent","sitemapUrls":0,"securityTxt":false,"skippedByRobots":0}'::jsonb,
       '{"engine":"heuristic"}'::jsonb, t.created_at
     FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[]) AS t(id, product_id, url, created_at)`,
    [
      accountId,
      results.map((row) => row.id),
      results.map((row) => row.product.id),
      results.map((row) => row.product.url),
      results.map((row) => row.createdAt),
    ],
  );

  // Dimensions last position first: the API must order them by the framework, not by insertion.
  const dimensionRows = shuffled(results).flatMap((result) =>
    frameworkDimensions
      .map((dimension, position) => ({ result: result.id, dimension, position, score: result.scores[position]! }))
      .reverse(),
  );
  await dataSource().query(
    `INSERT INTO "score_dimensions" ("result_id", "dimension_id", "position", "dimension_name", "pillar", "score", "stage_name", "evidence",
       "evidence_items", "confidence", "reasoning")
     SELECT t.result_id, t.dimension_id, t.position, t.name, t.pillar, t.score, 'Growth', '', '[]'::jsonb, 'low', ''
     FROM unnest($1::uuid[], $2::text[], $3::smallint[], $4::text[], $5::text[], $6::integer[]) AS t(result_id, dimension_id, position, name, pillar, score)`,
    [
      dimensionRows.map((row) => row.result),
      dimensionRows.map((row) => row.dimension.id),
      dimensionRows.map((row) => row.position),
      dimensionRows.map((row) => row.dimension.name),
      dimensionRows.map((row) => row.dimension.pillar),
      dimensionRows.map((row) => row.score),
    ],
  );
  return products.map((product) => ({
    id: product.id,
    results: product.results.map(({ id, scores }) => ({ id, scores })),
  }));
}

type QueryFunction = (...args: unknown[]) => unknown;

/** Every statement the app's pg clients send while `work` runs (their text, for the failure message). */
async function statementsDuring<T>(work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  // The pg module the driver loaded: its pool's clients are instances of this Client.
  const { Client } = (
    dataSource().driver as unknown as { postgres: { Client: { prototype: { query: QueryFunction } } } }
  ).postgres;
  const original = Client.prototype.query;
  const statements: string[] = [];
  Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0];
    statements.push(
      typeof config === "string" ? config : String((config as { text?: unknown } | undefined)?.text ?? "<prepared>"),
    );
    return original.apply(this, args);
  };
  try {
    return { value: await work(), statements };
  } finally {
    Client.prototype.query = original;
  }
}

const PRODUCTS = `{ products(limit: 25) { products { id results { id dimensions { dimensionId score } } } } }`;

interface ProductsAnswer {
  products: {
    products: Array<{
      id: string;
      results: Array<{ id: string; dimensions: Array<{ dimensionId: string; score: number }> }>;
    }>;
  };
}

async function productsOf(caller: Caller) {
  const { value: answer, statements } = await statementsDuring(() =>
    graphqlClient(service)(PRODUCTS, {}, { cookie: caller.cookie }),
  );
  expect(answer.errors).toBeUndefined();
  return { data: answer.data as unknown as ProductsAnswer, statements };
}

function expectSeeded(data: ProductsAnswer, seeded: readonly SeededProduct[]) {
  const products = data.products.products;
  expect(products.map((product) => product.id)).toEqual(seeded.map((product) => product.id));
  for (const [p, product] of products.entries()) {
    const expected = seeded[p]!;
    expect(product.results.map((result) => result.id)).toEqual(expected.results.map((result) => result.id));
    for (const [r, result] of product.results.entries()) {
      expect(result.dimensions).toEqual(
        frameworkDimensions.map((dimension, d) => ({
          dimensionId: dimension.id,
          score: expected.results[r]!.scores[d],
        })),
      );
    }
  }
}

describe("products with their results over GraphQL", () => {
  it("a query for 25 products with 20 results each issues a constant number of SQL statements", async () => {
    const big = await signIn(service, "loader-big@example.com");
    const small = await signIn(service, "loader-small@example.com");
    await dataSource().query(`UPDATE "accounts" SET "plan" = 'business' WHERE "id" = ANY($1)`, [
      [big.accountId, small.accountId],
    ]);
    const bigProducts = await seed(big.accountId, 25, 20);
    const smallProducts = await seed(small.accountId, 5, 2);

    // The counter sees the app's statements: one query, one statement.
    const probe = await statementsDuring(() => dataSource().query("SELECT 1 AS probe"));
    expect(probe.statements).toEqual(["SELECT 1 AS probe"]);

    // Warm up (first use of the session verifier, pool connections), then measure.
    await productsOf(small);
    const few = await productsOf(small);
    const many = await productsOf(big);

    expectSeeded(few.data, smallProducts);
    expectSeeded(many.data, bigProducts);
    expect(many.data.products.products).toHaveLength(25);
    expect(
      many.data.products.products.every(
        (product) =>
          product.results.length === 20 && product.results.every((result) => result.dimensions.length === 27),
      ),
    ).toBe(true);

    const listing = many.statements.map((text) => text.replace(/\s+/g, " ").slice(0, 100)).join("\n");
    console.log(
      `SQL statements per request: 5 products × 2 results: ${few.statements.length}; 25 products × 20 results: ${many.statements.length}`,
    );
    expect(many.statements.length, listing).toBe(few.statements.length);
    expect(many.statements.length, listing).toBeLessThanOrEqual(8);
    // Exactly one read of results and one of dimensions, however many products.
    expect(many.statements.filter((text) => /FROM "score_results"/.test(text))).toHaveLength(1);
    expect(many.statements.filter((text) => /FROM "score_dimensions"/.test(text))).toHaveLength(1);
  });
});
