import { describe, expect, it } from "vitest";
import { pricingPackaging } from "../../../src/modules/scoring/rules/pricing-packaging.js";
import {
  aiCapabilityDepth,
  developerPlatform,
  experienceDesign,
  integrationEcosystem,
  onboardingActivation,
} from "../../../src/modules/scoring/rules/product-experience.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Misreadings the framework 2.5.0 audit found on the calibration corpus: each case is the general
 * shape of what a real site showed, and a case showing the right reading still holds.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });
const links = (path: string, namedLinks: ReadonlyArray<{ href: string; text: string }>): PageSpec => ({
  path,
  namedLinks,
});
const LINKED = "an integrations page linked (not crawled)";

describe("integration_ecosystem: only the site's own integrations (framework 2.5.0)", () => {
  it("an app-store listing is not an integrations directory", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      links("/download", [
        { href: "https://play.google.com/store/apps/details?id=example.acme", text: "Get it on Google Play" },
      ]),
    ]);
    expect(integrationEcosystem(facts).raised).not.toContain(LINKED);
  });

  it("someone else's marketplace home is neither a directory nor a listing; a listing naming the product is", () => {
    const home = integrationEcosystem(
      syntheticFacts([
        ...BARE_SITE,
        links("/start", [{ href: "https://workspace.google.com/marketplace", text: "Google Workspace Marketplace" }]),
      ]),
    );
    expect(home.raised).not.toContain(LINKED);
    expect(home.lowered).toContain("no marketplace or app-store listings");
    const listing = integrationEcosystem(
      syntheticFacts([
        ...BARE_SITE,
        links("/start", [{ href: "https://workspace.google.com/marketplace/app/acme/12345", text: "Install" }]),
      ]),
    );
    expect(listing.raised).toContain("1 marketplace or app-store listing");
  });

  it("a signed-in settings page is not a directory; the public one on the site's domain is", () => {
    const settings = integrationEcosystem(
      syntheticFacts([
        ...BARE_SITE,
        links("/docs", [{ href: "https://app.acme.example/settings/integrations", text: "Integrations page" }]),
      ]),
    );
    expect(settings.raised).not.toContain(LINKED);
    const own = integrationEcosystem(
      syntheticFacts([
        ...BARE_SITE,
        links("/docs", [{ href: "https://acme.example/integrations", text: "Integrations" }]),
      ]),
    );
    expect(own.raised).toContain(LINKED);
  });

  it("a partners page listing resellers is not a directory; one about integrating is", () => {
    const resellers = integrationEcosystem(
      syntheticFacts([...BARE_SITE, page("/partners", "Partners\nJapan\nMacro Networks\nSecure Co\nASEAN\nNetpole")]),
    );
    expect(resellers.raised.some((fact) => fact.startsWith("an integrations directory"))).toBe(false);
    const integrators = integrationEcosystem(
      syntheticFacts([...BARE_SITE, page("/partners", "Technology partners integrate their products with Acme.")]),
    );
    expect(integrators.raised).toContain("an integrations directory");
  });

  it("the company's own /apps/<module> pages are not integration pages; /apps/<tool> ones are", () => {
    const modules = integrationEcosystem(
      syntheticFacts([
        ...BARE_SITE,
        page("/partners", "Technology partners integrate their products with Acme."),
        links("/", [
          { href: "/apps/patch-management", text: "Patch Management" },
          { href: "/apps/policy-compliance", text: "Policy Compliance" },
          { href: "/apps/slack", text: "Slack" },
          { href: "/integrations/jira", text: "Jira" },
        ]),
      ]),
    );
    expect(modules.raised).toContain("an integrations directory linking 2 integration pages");
  });

  it("a blog category named integrations is not a directory", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      page("/categories/hubspot-integrations", "How to Integrate Your HubSpot with other CMSs", "Hubspot Integrations"),
    ]);
    expect(integrationEcosystem(facts).raised.some((fact) => fact.startsWith("an integrations directory"))).toBe(false);
  });
});

