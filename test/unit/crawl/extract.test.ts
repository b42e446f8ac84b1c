import { describe, expect, it } from "vitest";
import type { ExtractedPage } from "../../../src/modules/crawl/crawl.types.js";
import { detectCompanyName, extractPage, type PageInput } from "../../../src/modules/crawl/extract.js";

const PAGE_URL = "https://acme.com/product";

function extract(body: string, options: Partial<Omit<PageInput, "body">> = {}): ExtractedPage {
  return extractPage({ url: PAGE_URL, status: 200, kind: "html", headers: {}, ...options, body });
}

const linkUrls = (page: ExtractedPage) => [...page.internalLinks, ...page.externalLinks].map((link) => link.url);

describe("extractPage: metadata", () => {
  it("reads title, description, Open Graph, canonical and lang, whatever the attribute quoting", () => {
    const page = extract(`<!DOCTYPE html><html lang=en-GB><head>
      <title>  Acme
        Rocket | Acme </title>
      <meta name='description' content='Ship   rockets &amp; more.'>
      <meta property=og:title content=Rocket>
      <meta property="og:site_name" content="Acme Inc.">
      <meta property="OG:Image" content="https://cdn.acme.com/r.png">
      <link rel="alternate canonical" href='/product/?utm_source=x'>
    </head><body></body></html>`);
    expect(page).toMatchObject({
      url: PAGE_URL,
      status: 200,
      title: "Acme Rocket | Acme",
      metaDescription: "Ship rockets & more.",
      openGraph: { title: "Rocket", site_name: "Acme Inc.", image: "https://cdn.acme.com/r.png" },
      canonical: "https://acme.com/product",
      lang: "en-GB",
    });
  });

  it("keeps the first of repeated tags and leaves absent ones empty", () => {
    const page = extract(
      `<title>First</title><title>Second</title><meta name="description" content="one"><meta name="description" content="two"><p>x</p>`,
    );
    expect(page).toMatchObject({
      title: "First",
      metaDescription: "one",
      openGraph: {},
      canonical: undefined,
      lang: undefined,
      metaRefresh: undefined,
    });
  });

  it("ignores an SVG <title> when the page has none", () => {
    expect(extract(`<body><svg><title>icon</title></svg><p>Hi</p></body>`).title).toBe("");
  });

  it.each([
    [`0; url=/next`, "https://acme.com/next"],
    [`0;URL='/next?a=1'`, "https://acme.com/next?a=1"],
    [`5; url="https://other.org/x"`, "https://other.org/x"],
    [`3,/next`, "https://acme.com/next"],
    [`10`, undefined],
  ])("resolves the meta refresh target of %j", (content, target) => {
    expect(
      extract(`<head><meta http-equiv="Refresh" content="${content.replace(/"/g, "&quot;")}"></head>`).metaRefresh,
    ).toBe(target);
  });

  it("reports which security headers the response carried, whatever their case", () => {
    const headers = {
      "Strict-Transport-Security": "max-age=63072000",
      "x-content-type-options": "nosniff",
      "x-frame-options": "",
      "set-cookie": ["a=1"],
    };
    expect(extract("<p>x</p>", { headers }).trustHeaders).toEqual({
      hsts: true,
      csp: false,
      xFrameOptions: false,
      xContentTypeOptions: true,
    });
    expect(
      extract("<p>x</p>", { headers: { "content-security-policy": "default-src 'self'", "x-frame-options": "DENY" } })
        .trustHeaders,
    ).toEqual({
      hsts: false,
      csp: true,
      xFrameOptions: true,
      xContentTypeOptions: false,
    });
  });
});

