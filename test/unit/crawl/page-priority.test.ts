import { describe, expect, it } from "vitest";
import {
  classifyOutbound,
  classifyPage,
  describePage,
  pagePriority,
  rankCandidates,
  type PageCategory,
} from "../../../src/modules/crawl/page-priority.js";

const site = (path: string) => `https://acme.com${path}`;

describe("classifyPage: what a page is, from its path", () => {
  const cases: Record<PageCategory, string[]> = {
    pricing: ["/pricing", "/plans", "/pricing/", "/pricing.html", "/plans-and-pricing"],
    docs: ["/docs", "/documentation", "/developers", "/guides/getting-started", "/help/articles/123"],
    api_reference: ["/api", "/reference", "/api-reference", "/openapi", "/docs/api", "/developers/reference/users"],
    changelog: ["/changelog", "/release-notes", "/releases", "/whats-new", "/updates", "/docs/changelog"],
    security: ["/security", "/trust", "/compliance", "/soc2", "/company/security"],
    privacy: ["/privacy", "/dpa", "/subprocessors", "/gdpr", "/legal/privacy", "/legal/dpa"],
    careers: ["/careers", "/jobs", "/join-us", "/company/careers", "/careers/senior-engineer"],
    customers: ["/customers", "/case-studies", "/stories", "/testimonials", "/customers/globex"],
    integrations: ["/integrations", "/marketplace", "/apps", "/partners", "/integrations/slack"],
    status: ["/status"],
    blog: ["/blog", "/news", "/articles", "/posts", "/blog/2025/launch"],
    about: ["/about", "/company", "/team", "/about-us", "/company/team"],
    other: ["/", "/features", "/contact", "/legal/terms", "/legal", "/login"],
  };
  for (const [category, paths] of Object.entries(cases)) {
    it(`recognises ${category} pages`, () => {
      for (const path of paths) expect([path, classifyPage(site(path))]).toEqual([path, category]);
    });
  }

  it("lets the first meaningful segment win: a blog post about pricing is a blog page", () => {
    expect(classifyPage(site("/blog/pricing"))).toBe("blog");
    expect(classifyPage(site("/blog/pricing-strategy"))).toBe("blog");
    expect(classifyPage(site("/pricing/blog"))).toBe("pricing");
    expect(classifyPage(site("/pricing-strategy"))).toBe("other");
  });

  it("skips a leading locale segment", () => {
    expect(classifyPage(site("/en/pricing"))).toBe("pricing");
    expect(classifyPage(site("/de-de/docs"))).toBe("docs");
    expect(classifyPage(site("/pt_BR/careers"))).toBe("careers");
    expect(classifyPage(site("/en"))).toBe("other");
  });

  it("is case-insensitive and reads underscores as hyphens", () => {
    expect(classifyPage(site("/Pricing"))).toBe("pricing");
    expect(classifyPage(site("/release_notes"))).toBe("changelog");
  });

  it("keeps documentation hubs to documentation kinds: /docs/security is still docs", () => {
    expect(classifyPage(site("/docs/security"))).toBe("docs");
    expect(classifyPage(site("/docs/pricing"))).toBe("docs");
  });

  it("reads the subdomain when it names the whole host", () => {
    expect(classifyPage("https://docs.acme.com/")).toBe("docs");
    expect(classifyPage("https://docs.acme.com/quickstart")).toBe("docs");
    expect(classifyPage("https://docs.acme.com/api/users")).toBe("api_reference");
    expect(classifyPage("https://docs.acme.com/changelog")).toBe("changelog");
    expect(classifyPage("https://developers.acme.com/")).toBe("docs");
    expect(classifyPage("https://status.acme.com/")).toBe("status");
    expect(classifyPage("https://blog.acme.com/pricing")).toBe("blog");
    expect(classifyPage("https://docs.acme.test/")).toBe("docs");
    expect(classifyPage("https://www.acme.com/")).toBe("other");
    expect(classifyPage("http://127.0.0.1:4000/pricing")).toBe("pricing");
  });

  it("does not treat /.well-known files as pages", () => {
    expect(classifyPage(site("/.well-known/security.txt"))).toBe("other");
    expect(classifyPage(site("/.well-known/security.txt"), "Security")).toBe("other");
  });

  it("falls back to short link text when the URL says nothing", () => {
    expect(classifyPage(site("/p/3921"), "Pricing")).toBe("pricing");
    expect(classifyPage(site("/x"), "API Reference")).toBe("api_reference");
    expect(classifyPage(site("/x"), "Developer docs")).toBe("docs");
    expect(classifyPage(site("/x"), "What’s new")).toBe("changelog");
    expect(classifyPage(site("/x"), "Trust Center")).toBe("security");
    expect(classifyPage(site("/x"), "We're hiring!")).toBe("careers");
    expect(classifyPage(site("/x"), "Plans & Pricing")).toBe("pricing");
  });

  it("does not let link text override the URL, nor a headline count as a label", () => {
    expect(classifyPage(site("/blog/launch"), "Pricing")).toBe("blog");
    expect(classifyPage(site("/x"), "How we rethought our pricing this year")).toBe("other");
    expect(classifyPage(site("/"), "Pricing")).toBe("other");
  });

  it("answers the same once its remembered hosts and link texts have started over (more than 10,000 of each)", () => {
    const before = [
      classifyPage("https://status.acme.com/x"),
      classifyPage(site("/x"), "Pricing"),
      classifyPage(site("/x"), "Release notes"),
    ];
    for (let i = 0; i < 12_000; i++) classifyPage(`https://h${i}.acme.com/x`, `label ${i}`);
    expect([
      classifyPage("https://status.acme.com/x"),
      classifyPage(site("/x"), "Pricing"),
      classifyPage(site("/x"), "Release notes"),
    ]).toEqual(before);
    expect(before).toEqual(["status", "pricing", "changelog"]);
  });

  it("reads plain and encoded segments alike", () => {
    expect(classifyPage(site("/Pricing.html"))).toBe("pricing");
    expect(classifyPage(site("/%70ricing"))).toBe("pricing");
    expect(classifyPage(site("/release_notes/v2"))).toBe("changelog");
    expect(classifyPage(site("/release-notes/v2"))).toBe("changelog");
  });

  it("answers other for an unparsable URL unless the text says more", () => {
    expect(classifyPage("not a url")).toBe("other");
    expect(classifyPage("not a url", "Docs")).toBe("docs");
  });
});

