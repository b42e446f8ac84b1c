import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CrawlProgress } from "../../../src/modules/crawl/crawl.types.js";
import { createCrawler } from "../../../src/modules/crawl/crawler.factory.js";
import { defaultFetchLimits } from "../../../src/modules/crawl/fetcher.js";
import { acmeSite } from "../../fixtures/crawl-sites.js";
import { FixtureSites, fixtureResolver, page, type Site } from "../../support/fixture-sites.js";
import { rejectionOf } from "../../support/app-error.js";

const sites = new FixtureSites({});
let origin: (host: string) => string;

function crawler(
  overrides: Parameters<typeof createCrawler>[1] = {},
  resolver = fixtureResolver({ "rebind.test": ["127.0.0.1", "10.0.0.9"] }),
) {
  return createCrawler(
    { version: "test", crawl: { maxPages: 25, ssrfAllowlist: ["127.0.0.1/32", "*.test"] } },
    { resolver, limits: { ...defaultFetchLimits, pageTimeoutMs: 1_000 }, budgetMs: 20_000, ...overrides },
  );
}

const crawlError = (url: string, run = crawler(), signal?: AbortSignal) =>
  rejectionOf(run.crawl(url, signal ? { signal } : {}));

const redirect = (location: string, status = 302) => ({ status, headers: { location } });

