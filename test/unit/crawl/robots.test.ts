import { describe, expect, it } from "vitest";
import { ALLOW_ALL, parseRobots } from "../../../src/modules/crawl/robots.js";

const TOKEN = "ScoreBot";
const robots = (...lines: string[]) => parseRobots(lines.join("\n"), TOKEN);

describe("robots.txt: which group applies to us", () => {
  it("uses the group naming our product token, case-insensitively, over the * group", () => {
    const rules = robots("User-agent: *", "Disallow: /", "", "User-agent: scorebot", "Disallow: /private");
    expect(rules.isAllowed("/pricing")).toBe(true);
    expect(rules.isAllowed("/private/x")).toBe(false);
  });

  it("reads the product token before any version or comment in the user-agent line", () => {
    const rules = robots("User-agent: ScoreBot/2.1 (+https://example.com)", "Disallow: /a");
    expect(rules.isAllowed("/a")).toBe(false);
  });

  it("does not treat a longer or shorter name as ours", () => {
    const rules = robots(
      "User-agent: ScoreBotExtra",
      "Disallow: /",
      "User-agent: Score",
      "Disallow: /",
      "User-agent: *",
      "Disallow: /star",
    );
    expect(rules.isAllowed("/")).toBe(true);
    expect(rules.isAllowed("/star")).toBe(false);
  });

  it("falls back to the * group, and allows everything when no group applies", () => {
    expect(robots("User-agent: *", "Disallow: /tmp").isAllowed("/tmp/x")).toBe(false);
    expect(robots("User-agent: OtherBot", "Disallow: /").isAllowed("/anything")).toBe(true);
  });

  it("lets consecutive user-agent lines share one group", () => {
    const rules = robots(
      "User-agent: OtherBot",
      "User-agent: ScoreBot",
      "Disallow: /shared",
      "User-agent: ThirdBot",
      "Disallow: /third",
    );
    expect(rules.isAllowed("/shared")).toBe(false);
    expect(rules.isAllowed("/third")).toBe(true);
  });

  it("merges the rules of every group naming us", () => {
    const rules = robots(
      "User-agent: ScoreBot",
      "Disallow: /a",
      "",
      "User-agent: *",
      "Disallow: /b",
      "",
      "User-agent: scorebot",
      "Disallow: /c",
    );
    expect(rules.isAllowed("/a")).toBe(false);
    expect(rules.isAllowed("/c")).toBe(false);
    expect(rules.isAllowed("/b")).toBe(true);
  });

  it("ignores rules that come before any user-agent line", () => {
    expect(robots("Disallow: /", "User-agent: *", "Disallow: /x").isAllowed("/y")).toBe(true);
  });
});