describe("extractPage: visible text", () => {
  it("keeps what a reader sees, one line per block, whitespace collapsed, words never merged", () => {
    const page = extract(`<body>
      <main><h1>Rockets</h1><p>Fast   and
         <b>cheap</b>.</p><div>Line one<br>line two</div><ul><li>alpha</li><li>beta</li></ul>
      <table><tr><td>cell</td><td>next</td></tr></table></main></body>`);
    expect(page.text).toBe("Rockets\nFast and cheap.\nLine one\nline two\nalpha\nbeta\ncell next");
  });

  it("drops scripts, styles, SVG, iframes and the head", () => {
    const page =
      extract(`<head><title>T</title><style>p{color:red}</style><noscript><img src="/pixel.gif"></noscript></head><body><p>kept</p>
      <script>var secret = 1;</script><script type="module">import x from "/x.js"</script>
      <svg><text>chart</text></svg><iframe src="/x">frame</iframe><p>also kept</p></body>`);
    expect(page.text).toBe("kept\nalso kept");
  });

  it("reads <noscript> and <template> as a browser without JavaScript shows them", () => {
    const page = extract(`<body><p>kept</p><noscript><p>Our pricing starts at $9 per month.</p></noscript>
      <template><section><h2>Security</h2><p>SOC 2 Type II audited.</p></section></template></body>`);
    expect(page.text).toBe("kept\nOur pricing starts at $9 per month.\nSecurity\nSOC 2 Type II audited.");
    expect(page.headings).toEqual([{ level: 2, text: "Security" }]);
  });

  it('reads framework templates kept in <script type="text/x-template">: text, headings and links, interpolations dropped', () => {
    const page = extract(`<body><div id="app"></div>
      <script type="text/x-template" id="hero"><div><h1>{{ brand }} ships releases weekly</h1>
        <p>Trusted by {{ customers.length }} teams. <a href="/changelog">Changelog</a></p></div></script>
      <script type="text/html"><p>Knockout &amp; friends</p></script>
      <script type="text/javascript">document.write("<p>not text</p>")</script></body>`);
    expect(page.text).toBe("ships releases weekly\nTrusted by teams. Changelog\nKnockout & friends");
    expect(page.headings.map((heading) => heading.text)).toEqual(["ships releases weekly"]);
    expect(page.internalLinks.map((link) => [link.url, link.text])).toEqual([
      ["https://acme.com/changelog", "Changelog"],
    ]);
  });

  it("bounds what template scripts can add: at most 50 are parsed per page", () => {
    const many = Array.from({ length: 60 }, (_, i) => `<script type="text/x-template"><p>t${i}</p></script>`).join("");
    const page = extract(`<body>${many}</body>`);
    expect(page.text.split("\n")).toHaveLength(50);
  });

  it("drops hidden, aria-hidden and inline display:none elements", () => {
    const page = extract(`<p>shown</p><div hidden><p>hidden attr</p></div><span aria-hidden="true">icon</span>
      <div style="color: red; display : none">inline none</div><div style="display:block">block</div><p aria-hidden="false">visible</p>`);
    expect(page.text).toBe("shown\nblock\nvisible");
  });

  it("puts site nav, header and footer text in boilerplate, one string per block, and not in the text", () => {
    const page =
      extract(`<body><header><a href="/">Acme</a><nav><a href="/pricing">Pricing</a> <a href="/docs">Docs</a></nav></header>
      <main><article><header><h1>Launch notes</h1></header><p>Body text.</p><footer>Posted by Ann</footer></article></main>
      <div role="navigation"><a href="/a">Side menu</a></div>
      <footer><p>© 2025 Acme</p><a href="/terms">Terms</a></footer></body>`);
    expect(page.boilerplate).toEqual(["Acme\nPricing Docs", "Side menu", "© 2025 Acme\nTerms"]);
    // A header or footer inside an article belongs to the article.
    expect(page.text).toBe("Launch notes\nBody text.\nPosted by Ann");
  });

  it("lists h1–h3 in document order with their level, leaving out h4+, hidden and navigation headings", () => {
    const page = extract(`<nav><h2>Menu</h2></nav><h1>Title <small>v2</small></h1><h2>Plans</h2><h4>Fine print</h4>
      <h3 hidden>Secret</h3><h3>FAQ<br>and help</h3><h2>   </h2>`);
    expect(page.headings).toEqual([
      { level: 1, text: "Title v2" },
      { level: 2, text: "Plans" },
      { level: 3, text: "FAQ and help" },
    ]);
  });

  it("caps the text at 200,000 characters", () => {
    const paragraph = `<p>${"word ".repeat(2000)}</p>`;
    const page = extract(`<body>${paragraph.repeat(30)}</body>`);
    expect(page.text.length).toBe(200_000);
  });

  it("still extracts from malformed HTML: unclosed and stray tags, no html/head/body", () => {
    const page = extract(
      `<p>First <b>bold <i>both</b> italic?</p></div></span><p>Second<li>item <a href=/x>X</div><h2>Tail`,
    );
    expect(page.text).toBe("First bold both italic?\nSecond\nitem X\nTail");
    expect(page.internalLinks).toEqual([{ url: "https://acme.com/x", text: "X Tail", inNav: false }]);
    expect(page.headings).toEqual([{ level: 2, text: "Tail" }]);
  });
});