describe("developer_platform (framework 2.5.0)", () => {
  it("a host name ending in .net is not a .NET SDK; C# or .NET is", () => {
    const host = developerPlatform(
      syntheticFacts([
        ...BARE_SITE,
        page(
          "/docs/sdks",
          "Our SDKs: npm install acme. Load it from https://d2969mkc0xw38n.cloudfront.net/acme.js",
          "SDKs",
        ),
      ]),
    );
    expect([...host.raised, ...host.lowered]).toContain("SDKs for JavaScript/Node");
    const dotnet = developerPlatform(
      syntheticFacts([...BARE_SITE, page("/docs/sdks", "Our SDKs for .NET and C# are on NuGet.", "SDKs")]),
    );
    expect([...dotnet.raised, ...dotnet.lowered]).toContain("SDKs for .NET");
  });

  it("links to the site's own API guides and Swagger pages show a reference; someone else's do not", () => {
    const own = developerPlatform(
      syntheticFacts([
        ...BARE_SITE,
        links("/documentation", [
          { href: "/docs/acme-api-quick-reference.pdf", text: "API Quick Reference Guide" },
          { href: "https://gateway.acme.example/apidocs/v1", text: "SWAGGER" },
        ]),
      ]),
    );
    expect(own.raised).toContain("an API reference linked (not crawled)");
    expect(own.raised).toContain("OpenAPI spec");
    const other = developerPlatform(
      syntheticFacts([...BARE_SITE, links("/", [{ href: "https://stripe.com/docs/api", text: "Stripe API docs" }])]),
    );
    expect(other.raised).not.toContain("an API reference linked (not crawled)");
  });

  it("reads a command-line deploy as a CLI", () => {
    const cli = developerPlatform(
      syntheticFacts([{ path: "/", title: "Acme", text: "Type acme deploy at the command prompt to ship your app." }]),
    );
    expect(cli.raised).toContain("CLI");
    expect(developerPlatform(syntheticFacts(BARE_SITE)).raised).not.toContain("CLI");
  });
});

describe("onboarding_activation (framework 2.5.0)", () => {
  it("a 'Sign Up for Free' button to the product's subdomain is a sign-up, wherever it is", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      links("/defender", [{ href: "https://defender.acme.example/", text: "Sign Up for Free" }]),
    ]);
    expect(onboardingActivation(facts).raised).toContain("self-serve sign-up");
    const elsewhere = syntheticFacts([
      ...BARE_SITE,
      links("/defender", [{ href: "https://other.example/", text: "Sign Up for Free" }]),
    ]);
    expect(onboardingActivation(elsewhere).raised).not.toContain("self-serve sign-up");
  });

  it("a 'Book a Demo' button on a product page is a sales path", () => {
    // As the scorer reads it: onboarding does not quote product pages' sentences (evidence-relevance OFF_TOPIC).
    const read = (text: string) =>
      onboardingActivation(
        syntheticFacts([...BARE_SITE, page("/products/kronos", text)]).about("onboarding_activation"),
      );
    expect(read("Kronos\nBook a Demo\nKronos helps radiologists.").lowered).toContain(
      "only a demo request or sales contact, no self-serve sign-up",
    );
    expect(read("Customers book a demo call with their account manager each quarter.").lowered).toContain(
      "no sign-up, trial or demo path",
    );
  });

  it("'/start' deep in a path is not a sign-up; '/start' at the root is", () => {
    const deep = syntheticFacts([
      ...BARE_SITE,
      links("/", [{ href: "/cardano-stake-pool/start", text: "More Details" }]),
    ]);
    expect(onboardingActivation(deep).raised).not.toContain("self-serve sign-up");
    const root = syntheticFacts([...BARE_SITE, links("/", [{ href: "/start", text: "Open an account" }])]);
    expect(onboardingActivation(root).raised).toContain("self-serve sign-up");
  });

  it("'just getting started' and 'getting started?' are not a guide; 'read Getting Started' is", () => {
    const idiom = syntheticFacts([
      ...BARE_SITE,
      page("/contribute", "Just getting started? Starter issues are bite-sized bugs."),
      page("/about", "We are only getting started."),
    ]);
    expect(onboardingActivation(idiom).lowered).toContain("no quickstart or getting-started guide");
    const guide = syntheticFacts([...BARE_SITE, page("/documentation", "New users should read Getting Started.")]);
    expect(onboardingActivation(guide).raised.some((fact) => fact.startsWith("a quickstart"))).toBe(true);
  });
});