describe("robots.txt: allow and disallow", () => {
  it("matches rules as path prefixes", () => {
    const rules = robots("User-agent: *", "Disallow: /admin");
    expect(rules.isAllowed("/admin")).toBe(false);
    expect(rules.isAllowed("/admin/users")).toBe(false);
    expect(rules.isAllowed("/administrator")).toBe(false);
    expect(rules.isAllowed("/docs/admin")).toBe(true);
  });

  it("lets the longest matching rule win, and Allow win a tie", () => {
    const rules = robots(
      "User-agent: *",
      "Disallow: /docs",
      "Allow: /docs/public",
      "Disallow: /docs/public/secret",
      "Allow: /tie",
      "Disallow: /tie",
    );
    expect(rules.isAllowed("/docs/x")).toBe(false);
    expect(rules.isAllowed("/docs/public/page")).toBe(true);
    expect(rules.isAllowed("/docs/public/secret")).toBe(false);
    expect(rules.isAllowed("/tie")).toBe(true);
  });

  it("treats an empty Disallow as allowing everything", () => {
    expect(robots("User-agent: *", "Disallow:").isAllowed("/anything")).toBe(true);
  });

  it("supports * wildcards and the $ end anchor", () => {
    const rules = robots("User-agent: *", "Disallow: /*.pdf$", "Disallow: /search*q=", "Disallow: /exact$");
    expect(rules.isAllowed("/files/report.pdf")).toBe(false);
    expect(rules.isAllowed("/files/report.pdf?download=1")).toBe(true);
    expect(rules.isAllowed("/search?lang=en&q=x")).toBe(false);
    expect(rules.isAllowed("/search?lang=en")).toBe(true);
    expect(rules.isAllowed("/exact")).toBe(false);
    expect(rules.isAllowed("/exact/more")).toBe(true);
  });

  it("treats a $ that is not last as an ordinary character", () => {
    const rules = robots("User-agent: *", "Disallow: /price$list");
    expect(rules.isAllowed("/price$list")).toBe(false);
    expect(rules.isAllowed("/price")).toBe(true);
  });

  it("matches the query string too", () => {
    expect(robots("User-agent: *", "Disallow: /*?sort=").isAllowed("/products?sort=asc")).toBe(false);
  });

  it("always allows /robots.txt itself", () => {
    expect(robots("User-agent: *", "Disallow: /").isAllowed("/robots.txt")).toBe(true);
    expect(robots("User-agent: *", "Disallow: /").isAllowed("/pricing")).toBe(false);
  });

  it("takes a rule without a leading slash as starting at the root", () => {
    expect(robots("User-agent: *", "Disallow: private").isAllowed("/private/x")).toBe(false);
  });

  it("compares percent-encoding consistently: unreserved escapes decoded, others case-folded", () => {
    const rules = robots("User-agent: *", "Disallow: /%7Euser", "Disallow: /a%2fb", "Disallow: /café");
    expect(rules.isAllowed("/~user/page")).toBe(false);
    expect(rules.isAllowed("/%7euser")).toBe(false);
    expect(rules.isAllowed("/a%2Fb")).toBe(false);
    // An encoded slash is not a path separator.
    expect(rules.isAllowed("/a/b")).toBe(true);
    expect(rules.isAllowed("/caf%C3%A9/menu")).toBe(false);
  });

  it("stays fast on patterns built to make regular expressions backtrack", () => {
    const rules = robots("User-agent: *", `Disallow: /${"*a".repeat(40)}*b$`);
    const started = performance.now();
    expect(rules.isAllowed(`/${"a".repeat(2000)}`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("robots.txt: file format tolerance", () => {
  it("ignores the BOM, comments, unknown lines and CRLF line endings", () => {
    const text =
      "\uFEFFUser-agent: * # everyone\r\nNoindex: /x\r\nnot a directive\r\n# Disallow: /commented\r\nDisallow: /private # why\r\n";
    const rules = parseRobots(text, TOKEN);
    expect(rules.isAllowed("/private")).toBe(false);
    expect(rules.isAllowed("/commented")).toBe(true);
    expect(rules.isAllowed("/x")).toBe(true);
  });

  it("accepts directive names in any case and common misspellings", () => {
    const rules = robots("USER-AGENT: *", "DisAllow: /a", "dissallow: /b");
    expect(rules.isAllowed("/a")).toBe(false);
    expect(rules.isAllowed("/b")).toBe(false);
  });

  it("reads at most 500 KiB and ignores the rest", () => {
    const padding = `# ${"x".repeat(500 * 1024)}\n`;
    const rules = parseRobots(`User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`, TOKEN);
    expect(rules.isAllowed("/early")).toBe(false);
    expect(rules.isAllowed("/late")).toBe(true);
  });
});

describe("robots.txt: crawl-delay and sitemaps", () => {
  it("reads crawl-delay from the group that applies to us, including fractions", () => {
    expect(robots("User-agent: *", "Crawl-delay: 2").crawlDelaySeconds).toBe(2);
    expect(robots("User-agent: *", "Crawl-delay: 0.5").crawlDelaySeconds).toBe(0.5);
    expect(robots("User-agent: *", "Crawl-delay: 9", "User-agent: ScoreBot", "Crawl-delay: 1").crawlDelaySeconds).toBe(
      1,
    );
    expect(robots("User-agent: OtherBot", "Crawl-delay: 9").crawlDelaySeconds).toBeUndefined();
  });

  it("caps crawl-delay at 30 seconds and ignores values that are not numbers", () => {
    expect(robots("User-agent: *", "Crawl-delay: 3600").crawlDelaySeconds).toBe(30);
    expect(robots("User-agent: *", "Crawl-delay: soon").crawlDelaySeconds).toBeUndefined();
    expect(robots("User-agent: *", "Crawl-delay: -1").crawlDelaySeconds).toBeUndefined();
  });

  it("collects sitemap lines from anywhere in the file, once each", () => {
    const rules = robots(
      "Sitemap: https://example.com/sitemap.xml",
      "User-agent: OtherBot",
      "Disallow: /",
      "sitemap: https://example.com/news.xml",
      "Sitemap: https://example.com/sitemap.xml",
    );
    expect(rules.sitemaps).toEqual(["https://example.com/sitemap.xml", "https://example.com/news.xml"]);
  });

  it("does not let a sitemap line split a run of user-agent lines", () => {
    const rules = robots(
      "User-agent: OtherBot",
      "Sitemap: https://example.com/s.xml",
      "User-agent: ScoreBot",
      "Disallow: /x",
    );
    expect(rules.isAllowed("/x")).toBe(false);
  });
});

describe("ALLOW_ALL", () => {
  it("allows everything, with no delay and no sitemaps that a caller could alter", () => {
    expect(ALLOW_ALL.isAllowed("/anything")).toBe(true);
    expect(ALLOW_ALL.crawlDelaySeconds).toBeUndefined();
    ALLOW_ALL.sitemaps.push("https://example.com/s.xml");
    expect(ALLOW_ALL.sitemaps).toEqual([]);
  });
});
