import { parseDocument } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { collapse, htmlparser2Adapter, walkHtml, walkTree } from "../../../src/modules/crawl/html-tree.js";
import { canonicalUrl, fetchAddress, folderAddress, resolveLink } from "../../../src/modules/crawl/url.js";

// walkHtml reads htmlparser2's events without building the tree; it must see exactly what a walk over the tree sees.
const treeWalk = (html: string) =>
  walkTree(
    parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }),
    htmlparser2Adapter,
  );

const PAGES = {
  "entities and comments split text nodes": `<title>A &amp; B</title><p>one &amp; two<!-- c -->three&nbsp;four &#x27;five&#39;</p>`,
  "implied and stray end tags": `<p>a<p>b<div>c</p></br><ul><li>x<li>y</ul></td></a></html>tail`,
  "unclosed elements at the end": `<main><section><h2>Open <a href="/x">link`,
  "templates, nested and interpolated": `<script type="text/x-template"><h2>{{ t }}</h2><a href="/in">in {{ x }}</a> tail<script type="text/html">inner</script></script><p>after</p>`,
  "a template that does not close": `<p>before</p><script type="text/x-template"><div>never closed <a href="/t">t`,
  "hidden template and JSON-LD": `<div hidden><script type="text/x-template"><p>no</p></script><script type="application/ld+json">{"@type":"Organization","name":"X"}</script></div>`,
  "svg title, noscript, template element": `<svg><title>icon</title></svg><noscript>No JS</noscript><template><p>tpl</p></template><title>Real</title>`,
  "links, areas, images, cards": `<nav><a href="/a"><img alt="Logo"></a><a href="/b"><h3>Card</h3><p>Text</p></a></nav><map><area href="/c" alt=" Area "></map>`,
  "roles, hidden styles, banners": `<div role=" Navigation "><a href="/n">n</a></div><section><header>in section</header><footer>f</footer></section><div style="color:red;display : none">x</div><p aria-hidden=" TRUE ">y</p>`,
  "base, canonical, refresh, lang, times": `<html lang=" en "><base href="/sub/"><link rel="Canonical" href="c"><meta http-equiv=REFRESH content="0;url=/n"><time datetime="2024-01-02">then</time>`,
  "duplicate attributes and upper case": `<A HREF="/first" href="/second">X</A><DIV HIDDEN>h</DIV><META PROPERTY="og:Title" CONTENT="T">`,
  "text at the top level and CDATA": `top <![CDATA[ cdata ]]> <?xml x?> <!doctype html> end`,
};

describe("walkHtml", () => {
  for (const [name, html] of Object.entries(PAGES)) {
    it(`reads what a walk over htmlparser2's tree reads: ${name}`, () => {
      expect(walkHtml(html)).toStrictEqual(treeWalk(html));
    });
  }

  it("joins a run of text cut by entities into one text node, as the tree does, up to the text cap", () => {
    const chunk = `${"word ".repeat(200)}&amp;${"more ".repeat(200)}<!-- -->`;
    const html = `<main>${chunk.repeat(500)}</main><nav>${chunk.repeat(30)}</nav>`;
    expect(walkHtml(html)).toStrictEqual(treeWalk(html));
  });
});

describe("collapse", () => {
  const reference = (raw: string) =>
    raw
      .replace(/(?! )\s+| \s+/g, " ")
      .replace(/ ?\u0000[\u0000 ]*/g, "\n")
      .trim();

  it("treats every UTF-16 code unit as the regular expressions do", () => {
    const different: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const c = String.fromCharCode(code);
      for (const raw of [c, `a${c}b`, `a ${c} b`, `${c}x${c}${c}`, `x\u0000${c}\u0000y`])
        if (collapse(raw) !== reference(raw)) different.push(raw);
    }
    expect(different).toEqual([]);
  });

  it("gives the same text as the regular expressions on random runs of spaces, breaks and letters", () => {
    const alphabet = ["a", " ", " ", "\u0000", "\n", "\t", "\u00a0", "\u2028", "\ufeff", "\u200b", "é"];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 20_000; i++) {
      const raw = Array.from(
        { length: Math.floor(random() * 16) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join("");
      if (collapse(raw) !== reference(raw)) expect(collapse(raw)).toBe(reference(raw));
    }
  });
});

describe("resolveLink", () => {
  it("answers canonicalUrl's spelling and fetchAddress's folder from one parse", () => {
    const base = "https://www.acme.test/docs/";
    for (const href of [
      "/a/",
      "b/index.html",
      "../c?utm_source=x&b=1#f",
      "?",
      "#",
      "https://u:p@acme.test./x/?",
      "mailto:x@y",
      "/%2e%2e/z/",
      "d?b=2&a=1",
    ]) {
      const canonical = canonicalUrl(href, base);
      const resolved = resolveLink(href, base);
      expect(resolved?.url).toBe(canonical);
      if (canonical !== undefined)
        expect(resolved!.folder ? folderAddress(canonical) : canonical).toBe(fetchAddress(href, base, canonical));
    }
  });
});
