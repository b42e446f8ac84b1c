import { describe, expect, it } from "vitest";
import type { OutboundLink } from "../../../src/modules/crawl/crawl.types.js";
import {
  architectureSystems,
  deliveryVelocity,
  documentationQuality,
  engineeringDeliveryRules,
  reliabilityOperations,
} from "../../../src/modules/scoring/rules/engineering-delivery.js";
import { at, expectRaises } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const HOME = at("/");
type Options = { outbound?: readonly OutboundLink[]; crawledAt?: string };

describe("engineering delivery rules", () => {
  it("covers the pillar's four dimensions", () => {
    expect(Object.keys(engineeringDeliveryRules).sort()).toEqual([
      "architecture_systems",
      "delivery_velocity",
      "documentation_quality",
      "reliability_operations",
    ]);
  });
});

describe("delivery_velocity", () => {
  const changelog = (dates: string[], options: Options = {}) =>
    deliveryVelocity(syntheticFacts([{ path: "/" }, { path: "/changelog", title: "Changelog", dates }], options));
  const october = [
    "2026-10-02",
    "2026-10-05",
    "2026-10-08",
    "2026-10-12",
    "2026-10-15",
    "2026-10-18",
    "2026-10-21",
    "2026-10-24",
    "2026-10-27",
    "2026-10-30",
  ];
  // The same cadence from a changelog kept for three years (framework 2.5.0 reads its history too).
  const kept = [...october, "2025-06-10", "2024-11-01"];

  it("judges recency against the crawl time: ten entries in October 2026 far above a newest entry in 2024", () => {
    const fresh = changelog(kept);
    const stale = changelog(["2024-03-01", "2024-02-01", "2024-01-10"]);
    expect(fresh.raw).toBeGreaterThan(75);
    expect(stale.raw).toBeLessThan(25);
    expect(fresh.raw).toBeGreaterThan(stale.raw + 50);
    expect(fresh.evidence).toContainEqual({ url: at("/changelog"), text: "changelog: 10 entries in the last 90 days" });
    expect(stale.lowered).toContain("newest changelog entry is over a year old (2024-03-01)");
    expect(stale.lowered).toContain("changelog: no entries in the last 90 days");
  });

  it("weighs how long the changelog has been kept: three years of entries above a first month's (framework 2.5.0)", () => {
    const launch = changelog(october);
    const years = changelog(kept);
    expect(years.raw).toBeGreaterThan(launch.raw + 10);
    expect(launch.lowered).toContain("changelog: 1 month of dated entries (2026-10-02 to 2026-10-30)");
    expect(years.raised).toContain("changelog: 24 months of dated entries (2024-11-01 to 2026-10-30)");
  });

  it("reads the same changelog as stale when the crawl happens two years later", () => {
    const then = changelog(october);
    const later = changelog(october, { crawledAt: "2028-11-01T00:00:00.000Z" });
    expect(later.raw).toBeLessThan(then.raw - 40);
  });

  it("rises with cadence at equal recency, and with recency at equal cadence", () => {
    expect(changelog(october).raw).toBeGreaterThan(changelog(["2026-10-30", "2026-09-15"]).raw);
    expect(changelog(["2026-10-30", "2026-09-15"]).raw).toBeGreaterThan(changelog(["2026-09-20", "2026-08-15"]).raw);
  });

  it("ignores dates after the crawl", () => {
    expect(changelog(["2027-05-01", "2024-01-01"]).raw).toBe(changelog(["2024-01-01"]).raw);
  });

  it.each<[string, PageSpec[], string]>([
    ["a changelog linked but not crawled", [{ path: "/", links: ["/changelog"] }], at("/changelog")],
    ["a changelog without dates", [{ path: "/" }, { path: "/changelog", title: "Changelog" }], at("/changelog")],
    [
      "a dated changelog",
      [{ path: "/" }, { path: "/releases", title: "Releases", dates: ["2026-10-20"] }],
      at("/releases"),
    ],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(deliveryVelocity, pages, url);
  });
});

