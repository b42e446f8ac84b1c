import { describe, expect, it } from "vitest";
import type { OutboundLink } from "../../../src/modules/crawl/crawl.types.js";
import {
  aiCapabilityDepth,
  developerPlatform,
  experienceDesign,
  integrationEcosystem,
  onboardingActivation,
  productExperienceRules,
} from "../../../src/modules/scoring/rules/product-experience.js";
import { at, expectRaises } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const HOME = at("/");
type Options = { outbound?: readonly OutboundLink[] };

describe("product experience rules", () => {
  it("covers the pillar's five dimensions", () => {
    expect(Object.keys(productExperienceRules).sort()).toEqual([
      "ai_capability_depth",
      "developer_platform",
      "experience_design",
      "integration_ecosystem",
      "onboarding_activation",
    ]);
  });
});

describe("experience_design", () => {
  it.each<[string, PageSpec[], string]>([
    ["a demo video mentioned", [{ path: "/", text: "Watch the demo video to see Acme in action." }], HOME],
    [
      "a video link",
      [{ path: "/", externalLinks: ["https://www.youtube.com/watch?v=abc"] }],
      "https://www.youtube.com/watch?v=abc",
    ],
    [
      "an accessibility statement",
      [{ path: "/" }, { path: "/accessibility", text: "Acme conforms to WCAG 2.2 AA." }],
      at("/accessibility"),
    ],
    [
      "a design system",
      [{ path: "/", text: "Built on our design system, with dark mode and keyboard shortcuts." }],
      HOME,
    ],
    [
      "distinct titles and shared navigation",
      [
        { path: "/", title: "Acme", boilerplate: ["Home Pricing"] },
        { path: "/about", title: "About Acme", boilerplate: ["Home Pricing"] },
      ],
      HOME,
    ],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(experienceDesign, pages, url);
  });

  it("ranks a named accessibility standard above a passing mention", () => {
    const standard = experienceDesign(syntheticFacts([{ path: "/", text: "Acme conforms to WCAG 2.2 AA." }]));
    const mention = experienceDesign(syntheticFacts([{ path: "/", text: "Works with screen readers." }]));
    expect(standard.raw).toBeGreaterThan(mention.raw);
  });

  it("scores duplicated titles without navigation below distinct titles with navigation", () => {
    const tidy = experienceDesign(
      syntheticFacts([
        { path: "/", title: "Acme", boilerplate: ["nav"] },
        { path: "/about", title: "About", boilerplate: ["nav"] },
      ]),
    );
    const sloppy = experienceDesign(
      syntheticFacts([
        { path: "/", title: "Acme" },
        { path: "/about", title: "Acme" },
      ]),
    );
    expect(tidy.raw).toBeGreaterThan(sloppy.raw);
    expect(tidy.raised).toContain("distinct titles and shared navigation");
    expect(sloppy.lowered).toContain("pages share titles and lack navigation");
  });
});

describe("onboarding_activation", () => {
  it.each<[string, PageSpec[], string]>([
    ["a free trial", [{ path: "/", text: "Start your free trial. No credit card required." }], HOME],
    ["a sign-up link", [{ path: "/", links: ["/signup"] }], at("/signup")],
    [
      "a quickstart",
      [{ path: "/" }, { path: "/docs/quickstart", text: "Quickstart: get up and running in 5 minutes." }],
      at("/docs/quickstart"),
    ],
    [
      "templates and an interactive demo",
      [{ path: "/", text: "Start from 50 templates or take the interactive demo." }],
      HOME,
    ],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(onboardingActivation, pages, url);
  });

  it("ranks a free way in above sign-up, and sign-up above a demo request only", () => {
    const score = (text: string) => onboardingActivation(syntheticFacts([{ path: "/", text }])).raw;
    expect(score("Try it free, no credit card.")).toBeGreaterThan(score("Sign up today."));
    expect(score("Sign up today.")).toBeGreaterThan(score("Book a demo with our team."));
    const salesOnly = onboardingActivation(syntheticFacts([{ path: "/", text: "Book a demo with our team." }]));
    expect(salesOnly.lowered).toContain("only a demo request or sales contact, no self-serve sign-up");
  });
});

