import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import type { Site } from "../../support/fixture-sites.js";
import { apiClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Postgres refuses U+0000 in text and jsonb, and a lone surrogate in jsonb. A crawled
 * page can carry both, raw or as escapes; the score is stored all the same, as if the
 * characters were not there (a browser drops NUL from a page's text too).
 */
const leader = calibrationSites.find((site) => site.host === "leader.test")!;

/**
 * The leader's pages, `dirty`: with NUL bytes in the title, an attribute and the text,
 * and JSON-LD escaping NUL and half an emoji; clean: the same page as a browser reads it.
 */
function variant(pages: Site, dirty: boolean): Site {
  const nul = dirty ? "\u0000" : "";
  const escapes = dirty ? { nul: "\\u0000", half: "\\ud83d" } : { nul: "", half: "\\ufffd" };
  const jsonLd = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Stack${escapes.nul}form","url":"https://example.com/${escapes.nul}","description":"Half an emoji ${escapes.half} and a NUL ${escapes.nul}here"}</script>`;
  return Object.fromEntries(
    Object.entries(pages).map(([path, route]) => {
      const headers =
        typeof route === "string" ? { "content-type": "text/html; charset=utf-8" } : (route.headers ?? {});
      const source = typeof route === "string" ? route : route.body;
      if (typeof source !== "string" || !headers["content-type"]?.startsWith("text/html")) return [path, route];
      const html = source
        .replace("<title>", `<title>${nul}`)
        .replace("<main>", `<main data-note="a${nul}b">`)
        .replaceAll("</p>", `${nul}</p>`)
        // First in <head>: the company's name comes from the first Organization.
        .replace("<head>", `<head>${jsonLd}`);
      return [path, { ...(typeof route === "string" ? {} : route), headers, body: Buffer.from(html, "utf8") }];
    }),
  );
}

let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let owner: Caller;
let other: Caller;

beforeAll(async () => {
  service = await startScoringApp({
    extraSites: { "nul.test": variant(leader.pages, true), "clean.test": variant(leader.pages, false) },
  });
  api = apiClient(service);
  owner = await signIn(service, "owner@nul.test");
  // Free holds one product per account: each site is scored by an account of its own.
  other = await signIn(service, "owner@clean.test");
});
afterAll(() => service?.close());

const score = async (host: string, caller: Caller) => {
  const response = await api("/api/score/product", {
    method: "POST",
    cookie: caller.cookie,
    body: { url: service.siteUrl(host) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("a crawled page whose text holds characters Postgres cannot store", () => {
  it("is scored and stored like the same page without them", async () => {
    const page = Buffer.from((variant(leader.pages, true)["/"] as { body: Buffer }).body);
    expect(page.includes(0)).toBe(true); // the site really serves NUL bytes

    const dirty = await score("nul.test", owner);
    expect(dirty.status).toBe(200);
    const clean = await score("clean.test", other);
    expect(clean.status).toBe(200);

    expect(dirty.body).toMatchObject({ totalScore: clean.body.totalScore, stageName: clean.body.stageName });
    const text = JSON.stringify(dirty.body);
    expect(text).not.toContain("\\u0000");
    expect(text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);

    const [row] = (await service.app.database.dataSource.query(
      `SELECT "company_name", "total_score" FROM "score_results" WHERE "id" = $1`,
      [dirty.body.id],
    )) as Array<{ company_name: string; total_score: number }>;
    expect(row).toMatchObject({ company_name: "Stackform", total_score: clean.body.totalScore });
    expect(clean.body.companyName).toBe("Stackform");
  });
});
