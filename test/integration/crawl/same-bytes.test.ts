import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCrawler } from "../../../src/modules/crawl/crawler.factory.js";
import { FixtureSites, fixtureResolver, page, type Site } from "../../support/fixture-sites.js";

/**
 * A body already read at another address is recognised by its bytes and not
 * extracted again. What the crawl returns must be what extracting it again would
 * have given: the page counts once, and a refresh stub (whose target depends on
 * the address it is served at) is still followed from each address.
 */
const sites = new FixtureSites({});
let origin: (host: string) => string;

const crawler = (maxPages = 25) =>
  createCrawler(
    { version: "test", crawl: { maxPages, ssrfAllowlist: ["127.0.0.1/32", "*.test"] } },
    { resolver: fixtureResolver(), budgetMs: 20_000, concurrency: 1 },
  );
const paths = (urls: readonly string[]) => urls.map((url) => url.replace(/^http:\/\/[^/]+/, ""));

beforeAll(async () => {
  await sites.start();
  origin = (host) => `http://${host}:${sites.port}`;
  const add = (more: Record<string, Site>) =>
    Object.assign((sites as unknown as { sites: Record<string, Site> }).sites, more);
  const product = page(
    "Product | Same",
    `<h1>Product</h1><p>${"What the product does, at length. ".repeat(10)}</p><a href="/pricing">Pricing</a>`,
  );
  // Relative: the same bytes at /a/moved and /b/moved lead to /a/target and /b/target.
  const stub = page("Moving", "<p>Moving…</p>", `<meta http-equiv="refresh" content="0; url=target">`);
  add({
    "same.test": {
      "/": page(
        "Same",
        `<a href="/product">Product</a> <a href="/product?campaign=1">Again</a> <a href="/features/product">Features</a> <a href="/docs/product">Docs</a>
         <a href="/a/moved">A</a> <a href="/b/moved">B</a>`,
      ),
      "/product": product,
      "/features/product": product,
      "/docs/product": product,
      "/pricing": page("Pricing | Same", "<h1>Pricing</h1><p>$9 per month.</p>"),
      "/a/moved": stub,
      "/b/moved": stub,
      "/a/target": page("A | Same", "<p>Where A leads.</p>"),
      "/b/target": page("B | Same", "<p>Where B leads.</p>"),
    },
  });
});

afterAll(() => sites.stop());

describe("a body served at several addresses", () => {
  it("is one page, read once, and a refresh stub among them leads where its own address says", async () => {
    const result = await crawler().crawl(origin("same.test"));
    const read = paths(result.crawledPages);
    expect(read.filter((path) => path.endsWith("/product") || path.includes("product?"))).toHaveLength(1);
    expect(read).toEqual(expect.arrayContaining(["/", "/pricing", "/a/target", "/b/target"]));
    expect(read).not.toEqual(expect.arrayContaining(["/a/moved"]));
    expect(read).not.toEqual(expect.arrayContaining(["/b/moved"]));
    // Every address was asked for; none of the copies is a failure.
    const asked = sites.requestsTo("same.test").map((request) => request.path);
    expect(asked).toEqual(
      expect.arrayContaining(["/product", "/features/product", "/docs/product", "/a/moved", "/b/moved"]),
    );
    expect(result.crawlStats.failures).toEqual([]);
  });
});