describe("ai_capability_depth", () => {
  it.each<[string, PageSpec[], string]>([
    [
      "concrete AI features",
      [{ path: "/", text: "Our AI agents resolve tickets and summarize every conversation." }],
      HOME,
    ],
    ["retrieval named", [{ path: "/", text: "Semantic search over your knowledge base with embeddings." }], HOME],
    ["accuracy figures", [{ path: "/", text: "Our AI answers with 94% accuracy on real support questions." }], HOME],
    [
      "AI documented for developers",
      [{ path: "/" }, { path: "/docs/ai", text: "Call the completions endpoint with your prompt." }],
      at("/docs/ai"),
    ],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(aiCapabilityDepth, pages, url);
  });

  it("rises with the number of distinct AI capabilities", () => {
    const one = aiCapabilityDepth(syntheticFacts([{ path: "/", text: "Our AI agents resolve tickets." }]));
    const many = aiCapabilityDepth(
      syntheticFacts([
        {
          path: "/",
          text: "AI agents resolve tickets. AI summarizes calls. The AI classifies intent. Semantic search with embeddings. Speech-to-text transcription.",
        },
      ]),
    );
    expect(many.raw).toBeGreaterThan(one.raw + 20);
  });

  it("does not read ambiguous words or accuracy claims as AI on a site that never mentions AI", () => {
    const invoices = aiCapabilityDepth(
      syntheticFacts([
        { path: "/", text: "Generate invoices and extract reports in one click. Bookkeeping with 99% accuracy." },
      ]),
    );
    expect(invoices.coverage).toBe(0);
  });

  it("penalises AI buzzwords with nothing concrete behind them", () => {
    const buzz = aiCapabilityDepth(syntheticFacts([{ path: "/", text: "The AI-powered platform for modern teams." }]));
    const concrete = aiCapabilityDepth(
      syntheticFacts([
        { path: "/", text: "The AI-powered platform for modern teams. Our AI drafts replies and summarizes threads." },
      ]),
    );
    expect(buzz.coverage).toBeGreaterThan(0);
    expect(buzz.raw).toBe(0);
    expect(buzz.lowered).toContain('AI claims ("AI-powered") with no concrete AI feature behind them');
    expect(buzz.evidence[0]?.url).toBe(HOME);
    expect(concrete.raw).toBeGreaterThan(buzz.raw);
    expect(concrete.lowered).not.toContain('AI claims ("AI-powered") with no concrete AI feature behind them');
  });
});

describe("integration_ecosystem", () => {
  const directory = (text: string): PageSpec[] => [
    { path: "/" },
    { path: "/integrations", title: "Integrations", text },
  ];

  it.each<[string, PageSpec[], string, Options?]>([
    ["an integrations directory", directory("Connect your tools."), at("/integrations")],
    ["an integrations page linked", [{ path: "/", links: ["/integrations"] }], at("/integrations")],
    ["named tools", [{ path: "/", text: "Acme integrates with Slack, GitHub and Jira." }], HOME],
    [
      "a marketplace listing",
      [{ path: "/", externalLinks: ["https://appexchange.salesforce.com/listing/acme"] }],
      "https://appexchange.salesforce.com/listing/acme",
    ],
    [
      "a browser-extension store listing",
      [{ path: "/" }],
      HOME,
      { outbound: [{ url: "https://chromewebstore.google.com/detail/acme/abc", kind: "app_store", foundOn: HOME }] },
    ],
    [
      "a Zapier connector",
      [{ path: "/", externalLinks: ["https://zapier.com/apps/acme/integrations"] }],
      "https://zapier.com/apps/acme/integrations",
    ],
  ])("rises with %s", (_, pages, url, options) => {
    expectRaises(integrationEcosystem, pages, url, options);
  });

  it("rises with the number of well-known tools named", () => {
    const few = integrationEcosystem(syntheticFacts(directory("Slack and GitHub.")));
    const many = integrationEcosystem(
      syntheticFacts(
        directory(
          "Slack, GitHub, Jira, Salesforce, HubSpot, Zendesk, Google Sheets, Microsoft Teams, Notion, Stripe, Shopify, Snowflake, Okta, Datadog.",
        ),
      ),
    );
    expect(many.raw).toBeGreaterThan(few.raw + 15);
    expect(many.evidence.some((item) => item.text.startsWith("integrations: 14 well-known tools named"))).toBe(true);
  });

  it("does not count customer logos as integrations", () => {
    const logos = integrationEcosystem(syntheticFacts([{ path: "/", text: "Trusted by Slack and Shopify." }]));
    expect(logos.coverage).toBe(0);
  });
});

describe("developer_platform", () => {
  const docs = (path: string, text: string, headings: string[] = []): PageSpec[] => [
    { path: "/" },
    { path, text, headings },
  ];

  it.each<[string, PageSpec[], string]>([
    ["an API reference", docs("/api", "GET /v1/tickets lists tickets."), at("/api")],
    ["an API mentioned", [{ path: "/", text: "Everything is available through our REST API." }], HOME],
    ["SDKs", docs("/docs/sdks", "Official SDKs for Python, Node.js, Go and Ruby."), at("/docs/sdks")],
    ["webhooks", docs("/docs/webhooks", "Subscribe to webhooks for every ticket event."), at("/docs/webhooks")],
    ["an OpenAPI spec", docs("/docs/spec", "Download the OpenAPI specification."), at("/docs/spec")],
    ["a CLI", docs("/docs/cli", "Install the Acme CLI to deploy from your terminal."), at("/docs/cli")],
    ["a sandbox with test keys", docs("/docs/testing", "Use test keys in the sandbox."), at("/docs/testing")],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(developerPlatform, pages, url);
  });

  it("reads languages from an SDK page listed one per line, and rises with more of them", () => {
    const two = developerPlatform(syntheticFacts(docs("/docs/sdks", "Python\nNode.js", ["SDKs"])));
    const six = developerPlatform(
      syntheticFacts(docs("/docs/sdks", "Python\nNode.js\nGolang\nRuby\nJava\nPHP", ["SDKs"])),
    );
    expect(two.raised).toContain("SDKs for Python, JavaScript/Node");
    expect(six.raw).toBeGreaterThan(two.raw + 8);
  });

  it("ranks a crawled API reference above an API that is only mentioned", () => {
    const reference = developerPlatform(syntheticFacts(docs("/api", "GET /v1/tickets")));
    const mentioned = developerPlatform(syntheticFacts([{ path: "/", text: "We have a public API." }]));
    expect(reference.raw).toBeGreaterThan(mentioned.raw);
  });
});