describe("experience_design (framework 2.5.0)", () => {
  it("a YouTube channel is not a product video; a watch link is", () => {
    const channel = experienceDesign(
      syntheticFacts([{ path: "/", title: "Acme", externalLinks: ["https://www.youtube.com/channel/UCp-grc_Okws"] }]),
    );
    expect(channel.lowered).toContain("no screenshots, product tour or demo video");
    const video = experienceDesign(
      syntheticFacts([
        { path: "/", title: "Acme", externalLinks: ["https://youtu.be/k4CMOk5lpVw", "https://vimeo.com/908849797"] },
      ]),
    );
    expect(video.raised).toContain("shows the product (2 screenshots, tours or videos)");
  });

  it("a Screenshots page or section shows the product; a page about screenshots in general does not", () => {
    const gallery = experienceDesign(
      syntheticFacts([
        ...BARE_SITE,
        { path: "/screenshots.html", title: "Acme", headings: ["Screenshots", "Screencasts"], text: "Screenshots" },
      ]),
    );
    expect(gallery.raised).toContain("shows the product (1 screenshot, tour or video)");
    const none = experienceDesign(syntheticFacts([...BARE_SITE, page("/help", "How to take screenshots on a Mac.")]));
    expect(none.lowered).toContain("no screenshots, product tour or demo video");
  });
});

describe("pricing_packaging (framework 2.5.0)", () => {
  const pricing = (spec: Omit<PageSpec, "path">): PageSpec => ({ path: "/pricing", title: "Pricing", ...spec });

  it("a tier priced $0 or named Free is a free plan", () => {
    const zero = pricingPackaging(
      syntheticFacts([
        ...BARE_SITE,
        pricing({ headings: ["Free $0", "Unlimited $5/mo"], prices: [{ amount: 0, text: "Free $0" }, { amount: 5 }] }),
      ]),
    );
    expect(zero.raised).toContain("a free plan or trial");
    const paid = pricingPackaging(
      syntheticFacts([...BARE_SITE, pricing({ headings: ["Pro"], prices: [{ amount: 5, text: "Pro $5" }] })]),
    );
    expect(paid.lowered).toContain("no free plan or trial mentioned");
  });

  it("counts plan names on lines of their own followed by a price, not badges or buttons", () => {
    const text = [
      "Starter",
      "For startups and small teams building goals.",
      "$ 25 /Mo",
      "Most Popular",
      "Growth",
      "For growing businesses who want more.",
      "$ 149 /Mo",
      "Get Started",
      "Company",
      "$ 599 /Mo",
    ].join("\n");
    const tiers = pricingPackaging(syntheticFacts([...BARE_SITE, pricing({ text, prices: [{ amount: 25 }] })]));
    expect(tiers.raised).toContain("3 tiers on the pricing page");
  });

  it("a credit card is not a usage unit; a space before '/Mo' does not hide one", () => {
    const card = pricingPackaging(
      syntheticFacts([...BARE_SITE, pricing({ text: "Credit Card or PayPal payment", prices: [{ amount: 25 }] })]),
    );
    expect(card.lowered).toContain("no usage unit stated");
    const spaced = pricingPackaging(
      syntheticFacts([...BARE_SITE, pricing({ text: "Starter costs $ 25 /Mo", prices: [{ amount: 25 }] })]),
    );
    expect(spaced.raised).toContain("clear usage units");
  });
});

describe("ai_capability_depth (framework 2.5.0)", () => {
  it("'100% accurate' is a promise, not an evaluation figure; '94% accuracy' is", () => {
    const site = (claim: string) =>
      syntheticFacts([{ path: "/", title: "Acme", text: `Our AI assistant generates radiology reports. ${claim}` }]);
    expect(
      aiCapabilityDepth(site("Result? 100% accurate, clinically validated reports every time!")).lowered,
    ).toContain("no accuracy or evaluation figures");
    expect(aiCapabilityDepth(site("The model reaches 94% accuracy on our test set.")).raised).toContain(
      "1 accuracy or evaluation figure",
    );
  });
});

describe("ai_capability_depth: transcription by people (framework 2.5.0)", () => {
  it("'document transcription' as a crowd task is not an AI feature; 'AI transcription' and speech-to-text are", () => {
    const kinds = (text: string) =>
      (({ raised, lowered }) => [...raised, ...lowered].join(" "))(
        aiCapabilityDepth(syntheticFacts([{ path: "/", title: "Acme", text }])),
      );
    expect(kinds("Workers earn by completing tasks such as document transcription and image tagging.")).toMatch(
      /no concrete AI feature named/,
    );
    expect(kinds("Our AI transcription turns every call into searchable notes.")).toMatch(/speech/);
    expect(kinds("Real-time speech-to-text for every meeting.")).toMatch(/speech/);
  });
});