describe("architecture_systems", () => {
  it.each<[string, PageSpec[], string, Options?]>([
    [
      "an architecture write-up",
      [{ path: "/" }, { path: "/blog/scaling", text: "How we scaled our ingestion pipeline." }],
      at("/blog/scaling"),
    ],
    ["regions and scalability", [{ path: "/", text: "Deployed in 12 regions with multi-region failover." }], HOME],
    ["latency figures", [{ path: "/", text: "p99 latency under 50 ms at 100,000 requests per second." }], HOME],
    [
      "open-source components",
      [{ path: "/" }],
      HOME,
      { outbound: [{ url: "https://github.com/acme/engine", kind: "github", foundOn: HOME }] },
    ],
    ["the stack named", [{ path: "/", text: "Runs on Kubernetes with Kafka and ClickHouse." }], HOME],
  ])("rises with %s", (_, pages, url, options) => {
    expectRaises(architectureSystems, pages, url, options);
  });

  it("rises with more published performance figures", () => {
    const one = architectureSystems(syntheticFacts([{ path: "/", text: "Median latency is 20 ms." }]));
    const four = architectureSystems(
      syntheticFacts([
        {
          path: "/",
          text: "Median latency is 20 ms. The p99 stays below 80 ms. We serve 2 billion events per day. Writes take 5 milliseconds.",
        },
      ]),
    );
    expect(four.raw).toBeGreaterThan(one.raw);
  });
});

describe("reliability_operations", () => {
  const statusLink: OutboundLink = { url: "https://status.acme.example/", kind: "status_page", foundOn: HOME };

  it.each<[string, PageSpec[], string, Options?]>([
    ["a status page link", [{ path: "/" }], HOME, { outbound: [statusLink] }],
    ["a crawled status page", [{ path: "/" }, { path: "/status", title: "System status" }], at("/status")],
    ["an uptime SLA", [{ path: "/" }, { path: "/sla", text: "We guarantee 99.95% uptime." }], at("/sla")],
    [
      "post-mortems",
      [{ path: "/" }, { path: "/blog/outage", text: "Our post-mortem of the March outage." }],
      at("/blog/outage"),
    ],
    [
      "dated incidents on the status page",
      [{ path: "/" }, { path: "/status", dates: ["2026-10-01", "2026-09-12", "2026-08-03"] }],
      at("/status"),
    ],
    [
      "operational practices",
      [{ path: "/", text: "Daily backups, automatic failover and a tested disaster recovery plan." }],
      HOME,
    ],
  ])("rises with %s", (_, pages, url, options) => {
    expectRaises(reliabilityOperations, pages, url, options);
  });

  it("values more nines", () => {
    const uptime = (figure: string) =>
      reliabilityOperations(syntheticFacts([{ path: "/", text: `${figure} uptime SLA.` }]));
    expect(uptime("99.99%").raw).toBeGreaterThan(uptime("99.9%").raw);
    expect(uptime("99.9%").raw).toBeGreaterThan(uptime("99.5%").raw);
    expect(uptime("99.9%").raised).toContain("uptime stated: 99.9%");
  });
});

describe("documentation_quality", () => {
  const docsSite = (count: number, text = "Reference material."): PageSpec[] => [
    { path: "/" },
    ...Array.from({ length: count }, (_, i) => ({ path: `/docs/page-${i}`, title: `Docs ${i}`, text })),
  ];

  it.each<[string, PageSpec[], string, Options?]>([
    ["docs pages", docsSite(3), at("/docs/page-0")],
    ["docs linked but not crawled", [{ path: "/", links: ["/docs"] }], at("/docs")],
    [
      "docs on a docs host",
      [{ path: "/" }],
      HOME,
      { outbound: [{ url: "https://acme.readme.io/", kind: "docs_host", foundOn: HOME }] },
    ],
    ["an API reference", [{ path: "/" }, { path: "/api", title: "API reference" }], at("/api")],
    [
      "guides and tutorials",
      [{ path: "/" }, { path: "/docs/guides", text: "Step-by-step tutorials for every use case." }],
      at("/docs/guides"),
    ],
    ["docs tooling", [{ path: "/" }, { path: "/docs", text: "Was this page helpful?" }], at("/docs")],
    ["code samples", [{ path: "/" }, { path: "/docs", text: "Run npm install @acme/sdk to begin." }], at("/docs")],
    ["recent update dates", [{ path: "/" }, { path: "/docs", dates: ["2026-10-20"] }], at("/docs")],
  ])("rises with %s", (_, pages, url, options) => {
    expectRaises(documentationQuality, pages, url, options);
  });

  it("rises with the breadth of the docs", () => {
    expect(documentationQuality(syntheticFacts(docsSite(10))).raw).toBeGreaterThan(
      documentationQuality(syntheticFacts(docsSite(1))).raw + 15,
    );
  });

  it("rises with fresher docs", () => {
    const dated = (date: string) =>
      documentationQuality(syntheticFacts([{ path: "/" }, { path: "/docs", dates: [date] }]));
    expect(dated("2026-10-20").raw).toBeGreaterThan(dated("2024-01-01").raw);
  });
});
