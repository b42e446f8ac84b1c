import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCrawler } from "../../../src/modules/crawl/crawler.factory.js";
import { defaultFetchLimits } from "../../../src/modules/crawl/fetcher.js";
import { FixtureSites, fixtureResolver, page, type Site } from "../../support/fixture-sites.js";

/**
 * Real sites, as the calibration corpus showed them: a site that lives in a
 * folder on a host that answers "/tour" and "/tour/" alike, refresh stubs, links
 * written every way people write them, framework templates and mega-menus built
 * from <div>s. Each case failed before the crawler read sites as a browser does.
 */
const sites = new FixtureSites({});
let origin: (host: string) => string;

function crawler(maxPages = 25) {
  return createCrawler(
    { version: "test", crawl: { maxPages, ssrfAllowlist: ["127.0.0.1/32", "*.test"] } },
    {
      resolver: fixtureResolver({ "intranet.refresh.test": ["10.0.0.7"] }),
      limits: { ...defaultFetchLimits, pageTimeoutMs: 2_000 },
      budgetMs: 20_000,
    },
  );
}

const paths = (urls: readonly string[]) => urls.map((url) => url.replace(/^http:\/\/[^/]+/, ""));
const text = (html: string) => ({ headers: { "content-type": "text/plain" }, body: html });