describe("describePage: a site that lives in a folder", () => {
  it("reads the folder the home page is served from as the site's root", () => {
    expect(describePage(site("/website/pricing"), "", "/website/")).toEqual({ category: "pricing", depth: 1 });
    expect(describePage(site("/website/docs/install"), "", "/website/")).toEqual({ category: "docs", depth: 2 });
    expect(describePage(site("/website/tour"), "", "/website/")).toEqual({ category: "other", depth: 1 });
    expect(describePage(site("/en-us/company/careers"), "", "/en-us/")).toEqual({ category: "careers", depth: 1 });
  });

  it("without the base, a leading folder that names nothing before one that does is read as a prefix", () => {
    expect(describePage(site("/website/pricing"))).toEqual({ category: "pricing", depth: 1 });
    expect(describePage(site("/website/blog/launch"))).toEqual({ category: "blog", depth: 2 });
    expect(describePage(site("/website/tour")).category).toBe("other");
    expect(describePage(site("/blog/pricing-changes")).category).toBe("blog");
  });
});

describe("describePage: how deep below its category's index a page sits", () => {
  it("gives index pages depth 1 and counts the levels below", () => {
    expect(describePage(site("/pricing"))).toEqual({ category: "pricing", depth: 1 });
    expect(describePage(site("/company/careers"))).toEqual({ category: "careers", depth: 1 });
    expect(describePage(site("/docs/api"))).toEqual({ category: "api_reference", depth: 1 });
    expect(describePage(site("/blog/2025/launch"))).toEqual({ category: "blog", depth: 3 });
    expect(describePage("https://docs.acme.com/")).toEqual({ category: "docs", depth: 1 });
    expect(describePage("https://docs.acme.com/guides/setup")).toEqual({ category: "docs", depth: 3 });
    expect(describePage(site("/"))).toEqual({ category: "other", depth: 0 });
  });
});

describe("pagePriority", () => {
  const order: PageCategory[] = [
    "pricing",
    "docs",
    "api_reference",
    "changelog",
    "security",
    "privacy",
    "careers",
    "customers",
    "integrations",
    "status",
    "blog",
    "about",
    "other",
  ];

  it("ranks index pages in the order the scorer values them, other last", () => {
    const priorities = order.map((category) => pagePriority(category, 1));
    expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
    expect(new Set(priorities).size).toBe(order.length);
  });

  it("puts a category's index above its deeper pages", () => {
    for (const category of order) {
      expect(pagePriority(category, 1)).toBeGreaterThan(pagePriority(category, 2));
      expect(pagePriority(category, 2)).toBeGreaterThan(pagePriority(category, 3));
    }
    expect(pagePriority("blog", 1)).toBeGreaterThan(pagePriority("blog", 2));
  });

  it("treats the home level (depth 0) like an index", () => {
    expect(pagePriority("docs", 0)).toBe(pagePriority("docs", 1));
  });

  it("values a category's second page far below its first", () => {
    expect(pagePriority("pricing", 1, 1)).toBeLessThan(pagePriority("pricing", 1) / 2);
    expect(pagePriority("pricing", 1, 1)).toBeLessThan(pagePriority("about", 1));
  });
});

