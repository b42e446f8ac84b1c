import { describe, expect, it } from "vitest";
import { parseSitemap } from "../../../src/modules/crawl/sitemap.js";

const NS = "http://www.sitemaps.org/schemas/sitemap/0.9";

const urlset = (body: string, attributes = `xmlns="${NS}"`) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${attributes}>${body}</urlset>`;

describe("parseSitemap: XML", () => {
  it("reads the pages of a urlset with their lastmod", () => {
    const sitemap = parseSitemap(
      urlset(`
        <url><loc>https://example.com/</loc><lastmod>2025-03-01</lastmod><priority>1.0</priority></url>
        <url><loc>
          https://example.com/pricing
        </loc></url>`),
    );
    expect(sitemap).toEqual({
      kind: "urlset",
      entries: [{ loc: "https://example.com/", lastmod: "2025-03-01" }, { loc: "https://example.com/pricing" }],
    });
  });

  it("reads a sitemap index as a list of further sitemaps", () => {
    const sitemap = parseSitemap(
      `<sitemapindex xmlns="${NS}"><sitemap><loc>https://example.com/pages.xml</loc><lastmod>2025-01-02T10:00:00+00:00</lastmod></sitemap><sitemap><loc>https://example.com/blog.xml</loc></sitemap></sitemapindex>`,
    );
    expect(sitemap.kind).toBe("index");
    expect(sitemap.entries).toEqual([
      { loc: "https://example.com/pages.xml", lastmod: "2025-01-02T10:00:00+00:00" },
      { loc: "https://example.com/blog.xml" },
    ]);
  });

  it("reads sitemaps whatever their namespace, including none or a prefixed one", () => {
    expect(parseSitemap(urlset("<url><loc>https://example.com/a</loc></url>", "")).entries).toEqual([
      { loc: "https://example.com/a" },
    ]);
    const prefixed = `<sm:urlset xmlns:sm="${NS}"><sm:url><sm:loc>https://example.com/b</sm:loc></sm:url></sm:urlset>`;
    expect(parseSitemap(prefixed).entries).toEqual([{ loc: "https://example.com/b" }]);
  });

  it("does not mistake an extension's nested <loc> for a page", () => {
    const sitemap = parseSitemap(
      urlset(
        `<url><loc>https://example.com/gallery</loc><image:image><image:loc>https://cdn.example.com/a.png</image:loc></image:image></url>`,
        `xmlns="${NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"`,
      ),
    );
    expect(sitemap.entries).toEqual([{ loc: "https://example.com/gallery" }]);
  });

  it("decodes XML entities in addresses", () => {
    expect(parseSitemap(urlset("<url><loc>https://example.com/s?a=1&amp;b=2</loc></url>")).entries[0]?.loc).toBe(
      "https://example.com/s?a=1&b=2",
    );
  });

  it("skips entries whose loc is missing, empty, not http(s) or not a URL", () => {
    const sitemap = parseSitemap(
      urlset(`
        <url><lastmod>2025-01-01</lastmod></url>
        <url><loc>  </loc></url>
        <url><loc>ftp://example.com/file</loc></url>
        <url><loc>/relative/path</loc></url>
        <url><loc>https://example.com/ok</loc><lastmod> </lastmod></url>`),
    );
    expect(sitemap.entries).toEqual([{ loc: "https://example.com/ok" }]);
  });

  // Also a guard on speed: walking jsdom's live collections made this take ~50 s instead of ~1 s.
  it("keeps at most 50,000 entries", () => {
    const body = Array.from({ length: 50_010 }, (_, i) => `<url><loc>https://example.com/p${i}</loc></url>`).join("");
    const sitemap = parseSitemap(urlset(body));
    expect(sitemap.entries).toHaveLength(50_000);
    expect(sitemap.entries.at(-1)?.loc).toBe("https://example.com/p49999");
  });

  it("ignores a byte-order mark and leading whitespace", () => {
    expect(parseSitemap(`\uFEFF\n  ${urlset("<url><loc>https://example.com/</loc></url>")}`).entries).toHaveLength(1);
  });

  it("throws a plain Error on malformed XML, such as an HTML error page", () => {
    const notXml = "<!DOCTYPE html><html><body><p>Not found<br></p></body></html>";
    expect(() => parseSitemap(notXml)).toThrowError(/not well-formed XML/);
    expect(() => parseSitemap(`<urlset xmlns="${NS}"><url><loc>https://example.com/</loc></url>`)).toThrowError(Error);
  });

  it("throws on well-formed XML that is not a sitemap", () => {
    expect(() => parseSitemap(`<rss version="2.0"><channel/></rss>`)).toThrowError(/not a sitemap.*<rss>/);
  });

  it("never reads external entities", () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${urlset("<url><loc>https://example.com/&xxe;</loc></url>")}`;
    expect(() => parseSitemap(xxe)).toThrowError(/not well-formed XML/);
  });
});

describe("parseSitemap: plain text", () => {
  it("reads one URL per line, skipping blanks and anything that is not an http(s) URL", () => {
    const sitemap = parseSitemap(
      "https://example.com/\r\n\n  https://example.com/docs  \nnot a url\nmailto:a@example.com\nhttp://example.com/old\n",
    );
    expect(sitemap).toEqual({
      kind: "urlset",
      entries: [
        { loc: "https://example.com/" },
        { loc: "https://example.com/docs" },
        { loc: "http://example.com/old" },
      ],
    });
  });

  it("answers an empty urlset for an empty body", () => {
    expect(parseSitemap("")).toEqual({ kind: "urlset", entries: [] });
  });

  it("keeps at most 50,000 entries", () => {
    const text = Array.from({ length: 50_001 }, (_, i) => `https://example.com/p${i}`).join("\n");
    expect(parseSitemap(text).entries).toHaveLength(50_000);
  });
});