describe("extractPage: pathological pages", () => {
  it("walks a page nested 20,000 elements deep without overflowing the stack", () => {
    const page = extract(`${"<div>".repeat(20_000)}deep <a href="/x">link</a>${"</div>".repeat(20_000)}`);
    expect(page.text).toBe("deep link");
    expect(linkUrls(page)).toEqual(["https://acme.com/x"]);
  });
});

describe("extractPage: links", () => {
  it("resolves every link against <base href>, splits internal from external and deduplicates keeping the first", () => {
    const page = extract(`<head><base href="https://acme.com/docs/"></head><body>
      <nav><a href="intro">Intro</a></nav>
      <p><a href="  intro#setup ">Intro again</a> <a href="/pricing?utm_source=mail" rel="nofollow">Pricing</a>
      <a href='https://blog.acme.com/post'>Blog</a> <a href=https://github.com/acme>GitHub</a>
      <a href="my page.html">Spaced</a> <a href="#top">Top</a> <a href="mailto:hi@acme.com">Mail</a> <a href="javascript:void(0)">JS</a>
      <a>no href</a></p>
      <map><area href="/map-target" alt="Region"></map></body>`);
    expect(page.internalLinks).toEqual([
      { url: "https://acme.com/docs/intro", text: "Intro", inNav: true },
      { url: "https://acme.com/pricing", text: "Pricing", inNav: false },
      { url: "https://blog.acme.com/post", text: "Blog", inNav: false },
      { url: "https://acme.com/docs/my%20page.html", text: "Spaced", inNav: false },
      { url: "https://acme.com/map-target", text: "Region", inNav: false },
    ]);
    expect(page.externalLinks).toEqual([{ url: "https://github.com/acme", text: "GitHub", inNav: false }]);
  });

  it("resolves relative links against the address as served (trailing slash kept) and reports the canonical page URL", () => {
    const page = extract(`<a href="intro">Intro</a><a href="../up">Up</a>`, {
      url: "https://acme.com/docs/?utm_source=x",
    });
    expect(page.url).toBe("https://acme.com/docs");
    expect(linkUrls(page)).toEqual(["https://acme.com/docs/intro", "https://acme.com/up"]);
  });

  it("resolves a relative <base href> against the page, and the canonical and refresh against the base", () => {
    const page = extract(
      `<base href="/v2/"><link rel=canonical href="guide"><meta http-equiv=refresh content="0; url=next"><a href="a">A</a>`,
    );
    expect(page.canonical).toBe("https://acme.com/v2/guide");
    expect(page.metaRefresh).toBe("https://acme.com/v2/next");
    expect(linkUrls(page)).toEqual(["https://acme.com/v2/a"]);
  });

  it("marks links in nav and the site header as navigation, not those in the footer or content", () => {
    const page = extract(
      `<header><a href="/logo">Logo</a></header><nav><a href="/n">N</a></nav><main><a href="/c">C</a></main><footer><a href="/f">F</a></footer>`,
    );
    expect(page.internalLinks.map((link) => [link.url.replace("https://acme.com", ""), link.inNav])).toEqual([
      ["/logo", true],
      ["/n", true],
      ["/c", false],
      ["/f", false],
    ]);
  });

  it("uses trimmed, collapsed text of at most 200 characters, or the image's alt text", () => {
    const page =
      extract(`<a href="/long">${"x".repeat(300)}</a><a href="/img"><img src="a.png" alt=" Acme logo "></a><a href="/spaced">  Read
      <span>more</span> </a><a href="/card"><h3>Case study</h3><p>How Initech ships</p></a><a href="/hidden-menu" hidden>Hidden menu item</a>`);
    expect(page.internalLinks.map((link) => link.text)).toEqual([
      "x".repeat(200),
      "Acme logo",
      "Read more",
      "Case study How Initech ships",
      "Hidden menu item",
    ]);
    expect(page.text).not.toContain("Hidden menu item");
  });
});