beforeAll(async () => {
  await sites.start();
  origin = (host) => `http://${host}:${sites.port}`;
  const add = (more: Record<string, Site>) =>
    Object.assign((sites as unknown as { sites: Record<string, Site> }).sites, more);
  add(acmeSite(origin("acme.test")));
  const bigChunk = Buffer.alloc(64 * 1024, "<p>lorem ipsum dolor sit amet</p>\n");
  add({
    "solo.test": { "/": page("Solo", "<h1>Solo</h1><p>Just a landing page.</p>") },
    "private.test": {
      "/robots.txt": { headers: { "content-type": "text/plain" }, body: "User-agent: *\nDisallow: /\n" },
      "/": page("Private", "<p>secret</p>"),
    },
    "chain.test": {
      "/": redirect("/one", 301),
      "/one": redirect(`${origin("chain.test")}/two`),
      "/two": redirect("/three", 307),
      "/three": page("Chain", "<h1>Arrived</h1>"),
    },
    "loop.test": { "/": redirect("/x"), "/x": redirect("/") },
    "many.test": Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [i === 0 ? "/" : `/r${i}`, redirect(`/r${i + 1}`)]),
    ),
    "meta.test": { "/": redirect("http://169.254.169.254/latest/meta-data/") },
    "leaky.test": {
      "/": page("Leaky", `<a href="/to-private">internal</a><a href="/ok">ok</a>`),
      "/to-private": redirect("http://10.0.0.5/admin"),
      "/ok": page("OK", "<p>fine</p>"),
    },
    "hang.test": {
      "/": page("Hang", `<a href="/slow">slow</a><a href="/fast">fast</a>`),
      "/slow": { handle: () => undefined },
      "/fast": page("Fast", "<p>quick</p>"),
    },
    "hanghome.test": { "/": { handle: () => undefined } },
    "big.test": {
      "/": {
        handle: (_request, response) => {
          response.writeHead(200, { "content-type": "text/html" });
          response.write("<!doctype html><title>Big</title><body>");
          let sent = 0;
          const pump = () => {
            while (sent < 20 * 1024 * 1024) {
              sent += bigChunk.length;
              if (!response.write(bigChunk)) return void response.once("drain", pump);
            }
            response.end("</body>");
          };
          response.on("close", () => (sent = Number.POSITIVE_INFINITY));
          pump();
        },
      },
    },
    "pdf.test": { "/": { headers: { "content-type": "application/pdf" }, body: Buffer.from("%PDF-1.7") } },
    "latin.test": {
      "/": {
        headers: { "content-type": "text/html" },
        body: Buffer.from(
          `<!doctype html><meta charset="windows-1252"><title>Caf\xe9</title><p>Caf\xe9 cr\xe8me</p>`,
          "latin1",
        ),
      },
    },
    "shop.test": {
      "/": page(
        "Shop",
        `<a href="${origin("www.shop.test")}/pricing">Pricing</a> <a href="${origin("elsewhere.test")}/x">Elsewhere</a>`,
      ),
    },
    "www.shop.test": { "/pricing": page("Shop pricing", "<p>$10/month</p>") },
    "slow.test": {
      "/": page("Slow", Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(" ")),
      ...Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [
          `/p${i}`,
          {
            handle: (_q: unknown, response: import("node:http").ServerResponse) =>
              setTimeout(
                () => response.writeHead(200, { "content-type": "text/html" }).end(page(`p${i}`, "<p>x</p>")),
                400,
              ),
          },
        ]),
      ),
    },
    "delay.test": {
      "/robots.txt": {
        headers: { "content-type": "text/plain" },
        body: "User-agent: ProductMaturityBot\nCrawl-delay: 0.3\n",
      },
      "/": page("Delay", `<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>`),
      "/a": page("A", "<p>a</p>"),
      "/b": page("B", "<p>b</p>"),
      "/c": page("C", "<p>c</p>"),
    },
    // Five dead links to team pages ahead of the live about page (its address is the longest, so it is tried
    // last among them), and a long tail of integration and product pages.
    "deadlinks.test": {
      "/": page(
        "Dead links",
        [
          ...["/team", "/people", "/staff", "/leadership", "/our-team"].map((path) => `<a href="${path}">Team</a>`),
          `<a href="/about-us-and-our-story">About us</a>`,
          ...Array.from({ length: 12 }, (_, i) => `<a href="/integrations/tool-${i}">Tool ${i}</a>`),
          ...Array.from({ length: 12 }, (_, i) => `<a href="/feature-${i}">Feature ${i}</a>`),
        ].join(" "),
      ),
      "/about-us-and-our-story": page("About us", "<p>We are twelve people in Lisbon.</p>"),
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `/integrations/tool-${i}`,
          page(`Tool ${i}`, `<p>Connects tool ${i}.</p>`),
        ]),
      ),
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `/feature-${i}`,
          page(`Feature ${i}`, `<p>Feature ${i} does a thing.</p>`),
        ]),
      ),
    },
    // The most valuable links are dead: whatever is in flight when the budget looks full may still fail.
    "deadtail.test": {
      "/": page(
        "Dead tail",
        [
          ...["/pricing", "/docs", "/changelog", "/security", "/careers"].map(
            (path) => `<a href="${path}">${path}</a>`,
          ),
          ...Array.from({ length: 6 }, (_, i) => `<a href="/feature-${i}">Feature ${i}</a>`),
        ].join(" "),
      ),
      "/pricing": page("Pricing", "<p>$10 a month.</p>"),
      ...Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `/feature-${i}`,
          page(`Feature ${i}`, `<p>Feature ${i} does a thing.</p>`),
        ]),
      ),
    },
    "broken-robots.test": {
      "/robots.txt": { status: 503, body: "down" },
      "/": page("Down robots", "<p>hi</p>"),
    },
  });
});
afterAll(() => sites.stop());