describe("rankCandidates", () => {
  const candidate = (path: string, text = "", depth = 1) => ({ url: site(path), text, depth });
  const paths = (ranked: ReadonlyArray<{ url: string }>) => ranked.map(({ url }) => new URL(url).pathname);

  it("orders candidates by what they are worth", () => {
    const ranked = rankCandidates(
      [
        candidate("/about"),
        candidate("/blog"),
        candidate("/features"),
        candidate("/docs"),
        candidate("/pricing"),
        candidate("/careers"),
      ],
      new Map(),
    );
    expect(paths(ranked)).toEqual(["/pricing", "/docs", "/careers", "/blog", "/about", "/features"]);
    expect(ranked[0]).toMatchObject({ category: "pricing", url: site("/pricing") });
  });

  it("takes one page of each valuable kind before a second of any kind", () => {
    const ranked = rankCandidates(
      [candidate("/pricing"), candidate("/plans"), candidate("/docs"), candidate("/changelog")],
      new Map(),
    );
    expect(ranked.map(({ category }) => category)).toEqual(["pricing", "docs", "changelog", "pricing"]);
    // Equal worth: the shorter URL is taken first.
    expect(paths(ranked)).toEqual(["/plans", "/docs", "/changelog", "/pricing"]);
  });

  it("discounts kinds the crawler already has", () => {
    const ranked = rankCandidates([candidate("/pricing"), candidate("/security")], new Map([["pricing", 1]]));
    expect(paths(ranked)).toEqual(["/security", "/pricing"]);
  });

  it("prefers the blog index to its posts, and a category index to a deep page", () => {
    const ranked = rankCandidates([candidate("/blog/2025/launch", "", 2), candidate("/blog")], new Map());
    expect(paths(ranked)).toEqual(["/blog", "/blog/2025/launch"]);
  });

  it("uses link text for URLs that say nothing", () => {
    const ranked = rankCandidates([candidate("/features"), candidate("/p/1", "Pricing")], new Map());
    expect(ranked.map(({ category }) => category)).toEqual(["pricing", "other"]);
  });

  it("breaks ties by fewer link hops, then shorter URL, then alphabetically, so the order is stable", () => {
    const ranked = rankCandidates(
      [candidate("/zeta", "", 2), candidate("/beta"), candidate("/alpha"), candidate("/b")],
      new Map(),
    );
    // All "other" at the same depth: the repeat discount follows the tie order.
    expect(paths(ranked)).toEqual(["/b", "/beta", "/alpha", "/zeta"]);
  });

  it("keeps the caller's own fields and does not alter the input", () => {
    const input = [
      { ...candidate("/docs"), foundOn: "home" },
      { ...candidate("/pricing"), foundOn: "nav" },
    ];
    const snapshot = structuredClone(input);
    const ranked = rankCandidates(input, new Map());
    expect(ranked[0]).toMatchObject({ foundOn: "nav", category: "pricing" });
    expect(input).toEqual(snapshot);
  });

  it("answers an empty list for no candidates", () => {
    expect(rankCandidates([], new Map())).toEqual([]);
  });
});

describe("classifyOutbound", () => {
  const cases: Array<[string, ReturnType<typeof classifyOutbound>]> = [
    ["https://status.acme.com/", "status_page"],
    ["https://acme.statuspage.io/", "status_page"],
    ["https://acme.instatus.com/", "status_page"],
    ["https://status.io/pages/123", "status_page"],
    ["https://acme.betteruptime.com/", "status_page"],
    ["https://github.com/acme/sdk", "github"],
    ["https://www.github.com/acme", "github"],
    ["https://gitlab.com/acme/cli", "github"],
    ["https://apps.apple.com/app/id123", "app_store"],
    ["https://itunes.apple.com/us/app/id123", "app_store"],
    ["https://play.google.com/store/apps/details?id=com.acme", "app_store"],
    ["https://chromewebstore.google.com/detail/acme/abc", "app_store"],
    ["https://chrome.google.com/webstore/detail/abc", "app_store"],
    ["https://marketplace.visualstudio.com/items?itemName=acme.ext", "app_store"],
    ["https://trust.acme.com/", "trust_center"],
    ["https://acme.trust.page/", "trust_center"],
    ["https://app.vanta.com/acme/trust/abc123", "trust_center"],
    ["https://acme.safebase.io/", "trust_center"],
    ["https://trust.drata.com/acme", "trust_center"],
    ["https://security.acme.com/", "trust_center"],
    ["https://twitter.com/acme", "social"],
    ["https://x.com/acme", "social"],
    ["https://www.linkedin.com/company/acme", "social"],
    ["https://uk.linkedin.com/company/acme", "social"],
    ["https://www.youtube.com/@acme", "social"],
    ["https://www.facebook.com/acme", "social"],
    ["https://instagram.com/acme", "social"],
    ["https://discord.gg/abc", "social"],
    ["https://discord.com/invite/abc", "social"],
    ["https://join.slack.com/t/acme/shared_invite/x", "social"],
    ["https://www.reddit.com/r/acme", "social"],
    ["https://acme.readme.io/docs", "docs_host"],
    ["https://acme.gitbook.io/docs", "docs_host"],
    ["https://acme.mintlify.app/", "docs_host"],
    ["https://docs.github.com/en", "other"],
    ["https://app.vanta.com/login", "other"],
    ["https://acme-slack.com/", "other"],
    ["https://notx.com/", "other"],
    ["https://example.org/", "other"],
    ["mailto:hi@acme.com", "other"],
    ["not a url", "other"],
  ];
  it.each(cases)("classifies %s as %s", (url, kind) => {
    expect(classifyOutbound(url)).toBe(kind);
  });
});