describe("extractPage: JSON-LD", () => {
  it("keeps organisations, products, applications and their offers, from arrays and @graph", () => {
    const page = extract(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
        {"@type":"WebSite","name":"ignored"},
        {"@type":["Organization","Brand"],"name":"Acme","url":"https://acme.com","sameAs":["https://x.com/acme","https://github.com/acme"],"logo":{"@type":"ImageObject"}},
        {"@type":"SoftwareApplication","name":"Rocket","applicationCategory":"DeveloperApplication","operatingSystem":"Web",
         "offers":{"@type":"AggregateOffer","lowPrice":0,"highPrice":"99","priceCurrency":"USD"}}]}</script>
      <script type="application/ld+json">[{"@type":"Product","name":"Booster","description":"  Extra\\n thrust ","offers":[
        {"@type":"Offer","price":"49.00","priceCurrency":"EUR"},{"@type":"Offer","priceSpecification":{"price":10,"priceCurrency":"GBP"}}]},
        {"@type":"http://schema.org/Corporation","name":"Acme Holdings"}]</script>`);
    expect(page.jsonLd).toEqual([
      {
        type: "Organization",
        name: "Acme",
        properties: { url: "https://acme.com", sameAs: "https://x.com/acme https://github.com/acme" },
      },
      {
        type: "SoftwareApplication",
        name: "Rocket",
        properties: { applicationCategory: "DeveloperApplication", operatingSystem: "Web" },
      },
      { type: "AggregateOffer", properties: { lowPrice: "0", highPrice: "99", priceCurrency: "USD" } },
      { type: "Product", name: "Booster", properties: { description: "Extra thrust" } },
      { type: "Offer", properties: { price: "49.00", priceCurrency: "EUR" } },
      { type: "Offer", properties: { price: "10", priceCurrency: "GBP" } },
      { type: "Corporation", name: "Acme Holdings", properties: {} },
    ]);
  });

  it("survives broken blocks: invalid JSON is skipped, raw newlines in strings and comment wrappers are tolerated", () => {
    const page = extract(`<script type="application/ld+json">{"@type":"Organization", name: broken}</script>
      <script type="application/ld+json">{"@type":"Organization","name":"Acme
        Corp"}</script>
      <script type="application/ld+json"><!-- {"@type":"Product","name":"Wrapped"} --></script>
      <script type="text/javascript">{"@type":"Product","name":"not JSON-LD"}</script>`);
    expect(page.jsonLd).toEqual([
      { type: "Organization", name: "Acme Corp", properties: {} },
      { type: "Product", name: "Wrapped", properties: {} },
    ]);
  });
});

describe("extractPage: dates and prices", () => {
  const nextYear = new Date().getUTCFullYear() + 1;

  it("normalises <time datetime>, ISO and written dates to sorted, unique YYYY-MM-DD", () => {
    const page =
      extract(`<p>Released 2025-03-05. Updated March 5, 2025, then 5 March 2024 and Mar. 7, 2023 and Sept 1st, 2022.</p>
      <time datetime="2021-06-30T10:00:00Z">last summer</time><time datetime="tomorrow">?</time>
      <p>Not dates: 2025-02-30, 1990-01-01, ${nextYear + 1}-01-01, version 10-2025-1, Feb 29, 2023.</p>
      <p>Next year is fine: ${nextYear}-01-15.</p>`);
    expect(page.dates).toEqual([
      "2021-06-30",
      "2022-09-01",
      "2023-03-07",
      "2024-03-05",
      "2025-03-05",
      `${nextYear}-01-15`,
    ]);
  });

  it("does not date a page by a code sample's timestamps; a plain-text <pre> changelog is still dated (framework 2.7.0)", () => {
    const page = extract(`<h2>Events API</h2><p>Each event carries its time.</p>
      <pre><code>{ "id": "evt_1", "created": "2019-04-01T10:00:00Z" }</code></pre>
      <p>Call <code>since=2018-01-01</code> to page back.</p>
      <pre>1.2.0 (2021-06-30) Faster exports</pre><p>Updated March 5, 2025.</p>`);
    expect(page.dates).toEqual(["2021-06-30", "2025-03-05"]);
    expect(page.text).toContain("2019-04-01T10:00:00Z");
  });

  it("finds prices in their usual forms with an ISO currency, the amount and the text around them", () => {
    const page = extract(`<ul><li>Starter $49/mo</li><li>Pro $1,299.99/mo billed yearly</li><li>Team €29 per seat</li>
      <li>Business 29 €</li><li>UK £10</li><li>Enterprise USD 499</li><li>Agency 990 USD</li><li>Japan ¥1000</li>
      <li>India ₹799</li><li>Europe 1.299,99 €</li><li>Free $0</li></ul>`);
    expect(page.prices.map(({ currency, amount, text }) => [currency, amount, text])).toEqual([
      ["USD", 49, "Starter $49/mo"],
      ["USD", 1299.99, "Pro $1,299.99/mo billed yearly"],
      ["EUR", 29, "Team €29 per seat"],
      ["EUR", 29, "Business 29 €"],
      ["GBP", 10, "UK £10"],
      ["USD", 499, "Enterprise USD 499"],
      ["USD", 990, "Agency 990 USD"],
      ["JPY", 1000, "Japan ¥1000"],
      ["INR", 799, "India ₹799"],
      ["EUR", 1299.99, "Europe 1.299,99 €"],
      ["USD", 0, "Free $0"],
    ]);
  });

  it("does not read funding rounds, versions or plain numbers as prices", () => {
    expect(extract(`<p>We raised $5M in 2024. Version 2.5 ships 300 features to 49 countries.</p>`).prices).toEqual([]);
  });

  it("keeps the evidence short: at most 80 characters, on the price's own line, the price whole", () => {
    const long = `${"lorem ipsum ".repeat(10)}only $19.99/month ${"dolor sit amet ".repeat(10)}`;
    const [price] = extract(`<p>${long}</p>`).prices;
    expect(price?.amount).toBe(19.99);
    expect(price?.text.length).toBeLessThanOrEqual(80);
    expect(price?.text).toContain("only $19.99/month");
    expect(price?.text).toMatch(/^\S.*\S$/);
  });

  it("stops at 50 prices per page", () => {
    const page = extract(`<ul>${Array.from({ length: 80 }, (_, i) => `<li>Plan ${i}: $${i + 1}</li>`).join("")}</ul>`);
    expect(page.prices).toHaveLength(50);
  });
});

describe("extractPage: XHTML", () => {
  const xhtml = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="fr">
<head><title>Produit</title><meta name="description" content="Fusées"/>
<script type="application/ld+json"><![CDATA[{"@type":"Organization","name":"Acme SA"}]]></script></head>
<body><nav><a href="/tarifs">Tarifs</a></nav><h1>Fusées &amp; boosters</h1><p>Prix : 29 €</p><p hidden="hidden">caché</p>
<p>Mis à jour le <time datetime="2024-11-02">2 novembre</time></p><a href="contact">Contact</a></body></html>`;

  it("parses application/xhtml+xml as XML and extracts the same fields", () => {
    const page = extract(xhtml, { kind: "xhtml", url: "https://acme.fr/produit/" });
    expect(page).toMatchObject({
      title: "Produit",
      metaDescription: "Fusées",
      lang: "fr",
      jsonLd: [{ type: "Organization", name: "Acme SA", properties: {} }],
      headings: [{ level: 1, text: "Fusées & boosters" }],
      text: "Fusées & boosters\nPrix : 29 €\nMis à jour le 2 novembre\nContact",
      boilerplate: ["Tarifs"],
      dates: ["2024-11-02"],
      prices: [{ currency: "EUR", amount: 29, text: "Prix : 29 €" }],
      internalLinks: [
        { url: "https://acme.fr/tarifs", text: "Tarifs", inNav: true },
        { url: "https://acme.fr/produit/contact", text: "Contact", inNav: false },
      ],
    });
  });

  it("reads malformed XHTML as HTML instead of failing", () => {
    const page = extract(
      `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Unclosed<br><p>Second &nbsp; para</body></html>`,
      { kind: "xhtml" },
    );
    expect(page.text).toBe("Unclosed\nSecond para");
  });
});

describe("extractPage: plain data only", () => {
  it("returns data that survives structured cloning unchanged: no node, no function, no DOM", () => {
    const page = extract(
      `<title>T</title><nav><a href="/a">A</a></nav><p>$5 on 2025-01-01</p><script type="application/ld+json">{"@type":"Product","name":"P"}</script>`,
    );
    expect(structuredClone(page)).toEqual(page);
    const xhtml = extract(`<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>`, { kind: "xhtml" });
    expect(structuredClone(xhtml)).toEqual(xhtml);
  });
});

describe("detectCompanyName", () => {
  const home = (html: string) => extract(html, { url: "https://www.acme.com/" });

  it("prefers the JSON-LD organisation name", () => {
    const page = home(`<title>Home | Rockets</title><meta property="og:site_name" content="Acme Site">
      <script type="application/ld+json">{"@type":"Corporation","name":"Acme Corporation"}</script>`);
    expect(detectCompanyName(page, "www.acme.com")).toBe("Acme Corporation");
  });

  it("then og:site_name", () => {
    expect(
      detectCompanyName(
        home(`<title>Home | Rockets</title><meta property="og:site_name" content=" Acme Site ">`),
        "www.acme.com",
      ),
    ).toBe("Acme Site");
  });

  it.each([
    ["Pricing | Acme Inc.", "Acme Inc."],
    ["Acme — Rockets for everyone", "Acme"],
    ["Rockets for teams - ACME", "ACME"],
    ["Docs · Blog · Acme Labs", "Acme Labs"],
    ["Ship faster · Rocketly", "Rocketly"],
    ["Rocketly", "Rocketly"],
  ])("then the brand-like part of the title %j", (title, name) => {
    expect(detectCompanyName(home(`<title>${title}</title>`), "www.acme.com")).toBe(name);
  });

  it("finally the domain label, capitalised", () => {
    expect(detectCompanyName(home(`<p>no title</p>`), "acme.com")).toBe("Acme");
    expect(detectCompanyName(home(`<title>Home</title>`), "www.acme.co.uk")).toBe("Acme");
    expect(
      detectCompanyName(home(`<title>The fastest way to launch rockets into orbit</title>`), "shop.rocketly.io"),
    ).toBe("Rocketly");
  });
});
