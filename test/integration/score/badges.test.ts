import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import type { Site } from "../../support/fixture-sites.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Badges (docs/api.md §13): `/r/{id}/badge.svg` shows a result's badge exactly when
 * its share page shows the result; `/api/products/{id}/badge.svg` the latest result
 * of a product whose owner turned publicBadge on, and the same 404 otherwise.
 * Both run the GraphQL fields they answer (ScoreResult.badge, productBadge).
 */

const pagesOf = (host: string): Site => ({ ...calibrationSites.find((site) => site.host === host)!.pages });
/** A site that grows up between two scores: its pages are swapped in place. */
const climber: Site = pagesOf("bare.test");

let service: ScoringTestApp;
let owner: Caller;
let stranger: Caller;
beforeAll(async () => {
  service = await startScoringApp({ env: { TRUST_PROXY: "127.0.0.1" }, extraSites: { "climber.test": climber } });
  owner = await signIn(service, "owner@badge.test");
  stranger = await signIn(service, "stranger@badge.test");
});
afterAll(() => service?.close());

const api = () => apiClient(service);
const gql = () => graphqlClient(service);
const sql = (text: string, parameters: unknown[]) => service.app.database.dataSource.query(text, parameters);
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

async function productScore(caller: Caller, host: string): Promise<{ id: string; productId: string }> {
  const response = await api()("/api/score/product", {
    method: "POST",
    body: { url: service.siteUrl(host) },
    cookie: caller.cookie,
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

function expectSvgHeaders(response: Response) {
  expect(response.headers.get("content-type")).toBe("image/svg+xml");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toBe(CSP);
}

async function expectApiNotFound(response: Response) {
  expect(response.status).toBe(404);
  expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND" });
}

describe("GET /api/products/{id}/badge.svg", () => {
  let product: { id: string; productId: string };
  let firstEtag: string;
  let firstSvg: string;

  it("is the same 404 for a private product (owner included), an unknown id, a malformed id and another account's", async () => {
    product = await productScore(owner, "climber.test");
    const path = `/api/products/${product.productId}/badge.svg`;
    await expectApiNotFound(await api()(path));
    await expectApiNotFound(await api()(path, { cookie: owner.cookie }));
    await expectApiNotFound(await api()(`/api/products/${UNKNOWN}/badge.svg`));
    await expectApiNotFound(await api()("/api/products/not-a-uuid/badge.svg"));
    const theirs = await productScore(stranger, "maker.test");
    await expectApiNotFound(await api()(`/api/products/${theirs.productId}/badge.svg`, { cookie: owner.cookie }));

    const graphql = await gql()(`query($id: ID!) { productBadge(id: $id) { svg } }`, { id: product.productId });
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: "NOT_FOUND" });
    const own = await gql()(`query($id: ID!) { product(id: $id) { badge { url } } }`, { id: product.productId }, owner);
    expect(own.data?.product).toEqual({ badge: null });
  });

  it("answers anyone the latest result's SVG once public, cacheable for 300 s and revalidated by a strong ETag", async () => {
    await sql(`UPDATE "products" SET "public_badge" = true WHERE "id" = $1`, [product.productId]);
    const path = `/api/products/${product.productId}/badge.svg`;
    const response = await api()(path);
    expect(response.status).toBe(200);
    expectSvgHeaders(response);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    firstEtag = response.headers.get("etag")!;
    expect(firstEtag).toMatch(/^"[\w-]{27}"$/);
    firstSvg = await response.text();
    const result = await (await api()(`/api/score/${product.id}`)).json();
    expect(firstSvg).toContain(`aria-label="maturity: ${result.totalScore} · ${result.stageName}"`);

    // The same bytes for the owner, a stranger and GraphQL: one operation behind both doors.
    expect(await (await api()(path, { cookie: stranger.cookie })).text()).toBe(firstSvg);
    const graphql = await gql()(`query($id: ID!) { productBadge(id: $id) { svg url markdown html } }`, {
      id: product.productId,
    });
    expect(graphql.data?.productBadge).toEqual({
      svg: firstSvg,
      url: `${service.config.publicBaseUrl}${path}`,
      markdown: `![maturity: ${result.totalScore} · ${result.stageName}](${service.config.publicBaseUrl}${path})`,
      html: `<img src="${service.config.publicBaseUrl}${path}" alt="maturity: ${result.totalScore} · ${result.stageName}">`,
    });
    const own = await gql()(`query($id: ID!) { product(id: $id) { badge { svg } } }`, { id: product.productId }, owner);
    expect(own.data?.product.badge.svg).toBe(firstSvg);

    const revalidated = await api()(path, { headers: { "if-none-match": firstEtag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(firstEtag);
    expect(await revalidated.text()).toBe("");

    // What CDNs send: HEAD answers the headers of the GET.
    const head = await api()(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(firstEtag);
    expect(head.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("is not under the anonymous scoring cap: an address that used its score still reads badges", async () => {
    const address = { "x-forwarded-for": "203.0.113.90" };
    const scored = await api()("/api/score/quick", {
      method: "POST",
      body: { url: service.siteUrl("bare.test") },
      headers: address,
    });
    expect(scored.status).toBe(200);
    const again = await api()("/api/score/quick", {
      method: "POST",
      body: { url: service.siteUrl("bare.test") },
      headers: address,
    });
    expect(again.status).toBe(429);
    await again.arrayBuffer();
    for (let read = 0; read < 10; read++) {
      const response = await api()(`/api/products/${product.productId}/badge.svg`, { headers: address });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit")).toBeNull();
      await response.arrayBuffer();
    }
  });

  it("changes when the product is scored again with another outcome: the old ETag no longer matches", async () => {
    Object.assign(climber, pagesOf("leader.test"));
    const again = await productScore(owner, "climber.test");
    expect(again.productId).toBe(product.productId);
    const response = await api()(`/api/products/${product.productId}/badge.svg`, {
      headers: { "if-none-match": firstEtag },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).not.toBe(firstEtag);
    const svg = await response.text();
    expect(svg).not.toBe(firstSvg);
    const result = await (await api()(`/api/score/${again.id}`)).json();
    expect(svg).toContain(`aria-label="maturity: ${result.totalScore} · ${result.stageName}"`);
  });

  it("is private again once publicBadge is off", async () => {
    await sql(`UPDATE "products" SET "public_badge" = false WHERE "id" = $1`, [product.productId]);
    await expectApiNotFound(await api()(`/api/products/${product.productId}/badge.svg`));
  });

  it("is documented in the OpenAPI document as image/svg+xml", async () => {
    const document = await (await api()("/api/openapi.json")).json();
    const operation = document.paths["/api/products/{id}/badge.svg"].get;
    expect(Object.keys(operation.responses["200"].content)).toEqual(["image/svg+xml"]);
    expect(operation.responses["200"].headers.ETag.required).toBe(true);
    expect(operation.responses).toHaveProperty("304");
    expect(operation.responses).toHaveProperty("404");
  });
});

describe("GET /r/{id}/badge.svg", () => {
  it("serves a result's badge forever (immutable), with a strong ETag, as ScoreResult.badge draws it", async () => {
    const { id } = await productScore(owner, "climber.test");
    const response = await fetch(`${service.url}/r/${id}/badge.svg`);
    expect(response.status).toBe(200);
    expectSvgHeaders(response);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = response.headers.get("etag")!;
    const svg = await response.text();
    const graphql = await gql()(`query($id: ID!) { scoreResult(id: $id) { badge { svg url markdown html } } }`, { id });
    const base = service.config.publicBaseUrl;
    expect(graphql.data?.scoreResult.badge).toMatchObject({
      svg,
      url: `${base}/r/${id}/badge.svg`,
      markdown: expect.stringMatching(
        new RegExp(`^\\[!\\[maturity: \\d+ · \\w+\\]\\(${base}/r/${id}/badge\\.svg\\)\\]\\(${base}/r/${id}\\)$`),
      ),
      html: expect.stringContaining(`<a href="${base}/r/${id}"><img src="${base}/r/${id}/badge.svg" alt="maturity: `),
    });
    const revalidated = await fetch(`${service.url}/r/${id}/badge.svg`, { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    // Repeats come from memory (a final result's badge never changes): the same bytes and tag.
    const repeat = await fetch(`${service.url}/r/${id}/badge.svg`);
    expect(repeat.headers.get("etag")).toBe(etag);
    expect(await repeat.text()).toBe(svg);
    const head = await fetch(`${service.url}/r/${id}/badge.svg`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(etag);
  });

  it("answers unknown and malformed ids the same 404 image, never cached", async () => {
    const [unknown, malformed] = await Promise.all([
      fetch(`${service.url}/r/${UNKNOWN}/badge.svg`),
      fetch(`${service.url}/r/nope/badge.svg`, { headers: { "if-none-match": "*" } }),
    ]);
    for (const response of [unknown, malformed]) {
      expect(response.status).toBe(404);
      expectSvgHeaders(response);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("etag")).toBeNull();
    }
    const body = await unknown.text();
    expect(body).toContain("not found");
    expect(await malformed.text()).toBe(body);
  });

  it("shows a held anonymous result as its share page does, revalidated every time, and 404 once purged", async () => {
    const scored = await api()("/api/score", {
      method: "POST",
      body: { url: service.siteUrl("maker.test") },
      headers: { "x-forwarded-for": "203.0.113.70" },
    });
    const { id } = await scored.json();
    expect(scored.status).toBe(200);
    // Badge reads are not scores: the anonymous cap this address just used up does not touch them.
    for (let read = 0; read < 5; read++) {
      const response = await fetch(`${service.url}/r/${id}/badge.svg`, {
        headers: { "x-forwarded-for": "203.0.113.70" },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, no-cache");
      await response.arrayBuffer();
    }
    expect((await fetch(`${service.url}/r/${id}`)).status).toBe(200);
    await sql(`DELETE FROM "score_results" WHERE "id" = $1`, [id]);
    expect((await fetch(`${service.url}/r/${id}/badge.svg`)).status).toBe(404);
    expect((await fetch(`${service.url}/r/${id}`)).status).toBe(404);
  });
});