describe("crawling a rich product site", () => {
  it("reads the pages that matter, within the page limit, with stats and outbound evidence", async () => {
    const progress: CrawlProgress[] = [];
    const result = await crawler().crawl(origin("acme.test"), { onProgress: (event) => progress.push(event) });

    expect(result.companyName).toBe("Acme Inc.");
    expect(result.crawledPages[0]).toBe(`${origin("acme.test")}/`);
    expect(result.crawlStats.pagesAnalyzed).toBe(25);
    const paths = result.crawledPages.map((url) =>
      url.replace(/^http:\/\/[^/]+/, (host) => (host.includes("docs.") ? "docs:" : "")),
    );
    for (const expected of [
      "/pricing",
      "docs:/",
      "docs:/api-reference",
      "/changelog",
      "/security",
      "/careers",
      "/customers",
      "/privacy",
      "/subprocessors",
      "/integrations",
      "/about",
      "/blog",
    ]) {
      expect(paths).toContain(expected);
    }
    // Robots: the disallowed section is never requested, even though the sitemap lists it.
    expect(sites.requestsTo("acme.test").some((request) => request.path.startsWith("/internal/"))).toBe(false);
    expect(result.crawlStats.skippedByRobots).toBeGreaterThanOrEqual(1);
    // A failing inner page is reported, not fatal.
    expect(result.crawlStats.failures).toContainEqual({ url: `${origin("acme.test")}/broken`, reason: "HTTP 500" });
    expect(result.crawlStats).toMatchObject({ robotsTxt: "found", securityTxt: true, partial: false });
    expect(result.crawlStats.sitemapUrls).toBeGreaterThan(30);
    expect(new Set(result.outboundLinks.map((link) => link.kind))).toEqual(
      new Set(["status_page", "github", "social", "app_store"]),
    );
    // Tracking parameters and fragments never make two URLs distinct.
    expect(result.crawledPages.filter((url) => url.includes("/blog")).every((url) => !url.includes("utm_"))).toBe(true);
    expect(new Set(result.crawledPages).size).toBe(result.crawledPages.length);
    // Nav and footer repeat on all 25 pages but count once.
    const raw = result.pages.reduce(
      (sum, p) => sum + p.text.length + p.boilerplate.reduce((s, b) => s + b.length, 0),
      0,
    );
    expect(result.crawlStats.contentLength).toBeLessThan(raw / 2);
    expect(sites.requestsTo("acme.test").every((request) => request.userAgent?.startsWith("ProductMaturityBot/"))).toBe(
      true,
    );

    expect(progress.map((event) => event.n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(progress.every((event) => event.of >= event.n && event.of <= 25)).toBe(true);
    expect(progress.at(-1)?.of).toBe(25);
  });

  it("chooses high-value pages before the long tail when the limit is small", async () => {
    const result = await crawler({ maxPages: 8 }).crawl(origin("acme.test"));
    expect(result.crawledPages).toHaveLength(8);
    expect(result.crawledPages.some((url) => /\/blog\/post-/.test(url))).toBe(false);
    expect(result.crawledPages).toContain(`${origin("acme.test")}/pricing`);
  });

  it("counts pages read against their kind, not addresses tried: dead team links do not push the about page out", async () => {
    // Each 404 is no page of its kind, so the next about candidate is worth a first about page again (45), ahead of
    // the second integration page (9) and the second feature page (6). Counting the five dead links as about pages
    // had put the live one at 45 × 0.3⁵ ≈ 0.1, behind the whole tail.
    const result = await crawler({ maxPages: 6 }).crawl(origin("deadlinks.test"));
    const paths = result.crawledPages.map((url) => new URL(url).pathname);
    expect(result.crawlStats.failures).toContainEqual({ url: `${origin("deadlinks.test")}/team`, reason: "HTTP 404" });
    expect(paths).toHaveLength(6);
    expect(paths).toContain("/about-us-and-our-story");
  });

  it("fills its page budget when the pages in flight at the end turn out dead, while candidates remain", async () => {
    // Budget 4: the home page, /pricing, and then /docs … /careers answer 404 one after another. A place held by a
    // page in flight is given back when it fails, so two feature pages are read after them.
    const result = await crawler({ maxPages: 4 }).crawl(origin("deadtail.test"));
    expect(result.crawlStats.failures.map((failure) => new URL(failure.url).pathname).sort()).toEqual([
      "/careers",
      "/changelog",
      "/docs",
      "/security",
    ]);
    expect(result.crawledPages.map((url) => new URL(url).pathname)).toEqual([
      "/",
      "/pricing",
      "/feature-0",
      "/feature-1",
    ]);
    expect(result.crawlStats).toMatchObject({ pagesAnalyzed: 4, pagesPlanned: 4, partial: false });
  });

  it("reads at most 5 pages in quick mode", async () => {
    const result = await crawler().crawl(origin("acme.test"), { mode: "quick" });
    expect(result.crawlStats.pagesAnalyzed).toBe(5);
  });

  it("treats www. and absolute links to the site's own host as the same site, and other hosts as outside", async () => {
    const result = await crawler().crawl(origin("shop.test"));
    expect(result.crawledPages).toEqual([`${origin("shop.test")}/`, `${origin("www.shop.test")}/pricing`]);
    expect(sites.requestsTo("elsewhere.test")).toHaveLength(0);
  });

  it("crawls a one-page site without robots.txt or sitemap", async () => {
    const result = await crawler().crawl(origin("solo.test"));
    expect(result.crawlStats).toMatchObject({
      pagesAnalyzed: 1,
      robotsTxt: "absent",
      sitemapUrls: 0,
      failures: [],
      partial: false,
    });
  });
});

describe("politeness", () => {
  it("refuses a site whose robots.txt disallows everything, reading nothing but robots.txt", async () => {
    const error = await crawlError(origin("private.test"));
    expect(error.code).toBe("CRAWL_FAILED");
    expect(error.message).toMatch(/robots\.txt does not allow/);
    expect(sites.requestsTo("private.test").map((request) => request.path)).toEqual(["/robots.txt"]);
  });

  it("stays away when robots.txt answers with a server error (RFC 9309), saying so", async () => {
    const error = await crawlError(origin("broken-robots.test"));
    expect(error.code).toBe("CRAWL_FAILED");
    expect(error.message).toMatch(/robots\.txt could not be read \(HTTP 503\)/);
    expect(sites.requestsTo("broken-robots.test").map((request) => request.path)).toEqual(["/robots.txt"]);
  });

  it("spaces requests by the Crawl-delay of robots.txt", async () => {
    await crawler().crawl(origin("delay.test"));
    const pages = sites.requestsTo("delay.test").filter((request) => /^\/[abc]?$/.test(request.path));
    expect(pages).toHaveLength(4);
    for (let i = 1; i < pages.length; i += 1) expect(pages[i]!.at - pages[i - 1]!.at).toBeGreaterThanOrEqual(280);
  });
});

describe("limits", () => {
  it("follows a short redirect chain", async () => {
    const result = await crawler().crawl(origin("chain.test"));
    expect(result.crawledPages).toEqual([`${origin("chain.test")}/three`]);
  });

  it("fails on a redirect loop and on more than 5 redirects", async () => {
    expect((await crawlError(origin("loop.test"))).message).toMatch(/redirects in a loop/);
    expect((await crawlError(origin("many.test"))).message).toMatch(/more than 5 redirects/);
  });

  it("skips a hanging inner page after the page timeout, and fails on a hanging home page", async () => {
    const result = await crawler().crawl(origin("hang.test"));
    expect(result.crawledPages).toContain(`${origin("hang.test")}/fast`);
    expect(result.crawlStats.failures).toContainEqual({ url: `${origin("hang.test")}/slow`, reason: "timed out" });
    const error = await crawlError(origin("hanghome.test"));
    expect(error).toMatchObject({ code: "CRAWL_FAILED", message: expect.stringMatching(/did not answer within 1 s/) });
  });

  it("reads at most 5 MB of a 20 MB page and stops the transfer", async () => {
    const result = await crawler().crawl(origin("big.test"));
    expect(result.crawlStats.pagesAnalyzed).toBe(1);
    expect(result.pages[0]!.text.length).toBeGreaterThan(100_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sites.bytesSent.get("big.test/")).toBeLessThan(12 * 1024 * 1024);
  });

  it("returns what it has, marked partial, when the crawl budget ends", async () => {
    const result = await crawler({ budgetMs: 1_000 }).crawl(origin("slow.test"));
    expect(result.crawlStats.partial).toBe(true);
    expect(result.crawlStats.pagesAnalyzed).toBeGreaterThanOrEqual(1);
    expect(result.crawlStats.pagesAnalyzed).toBeLessThan(11);
  });

  it("fails on a home page that answers an HTTP error", async () => {
    const error = await crawlError(origin("gone.test"));
    expect(error).toMatchObject({
      code: "CRAWL_FAILED",
      message: "Could not crawl gone.test: the home page answered HTTP 404.",
    });
  });

  it("fails on a home page that is not HTML", async () => {
    const error = await crawlError(origin("pdf.test"));
    expect(error).toMatchObject({
      code: "CRAWL_FAILED",
      message: expect.stringContaining("not HTML (application/pdf)"),
    });
  });

  it("decodes a page by the charset its meta tag declares", async () => {
    const result = await crawler().crawl(origin("latin.test"));
    expect(result.pages[0]!.title).toBe("Café");
    expect(result.pages[0]!.text).toContain("Café crème");
  });
});

describe("unsafe and invalid addresses", () => {
  it("answers INVALID_URL, saying why, before any request", async () => {
    const cases: Array<[string, RegExp]> = [
      ["", /empty|address/i],
      ["ftp://acme.test/", /http/i],
      ["http://10.0.0.1/", /private/],
      ["http://[::1]/", /loopback/],
      ["http://2130706433/", /loopback/],
      ["http://localhost/", /localhost/],
      [`http://nowhere.invalid/`, /does not resolve/],
      [`https://${"a".repeat(2100)}.com/`, /2,?048/],
    ];
    // No allow-list here: the addresses are judged as in production.
    const strict = createCrawler(
      { version: "test", crawl: { maxPages: 25, ssrfAllowlist: [] } },
      { resolver: fixtureResolver() },
    );
    for (const [input, message] of cases) {
      const error = await crawlError(input, strict);
      expect({ input: input.slice(0, 40), code: error.code }).toEqual({
        input: input.slice(0, 40),
        code: "INVALID_URL",
      });
      expect(error.message).toMatch(message);
    }
  });

  it("refuses a redirect to the cloud metadata endpoint", async () => {
    const error = await crawlError(origin("meta.test"));
    expect(error.code).toBe("CRAWL_FAILED");
    expect(error.message).toMatch(/not allowed.*169\.254\.169\.254/);
  });

  it("skips an inner page that redirects to a private address", async () => {
    const result = await crawler().crawl(origin("leaky.test"));
    expect(result.crawledPages).toEqual([`${origin("leaky.test")}/`, `${origin("leaky.test")}/ok`]);
    expect(result.crawlStats.failures).toEqual([
      { url: `${origin("leaky.test")}/to-private`, reason: expect.stringMatching(/10\.0\.0\.5.*private/) },
    ]);
  });

  it("never connects to a name that also resolves to a private address (DNS rebinding)", async () => {
    const error = await crawlError(origin("rebind.test"));
    expect(error.code).toBe("INVALID_URL");
    expect(sites.requestsTo("rebind.test")).toHaveLength(0);
    // The kind of address, never which one: the message would map internal names to internal addresses.
    expect(error.message).toMatch(/resolves to a non-public address, private network/);
    expect(error.message).not.toContain("10.0.0.9");

    // Public at admission, private at connection time: still no connection.
    let calls = 0;
    const flipping = async (hostname: string) => {
      calls += 1;
      const address = hostname === "flip.test" && calls > 1 ? "10.0.0.9" : "127.0.0.1";
      return [{ address, family: 4 as const }];
    };
    const flipError = await crawlError(origin("flip.test"), crawler({}, flipping));
    expect(flipError.code).toBe("CRAWL_FAILED");
    expect(sites.requestsTo("flip.test")).toHaveLength(0);
    expect(flipError.message).not.toContain("10.0.0.9");
  });
});

describe("what a finished crawl leaves behind", () => {
  it("nothing tied to the caller's long-lived signal: no listener, no dependant signal per crawl", async () => {
    // A worker's stop signal lives as long as the process; every job's crawl is given it.
    // AbortSignal.any used to leave one dependant per crawl on it (and a 60 s budget timer per crawl).
    const stopping = new AbortController();
    const run = crawler({ budgetMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      const result = await run.crawl(`${origin("acme.test")}/`, { signal: stopping.signal });
      expect(result.pages.length).toBeGreaterThan(1);
    }
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(0);
    const dependants = Object.getOwnPropertySymbols(stopping.signal).find(
      (symbol) => symbol.description === "kDependantSignals",
    );
    expect(
      dependants === undefined ? 0 : (stopping.signal as unknown as Record<symbol, Set<unknown>>)[dependants]!.size,
    ).toBe(0);
  });

  it("still refuses to crawl once the caller's signal has aborted", async () => {
    const stopping = new AbortController();
    stopping.abort();
    expect(await crawlError(`${origin("acme.test")}/`, crawler(), stopping.signal)).toMatchObject({
      code: "CRAWL_FAILED",
    });
  });
});
