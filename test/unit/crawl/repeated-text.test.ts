import { describe, expect, it } from "vitest";
import type { ExtractedPage } from "../../../src/modules/crawl/crawl.types.js";
import { setRepeatedTextApart } from "../../../src/modules/crawl/repeated-text.js";
import { extractPage } from "../../../src/modules/crawl/extract.js";

// A mega-menu built from plain <div>s: nothing in the markup says it is navigation.
const menu = `<div class="mega"><div>Products Platform Analytics Automation Integrations</div><div>Solutions For startups For enterprise</div></div>`;
const pageAt = (path: string, own: string) =>
  extractPage({
    url: `https://acme.com${path}`,
    status: 200,
    kind: "html",
    headers: {},
    body: `<body>${menu}<main>${own}</main></body>`,
  });

describe("setRepeatedTextApart: site chrome counted once per site", () => {
  it("keeps a menu repeated on most pages in the first page's text and moves it to the others' boilerplate", () => {
    const pages: ExtractedPage[] = [
      pageAt("/", "<p>Home of Acme.</p>"),
      pageAt("/pricing", "<p>Team plan $20 per month.</p>"),
      pageAt("/docs", "<p>Install with npm.</p>"),
      pageAt("/about", "<p>Founded in 2015.</p>"),
    ];
    setRepeatedTextApart(pages);
    expect(pages[0]!.text).toContain("Products Platform Analytics");
    expect(pages.slice(1).map((page) => page.text)).toEqual([
      "Team plan $20 per month.",
      "Install with npm.",
      "Founded in 2015.",
    ]);
    expect(pages[1]!.boilerplate.join("\n")).toContain("Solutions For startups For enterprise");
  });

  it("leaves text alone on small crawls and text that only some pages share", () => {
    const two = [pageAt("/", "<p>a page</p>"), pageAt("/x", "<p>b page</p>")];
    setRepeatedTextApart(two);
    expect(two[1]!.text).toContain("Products Platform");
    const shared = "<p>Start your free trial</p>";
    const pages = [
      pageAt("/", "<p>h</p>"),
      pageAt("/a", shared),
      pageAt("/b", shared),
      pageAt("/c", "<p>c</p>"),
      pageAt("/d", "<p>d</p>"),
      pageAt("/e", "<p>e</p>"),
      pageAt("/f", "<p>f</p>"),
    ];
    setRepeatedTextApart(pages);
    expect(pages[2]!.text).toContain("Start your free trial");
  });
});