beforeAll(async () => {
  await sites.start();
  origin = (host) => `http://${host}:${sites.port}`;
  const add = (more: Record<string, Site>) =>
    Object.assign((sites as unknown as { sites: Record<string, Site> }).sites, more);

  // Everything under /website/, served like a lenient static host: a folder answers with and without its slash.
  const home = page(
    "Prefix Co",
    `<nav><a href="tour/">Tour</a> <a href="docs/">Docs</a> <a href='pricing/'>Pricing</a> <a href=about/>About</a> <a href="private/">Internal</a></nav>
     <h1>Prefix Co</h1><p>Observability for small teams.</p>
     ${Array.from({ length: 12 }, (_, i) => `<a href="feature-${i}/">Feature ${i}</a>`).join(" ")}`,
  );
  const tour = page(
    "Tour",
    `<h1>Tour</h1><p>See it work.</p><a href="../security/">Security</a> <a href="changelog/">What's new</a>`,
  );
  const folder = (path: string, body: string): Site => ({ [path]: body, [`${path}/`]: body });
  add({
    "prefix.test": {
      "/": { status: 302, headers: { location: "/website/" } },
      "/robots.txt": text("User-agent: *\nDisallow: /website/private/\n"),
      "/website/sitemap.xml": {
        headers: { "content-type": "application/xml" },
        body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${"ORIGIN"}/website/hidden-gem/</loc></url></urlset>`,
      },
      ...folder("/website", home),
      ...folder("/website/tour", tour),
      ...folder("/website/docs", page("Docs", "<h1>Docs</h1><p>Install the agent.</p>")),
      ...folder("/website/pricing", page("Pricing", "<h1>Pricing</h1><p>$29 per month.</p>")),
      ...folder("/website/about", page("About", "<h1>About</h1><p>Founded in 2019.</p>")),
      ...folder("/website/security", page("Security", "<h1>Security</h1><p>SOC 2.</p>")),
      ...folder("/website/tour/changelog", page("Changelog", "<h1>Changelog</h1><p>v2.1 released.</p>")),
      ...folder("/website/hidden-gem", page("Gem", "<p>Only the sitemap links here.</p>")),
      ...folder("/website/private", page("Private", "<p>never read</p>")),
      ...Object.assign(
        {},
        ...Array.from({ length: 12 }, (_, i) => folder(`/website/feature-${i}`, page(`F${i}`, `<p>feature ${i}</p>`))),
      ),
    },
    // Two folders deep, links whose text says nothing: only the folder the home page is served from tells pricing apart.
    "deep.test": {
      "/sites/acme-cloud/": page(
        "Deep",
        ["pricing", "docs", "tour", "story", "team-offsite", "gallery"]
          .map((path) => `<a href="${path}/">→</a>`)
          .join(" "),
      ),
      ...Object.fromEntries(
        ["pricing", "docs", "tour", "story", "team-offsite", "gallery"].map((path) => [
          `/sites/acme-cloud/${path}/`,
          page(path, `<p>${path} page</p>`),
        ]),
      ),
    },
    "jekyll.test": {
      "/robots.txt": text("Sitemap: http://localhost:4000/sitemap.xml\n"),
      "/sitemap.xml": {
        headers: { "content-type": "application/xml" },
        body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>http://localhost:4000/docs/</loc></url><url><loc>http://localhost:4000/blog/launch</loc></url>
          <url><loc>https://elsewhere.test/x</loc></url></urlset>`,
      },
      "/": page("Jekyll", `<a href="/pricing">Pricing</a>`),
      "/pricing": page("Pricing", "<p>$4 per user</p>"),
      "/docs": page("Docs", "<p>Set up SSO with Azure AD.</p>"),
      "/blog/launch": page("Launch", "<p>We launched.</p>"),
    },
    "canon.test": {
      // Every page names the home page as canonical (a CMS export slip); only /pricing?ref=nav truly duplicates a page.
      "/": page(
        "Canon",
        `<a href="/pricing?ref=nav">Pricing</a> <a href="/pricing?src=footer">Plans</a> <a href="/tour">Tour</a> <a href="/copy">Copy</a>`,
        `<link rel="canonical" href="/">`,
      ),
      "/pricing": page("Pricing", "<p>$5 per month</p>", `<link rel="canonical" href="/">`),
      "/tour": page("Tour", "<p>See the product.</p>", `<link rel="canonical" href="/">`),
      "/copy": page(
        "Canon",
        `<a href="/pricing?ref=nav">Pricing</a> <a href="/pricing?src=footer">Plans</a> <a href="/tour">Tour</a> <a href="/copy">Copy</a>`,
        `<link rel="canonical" href="/">`,
      ),
    },
    "refresh.test": {
      "/": page(
        "Refresh",
        `<a href="/old-pricing">Pricing</a> <a href="/moved">Moved</a> <a href="/slow-refresh">Later</a>`,
      ),
      "/old-pricing": page("Moved", "<p>Redirecting…</p>", `<meta http-equiv="refresh" content="0; url=/pricing">`),
      "/pricing": page("Pricing", "<h1>Pricing</h1><p>$12 per month.</p>"),
      "/moved": page("Moved", "", `<meta http-equiv="refresh" content="0;URL='${"INTRANET"}/admin'">`),
      "/slow-refresh": page(
        "Notice",
        `<p>${"This page has a long notice that people read before it moves on. ".repeat(5)}</p>`,
        `<meta http-equiv="refresh" content="30; url=/next">`,
      ),
      "/next": page("Next", "<p>next page</p>"),
    },
    "www.links.test": {
      "/": page(
        "Links",
        `<a href="APEX/pricing">Pricing</a> <a href="WWW/pricing">Plans</a> <a href="/Our Team">Our team</a>
         <a href="/über-uns">Über uns</a> <a href=' /docs '>Docs</a> <a href=features>Features</a> <a href="/Our%20Team#jobs">Jobs</a>`,
      ),
      "/pricing": page("Pricing", "<p>$9</p>"),
      "/Our%20Team": page("Team", "<p>Ada, Grace</p>"),
      "/%C3%BCber-uns": page("Über uns", "<p>Gegründet 2020</p>"),
      "/docs": page("Docs", "<p>docs</p>"),
      "/features": page("Features", "<p>features</p>"),
    },
    "links.test": { "/pricing": page("Pricing", "<p>$9</p>") },
    "vue.test": {
      "/": page(
        "Vue",
        `<div id="app"></div><noscript><p>Acme Vue works best with JavaScript.</p></noscript>
         <script type="text/x-template" id="layout"><div><nav><a href="/pricing">Pricing</a> <a href="/customers">Customers</a></nav>
         <h1>{{ title }} Ship faster</h1><p>Trusted by 400 teams including {{ logos }}.</p></div></script>`,
      ),
      "/pricing": page("Pricing", "<p>$49 per month</p>"),
      "/customers": page("Customers", "<p>Case study: Globex</p>"),
    },
    "mega.test": Object.fromEntries(
      ["/", "/a", "/b", "/c", "/d"].map((path) => [
        path,
        page(
          path,
          `<div class="menu"><div>Platform Observability Logs Traces Metrics</div><div>Company About Careers Press</div></div>
          <a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/d">d</a><main><p>Own text of ${path}.</p></main>`,
        ),
      ]),
    ),
  });
  // Addresses that depend on the port.
  const raw = (sites as unknown as { sites: Record<string, Site> }).sites;
  const fill = (site: Site, from: string, to: string) => {
    for (const [path, route] of Object.entries(site)) {
      if (typeof route === "string") site[path] = route.replaceAll(from, to);
      else if (typeof route.body === "string") site[path] = { ...route, body: route.body.replaceAll(from, to) };
    }
  };
  fill(raw["prefix.test"]!, "ORIGIN", origin("prefix.test"));
  fill(raw["refresh.test"]!, "INTRANET", origin("intranet.refresh.test"));
  fill(raw["www.links.test"]!, "APEX", origin("links.test"));
  fill(raw["www.links.test"]!, "WWW", origin("www.links.test"));
});
afterAll(() => sites.stop());

