import { describe, expect, it } from "vitest";
import { detectAntiPatterns } from "../../../src/modules/scoring/anti-patterns.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const filler = "Acme helps finance teams close the books faster. ".repeat(6);
const home: PageSpec = { path: "/", title: "Acme", text: filler };
const detect = (pages: PageSpec[], options: Parameters<typeof syntheticFacts>[1] = {}) =>
  detectAntiPatterns(syntheticFacts(pages, options));

describe("detectAntiPatterns", () => {
  it("finds nothing on a clean site", () => {
    expect(detect([home, { path: "/pricing", title: "Pricing", text: filler, prices: [{ amount: 49 }] }])).toEqual([]);
  });

  it("names a pricing page without prices, not one that shows them or says it is free", () => {
    expect(
      detect([home, { path: "/pricing", title: "Pricing", text: "Contact sales for a quote. " + filler }]),
    ).toEqual([`Pricing page without prices (${SYNTHETIC_ORIGIN}/pricing)`]);
    expect(detect([home, { path: "/pricing", title: "Pricing", text: "Acme is free forever. " + filler }])).toEqual([]);
  });

  it("names a careers page without openings, unless openings are listed or on a job board", () => {
    const careers: PageSpec = { path: "/careers", title: "Careers", text: `No open positions right now. ${filler}` };
    expect(detect([home, careers])).toEqual([`Careers page without openings (${SYNTHETIC_ORIGIN}/careers)`]);
    expect(detect([home, { ...careers, headings: ["Senior Backend Engineer"] }])).toEqual([]);
    expect(detect([home, { ...careers, externalLinks: ["https://boards.greenhouse.io/acme"] }])).toEqual([]);
  });

  it("names placeholder text: lorem ipsum, a TODO marker, a template line, a coming-soon page", () => {
    expect(detect([home, { path: "/features", text: `Lorem ipsum dolor sit amet. ${filler}` }])).toEqual([
      `Placeholder text "Lorem ipsum" on ${SYNTHETIC_ORIGIN}/features`,
    ]);
    expect(detect([home, { path: "/features", headings: ["TODO: write this section"], text: filler }])).toEqual([
      `Placeholder text "TODO" on ${SYNTHETIC_ORIGIN}/features`,
    ]);
    expect(detect([home, { path: "/features", text: `Your headline goes here. ${filler}` }])).toEqual([
      `Placeholder text "Your headline goes here" on ${SYNTHETIC_ORIGIN}/features`,
    ]);
    expect(detect([home, { path: "/mobile", title: "Mobile app", text: "Coming soon!" }])).toEqual([
      `Page is only a "Coming soon" placeholder (${SYNTHETIC_ORIGIN}/mobile)`,
    ]);
  });

  it("does not call a full page with a teaser, or a to-do app, a placeholder", () => {
    expect(detect([home, { path: "/features", text: `New reports are coming soon. ${filler}` }])).toEqual([]);
    expect(detect([{ ...home, text: `The todo list your team will love. ${filler}` }])).toEqual([]);
  });

  it("names a stale copyright year (two years or more) but not last year's", () => {
    expect(detect([{ ...home, boilerplate: ["© 2024 Acme Inc."] }])).toEqual([
      `Stale copyright year: © 2024 on the home page (${SYNTHETIC_ORIGIN}/), 2 years before the crawl`,
    ]);
    expect(detect([{ ...home, boilerplate: ["© 2025 Acme Inc."] }])).toEqual([]);
  });

  it("names a changelog or blog whose newest entry is over two years old", () => {
    expect(
      detect([
        home,
        { path: "/changelog", text: filler, dates: ["2023-06-01", "2024-01-15"] },
        { path: "/blog", text: filler, dates: ["2026-10-01"] },
      ]),
    ).toEqual([
      `Newest changelog entry is dated 2024-01-15, over 2 years before the crawl (${SYNTHETIC_ORIGIN}/changelog)`,
    ]);
  });

  it("names a stale blog known only from dated post addresses linked from a page that is not a blog page", () => {
    // No blog page was read; the home page links the newest post, /news/2018/03/02/launch.
    expect(detect([{ ...home, links: ["/news/2017/05/01/hello", "/news/2018/03/02/launch"] }])).toEqual([
      `Newest blog/news entry is dated 2018-03-02, over 2 years before the crawl (${SYNTHETIC_ORIGIN}/news/2018/03/02/launch)`,
    ]);
  });

  it("names navigation links to crawled pages that are nearly empty, once, and never judges uncrawled pages", () => {
    const pages: PageSpec[] = [
      { ...home, navLinks: ["/", "/solutions", "/team", "/pricing"] },
      { path: "/solutions", text: "Solutions.", navLinks: ["/solutions"] },
      { path: "/team", text: filler },
    ];
    expect(detect(pages)).toEqual([
      `Navigation links to a nearly empty page (${SYNTHETIC_ORIGIN}/solutions, 10 characters of text)`,
    ]);
    // The same thin page linked only from the body is not a navigation problem.
    expect(
      detect([
        { ...home, links: ["/solutions"] },
        { path: "/solutions", text: "Solutions." },
      ]),
    ).toEqual([]);
  });

  it("names claims on the home page that no page supports", () => {
    const claims: PageSpec = {
      ...home,
      text: `Enterprise-grade security for every team. A powerful REST API. ${filler}`,
    };
    expect(detect([claims])).toEqual([
      `Claims "Enterprise-grade" on the home page (${SYNTHETIC_ORIGIN}/) without any security or trust page`,
      `Claims "REST API" on the home page (${SYNTHETIC_ORIGIN}/) without any docs or API reference page`,
    ]);
    expect(detect([{ ...home, text: `We guarantee 99.99% uptime. ${filler}` }])).toEqual([
      `Claims "99.99% uptime" on the home page (${SYNTHETIC_ORIGIN}/) without a status page`,
    ]);
  });

  it("accepts a crawled page, a link to one, or a hosted trust centre as support", () => {
    const claims: PageSpec = { ...home, text: `SOC 2 Type II audited. Build on our API. ${filler}` };
    expect(detect([claims, { path: "/security", text: filler }, { path: "/docs", text: filler }])).toEqual([]);
    expect(detect([{ ...claims, links: ["/trust", "/developers"] }])).toEqual([]);
    expect(
      detect([{ ...claims, links: ["/docs"] }], {
        outbound: [{ url: "https://trust.acme.example/", kind: "trust_center", foundOn: `${SYNTHETIC_ORIGIN}/` }],
      }),
    ).toEqual([]);
  });

  it("lists findings in a fixed order (kind, then page) and is deterministic", () => {
    const pages: PageSpec[] = [
      { ...home, boilerplate: ["© 2020 Acme"], text: `Bank-level security. ${filler}`, navLinks: ["/about"] },
      { path: "/pricing", title: "Pricing", text: "Lorem ipsum." },
      { path: "/about", text: "About." },
    ];
    const first = detect(pages);
    expect(first).toEqual([
      `Pricing page without prices (${SYNTHETIC_ORIGIN}/pricing)`,
      `Placeholder text "Lorem ipsum" on ${SYNTHETIC_ORIGIN}/pricing`,
      `Stale copyright year: © 2020 on the home page (${SYNTHETIC_ORIGIN}/), 6 years before the crawl`,
      `Navigation links to a nearly empty page (${SYNTHETIC_ORIGIN}/about, 6 characters of text)`,
      `Claims "Bank-level" on the home page (${SYNTHETIC_ORIGIN}/) without any security or trust page`,
    ]);
    expect(detect(pages)).toEqual(first);
  });
});
