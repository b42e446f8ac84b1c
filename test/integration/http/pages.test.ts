import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.js";

/**
 * The pages outside /api over plain HTTP: the home page and its negotiation, and
 * which misses are pages (a browser, outside /api) and which are the JSON envelope.
 */

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

const get = (path: string, accept?: string, method = "GET") =>
  fetch(`${service.url}${path}`, { method, headers: accept === undefined ? {} : { accept } });

async function expectEnvelope(response: Response): Promise<void> {
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect((await response.json()).error).toMatchObject({ code: "NOT_FOUND", retryable: false });
}

async function expectPage(response: Response, title: string): Promise<string> {
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+';/);
  const html = await response.text();
  expect(html).toContain(`<title>${title}</title>`);
  expect(html).toContain('<a href="/">');
  expect(html).not.toMatch(/<script/i);
  return html;
}

describe("the home page", () => {
  it("answers GET and HEAD with the page, its script from this origin, under a strict CSP", async () => {
    for (const accept of [undefined, BROWSER_ACCEPT, "*/*"]) {
      const response = await get("/", accept);
      expect(response.status, String(accept)).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("vary")).toMatch(/accept/i);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain("unsafe");
      const html = await response.text();
      const script = html.match(/<script type="module" src="([^"]+)"><\/script>/)?.[1] ?? "";
      expect(script).toMatch(/^\/assets\/home\.js\?v=/);
      const asset = await fetch(`${service.url}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await asset.text()).toContain("graphql-transport-ws");
    }
    const head = await get("/", BROWSER_ACCEPT, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
  });

  it("keeps the JSON 404 envelope for a client that ranks JSON above HTML", async () => {
    await expectEnvelope(await get("/", "application/json"));
    await expectEnvelope(await get("/", "application/json, text/html;q=0.5"));
  });
});

describe("misses", () => {
  it("are a styled page for a browser outside /api", async () => {
    const html = await expectPage(await get("/no/such/page", BROWSER_ACCEPT), "Page not found");
    expect(html).toContain("There is no page at this address.");
    expect((await get("/no/such/page", BROWSER_ACCEPT)).headers.get("vary")).toMatch(/accept/i);
  });

  it("are the JSON envelope under /api whatever the client accepts, and for clients that do not name HTML", async () => {
    await expectEnvelope(await get("/api/no-such-route", BROWSER_ACCEPT));
    await expectEnvelope(await get("/api", BROWSER_ACCEPT));
    await expectEnvelope(await get("/no/such/page", "*/*"));
    await expectEnvelope(await get("/no/such/page"));
    await expectEnvelope(await get("/no/such/page", "application/json"));
  });

  it("of a share link are the styled page, whatever the client accepts", async () => {
    for (const accept of [BROWSER_ACCEPT, "*/*"]) {
      const html = await expectPage(await get("/r/00000000-0000-4000-8000-000000000000", accept), "Result not found");
      expect(html).toContain("This score result does not exist");
    }
  });
});