describe("a site that lives in a folder (/website/)", () => {
  it("is crawled as fully as one at the root, relative links resolving inside the folder the page was served from", async () => {
    const result = await crawler().crawl(origin("prefix.test"));
    const read = paths(result.crawledPages);
    for (const path of [
      "/website",
      "/website/tour",
      "/website/docs",
      "/website/pricing",
      "/website/about",
      "/website/security",
      "/website/tour/changelog",
      "/website/hidden-gem",
    ]) {
      expect(read).toContain(path);
    }
    expect(read.filter((path) => path.startsWith("/website/feature-"))).toHaveLength(12);
    expect(result.crawlStats.failures).toEqual([]);
    expect(result.crawlStats.pagesPlanned).toBe(result.crawlStats.pagesAnalyzed);
    // Folders were requested with their slash, as the links wrote them.
    expect(sites.requestsTo("prefix.test").some((request) => request.path === "/website/tour/")).toBe(true);
  });

  it("ranks the folder's pricing and docs pages first when the page budget is small", async () => {
    const result = await crawler(4).crawl(origin("prefix.test"));
    expect(paths(result.crawledPages)).toEqual(["/website", "/website/pricing", "/website/docs", "/website/about"]);
  });

  it("reads the folder the home page is served from as the site's root when ranking, however deep it is", async () => {
    const result = await crawler(3).crawl(origin("deep.test") + "/sites/acme-cloud/");
    expect(paths(result.crawledPages)).toEqual([
      "/sites/acme-cloud",
      "/sites/acme-cloud/pricing",
      "/sites/acme-cloud/docs",
    ]);
  });

  it("obeys robots.txt and reports what it kept out", async () => {
    const result = await crawler().crawl(origin("prefix.test"));
    expect(result.crawlStats.skippedByRobots).toBe(1);
    expect(result.crawlStats.skippedByRobotsUrls).toEqual([`${origin("prefix.test")}/website/private`]);
    expect(
      sites.requestsTo("prefix.test").filter((request) => request.path.startsWith("/website/private")),
    ).toHaveLength(0);
  });
});

