import { describe, expect, it } from "vitest";
import { readPage } from "../../../src/modules/crawl/extract.js";
import { needsBrowser } from "../../../src/modules/crawl/shell.js";

const read = (html: string) =>
  readPage({ url: "https://acme.example/", status: 200, body: html, kind: "html", headers: {} });
const shell = (html: string, appSite = false) => {
  const { page, scripting } = read(html);
  return needsBrowser(page, scripting, appSite);
};
const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(" ");

describe("a page whose HTML is a shell", () => {
  it("is an empty mount node with the app's bundle: Create React App, Vite, Vue CLI, Angular", () => {
    expect(
      shell(
        `<title>Acme</title><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/static/js/main.3f9a.js"></script>`,
      ),
    ).toBe(true);
    expect(shell(`<div id="app"></div><script type="module" src="/assets/index-4f9a2c.js"></script>`)).toBe(true);
    expect(shell(`<app-root></app-root><script src="main.js" type="module"></script>`)).toBe(true);
    expect(shell(`<div id="__next"></div><script src="/_next/static/chunks/main.js"></script>`)).toBe(true);
    expect(
      shell(
        `<div id="root"><div class="spinner"></div></div><script>document.getElementById("root").textContent = "hi"</script>`,
      ),
    ).toBe(true);
  });

  it("is a page that asks for JavaScript in <noscript> and shows next to nothing else", () => {
    expect(
      shell(`<main></main><noscript>Please enable JavaScript to use Acme.</noscript><script src="/app.js"></script>`),
    ).toBe(true);
    expect(
      shell(
        `<noscript>This site requires JavaScript.</noscript><div class="page"></div><script src="/bundle.js"></script>`,
      ),
    ).toBe(true);
  });

  it("is, on a site already known to be an app, any page with its bundles and next to no text", () => {
    const bare = `<h2>Loading…</h2><script src="/bundle.js"></script>`;
    expect(shell(bare, false)).toBe(false);
    expect(shell(bare, true)).toBe(true);
  });

  it("is never a page that carries its words, however many scripts it has (server-rendered apps, Gatsby, Next)", () => {
    expect(
      shell(
        `<div id="root"><main><h1>Acme</h1><p>${words(120)}</p></main></div><script src="/static/js/main.js"></script>`,
      ),
    ).toBe(false);
    expect(
      shell(
        `<div id="___gatsby"><p>${words(20)}</p></div><noscript>This app works best with JavaScript enabled.</noscript><script src="/app.js"></script>`,
      ),
    ).toBe(false);
    expect(shell(`<div id="root"></div><p>${words(100)}</p><script src="/widget.js"></script>`)).toBe(false);
  });

  it("is never a page without scripts, or a thin page of an HTML site (a contact form, a 404)", () => {
    expect(shell(`<div id="root"></div>`)).toBe(false);
    expect(shell(`<h1>Not found</h1><script src="/analytics.js"></script>`)).toBe(false);
    // Data blocks are not scripts a browser runs.
    expect(
      shell(
        `<div id="root"></div><script type="application/ld+json">{}</script><script type="application/json">{}</script>`,
      ),
    ).toBe(false);
  });
});