describe("sitemaps", () => {
  it("reads a sitemap whose entries a static-site generator wrote on localhost:4000 as this site's pages", async () => {
    const result = await crawler().crawl(origin("jekyll.test"));
    expect(paths(result.crawledPages).sort()).toEqual(["/", "/blog/launch", "/docs", "/pricing"]);
    expect(result.crawlStats.sitemapUrls).toBe(2);
  });
});

describe("rel=canonical", () => {
  it("is a hint: pages that name another page as canonical are read; a page read twice under two addresses counts once", async () => {
    const result = await crawler().crawl(origin("canon.test"));
    const read = paths(result.crawledPages).sort();
    expect(read).toContain("/tour");
    expect(read).not.toContain("/copy"); // the home page again under another address
    // "?ref=nav" is dropped as a tracking parameter; "?src=footer" serves the same pricing content under another address.
    expect(read.filter((path) => path.startsWith("/pricing"))).toHaveLength(1);
  });
});

describe("meta refresh", () => {
  it("follows a refresh stub to its target instead of reading the stub as a page", async () => {
    const result = await crawler().crawl(origin("refresh.test"));
    const read = paths(result.crawledPages);
    expect(read).toContain("/pricing");
    expect(read).not.toContain("/old-pricing");
    // A page with content and a slow refresh is a page; where it leads is read too.
    expect(read).toEqual(expect.arrayContaining(["/slow-refresh", "/next"]));
  });

  it("checks a refresh target with the address guard, like any redirect", async () => {
    const result = await crawler().crawl(origin("refresh.test"));
    expect(result.crawlStats.failures).toEqual([
      {
        url: `${origin("intranet.refresh.test")}/admin`,
        reason: expect.stringMatching(/non-public address, private network/),
      },
    ]);
    expect(result.crawlStats.failures[0]?.reason).not.toMatch(/10\.0\.0\.7/);
    expect(sites.requestsTo("intranet.refresh.test")).toHaveLength(0);
  });
});

describe("links written every way people write them", () => {
  it("reads links with spaces, unencoded UTF-8, odd quoting and whitespace, and the site's host with and without www. once", async () => {
    const before = sites.requests.length;
    const result = await crawler().crawl(origin("www.links.test"));
    const read = paths(result.crawledPages);
    expect(read.sort()).toEqual(["/", "/Our%20Team", "/docs", "/features", "/pricing", "/%C3%BCber-uns"].sort());
    const pricingRequests = sites.requests.slice(before).filter((request) => request.path === "/pricing");
    expect(pricingRequests).toHaveLength(1);
    expect(result.crawlStats.failures).toEqual([]);
  });
});

describe("what a browser shows", () => {
  it("reads framework templates and <noscript>, and follows the links inside templates", async () => {
    const result = await crawler().crawl(origin("vue.test"));
    expect(paths(result.crawledPages).sort()).toEqual(["/", "/customers", "/pricing"]);
    const home = result.pages[0]!;
    expect(home.text).toContain("Trusted by 400 teams including .");
    expect(home.text).toContain("Acme Vue works best with JavaScript.");
    expect(home.text).not.toContain("{{");
    expect(home.headings[0]?.text).toBe("Ship faster");
  });

  it("counts a menu built from <div>s once per site, not once per page", async () => {
    const result = await crawler().crawl(origin("mega.test"));
    expect(result.pages).toHaveLength(5);
    expect(result.pages[0]!.text).toContain("Platform Observability Logs Traces Metrics");
    for (const other of result.pages.slice(1)) {
      expect(other.text).not.toContain("Platform Observability");
      expect(other.text).toMatch(/^Own text of \/[a-d]\.$/);
    }
    // The moved lines are one boilerplate block, the same on every page: contentLength counts it once, not four times.
    const chrome = result.pages[1]!.boilerplate.at(-1)!;
    expect(result.pages.slice(2).every((other) => other.boilerplate.at(-1) === chrome)).toBe(true);
    expect(result.crawlStats.contentLength).toBe(result.pages.reduce((n, p) => n + p.text.length, 0) + chrome.length);
  });
});
