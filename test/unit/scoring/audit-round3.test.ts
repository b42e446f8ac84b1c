import { describe, expect, it } from "vitest";
import {
  customerSuccess,
  growthDistribution,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import { customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { pricingPackaging } from "../../../src/modules/scoring/rules/pricing-packaging.js";
import { documentationQuality } from "../../../src/modules/scoring/rules/engineering-delivery.js";
import {
  developerPlatform,
  experienceDesign,
  integrationEcosystem,
  onboardingActivation,
} from "../../../src/modules/scoring/rules/product-experience.js";
import { complianceCertifications, enterpriseReadiness } from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Framework 2.7.0: one fact is read the same way by every dimension that reads it (a free tier by pricing and
 * onboarding, an Enterprise plan by pricing and enterprise readiness), and a pricing page's plan-table rows
 * are read although they are short.
 */
const site = (...pages: PageSpec[]) => syntheticFacts([...BARE_SITE, ...pages]);
const all = (assessment: { raised: readonly string[]; lowered: readonly string[] }) =>
  [...assessment.raised, ...assessment.lowered].join(" | ");

const pricing = (text: string, prices: PageSpec["prices"] = []): PageSpec => ({
  path: "/pricing",
  title: "Pricing",
  text,
  prices,
});

describe("one fact, one reading (framework 2.7.0)", () => {
  it("reads a tier priced $0 as a free way in for onboarding as pricing does", () => {
    const facts = site(pricing("Free\n$0\nPro\n$5/mo for unlimited", [{ amount: 0, text: "$0" }, { amount: 5 }]));
    expect(pricingPackaging(facts.about("pricing_packaging")).raised).toContain("a free plan or trial");
    expect(onboardingActivation(facts.about("onboarding_activation")).raised).toContain(
      "self-serve: a free plan or trial",
    );
  });

  it("reads 'a 14-day trial' and 'no credit card required' as a free way in for both", () => {
    for (const sentence of ["Every plan starts with a 14-day trial.", "Signup in seconds – No credit card required"]) {
      const facts = site(pricing(`${sentence}\nPro\n$20 per month`, [{ amount: 20 }]));
      expect(pricingPackaging(facts.about("pricing_packaging")).raised).toContain("a free plan or trial");
      expect(onboardingActivation(facts.about("onboarding_activation")).raised).toContain(
        "self-serve: a free plan or trial",
      );
    }
    // "No credit card information is stored" is about storage, not a way in.
    const stored = site(pricing("No credit card information is stored on our servers.\nPro\n$20 per month"));
    expect(all(onboardingActivation(stored.about("onboarding_activation")))).not.toMatch(/free plan or trial/);
  });

  it("reads the pricing page's plan named Enterprise as an enterprise plan", () => {
    const named = site(
      pricing("Personal - Free\nOrganization - $10 per user, per month\nEnterprise - $50 per user, per month", [
        { amount: 0 },
        { amount: 10 },
        { amount: 50 },
      ]),
    );
    expect(pricingPackaging(named.about("pricing_packaging")).raised).toContain("an enterprise tier or sales path");
    const readiness = enterpriseReadiness(named.about("enterprise_readiness"));
    expect(readiness.raised).toContain("an enterprise plan");
    expect(readiness.evidence.map((item) => item.text).join(" ")).toMatch(/Enterprise - \$50 per user/);

    const column = site(
      pricing("Starter\n$9/mo\nTeam\n$29/mo\nEnterprise\nContact us", [{ amount: 9 }, { amount: 29 }]),
    );
    expect(enterpriseReadiness(column.about("enterprise_readiness")).raised).toContain("an enterprise plan");
    expect(
      enterpriseReadiness(site(pricing("Contact us for a custom plan")).about("enterprise_readiness")).raised,
    ).toContain("an enterprise plan");
  });

  it("does not read 'Enterprise' as a plan off the pricing page", () => {
    const solutions: PageSpec = { path: "/solutions", title: "Solutions", text: "Enterprise\nStartups\nAgencies" };
    expect(all(enterpriseReadiness(site(solutions).about("enterprise_readiness")))).toMatch(/no enterprise plan/);
  });

  it("reads a pricing page's short plan rows, and the same lines elsewhere stay menu entries", () => {
    const rows = "Pro\n$99/mo\nMSA/SLA\nDedicated Infrastructure\nDedicated Account Manager";
    const onPricing = site(pricing(rows, [{ amount: 99 }]));
    const readiness = enterpriseReadiness(onPricing.about("enterprise_readiness"));
    expect(readiness.raised).toEqual(expect.arrayContaining(["an SLA", "self-hosted or dedicated deployment"]));

    const menu = site({ path: "/product", title: "Product", text: "MSA/SLA\nDedicated Infrastructure" });
    const elsewhere = enterpriseReadiness(menu.about("enterprise_readiness"));
    expect(all(elsewhere)).toMatch(/no SLA offered/);
    expect(all(elsewhere)).toMatch(/no self-hosted or dedicated deployment/);
  });

  it("does not take a pricing page's bare 'FAQs' heading for an FAQ, but a sentence pointing to one is", () => {
    const heading = site(pricing("Pro\n$99/mo\nFAQs\nCan I cancel any time?", [{ amount: 99 }]));
    expect(all(customerSuccess(heading.about("customer_success")))).not.toMatch(/an FAQ/);
    const sentence = site(
      pricing("Pro\n$99/mo\nRead the answers in our FAQ before you write to us.", [{ amount: 99 }]),
    );
    expect(all(customerSuccess(sentence.about("customer_success")))).toMatch(/an FAQ, but no help centre/);
  });

  it("does not take the product's own phone app for an integration listing; an extension in a tool's store is one", () => {
    const listed = (url: string) =>
      integrationEcosystem(
        syntheticFacts(BARE_SITE, {
          outbound: [{ url, kind: "app_store", foundOn: `${SYNTHETIC_ORIGIN}/` }],
        }).about("integration_ecosystem"),
      );
    for (const phone of [
      "https://play.google.com/store/apps/details?id=com.acme",
      "https://apps.apple.com/us/app/acme/id123456",
      "https://itunes.apple.com/app/acme/id123456",
    ])
      expect(listed(phone).lowered).toContain("no marketplace or app-store listings");
    expect(listed("https://chromewebstore.google.com/detail/acme/abcdef").raised).toContain(
      "1 marketplace or app-store listing",
    );
  });

  it("reads job ads on an about page as a careers section there, not 'no careers page'", () => {
    const about: PageSpec = {
      path: "/about",
      title: "About us",
      text: [
        "About Us",
        "Join Us",
        "Blockchain Developer (Rust)",
        "Responsibilities:",
        "Develop the network's runtime.",
        "Backend Engineer (Golang)",
        "Responsibilities:",
        "Design the back end of our products.",
      ].join("\n"),
    };
    const talent = talentOrganization(site(about).about("talent_organization"));
    expect(talent.raised).toContain("a careers section on /about");
    expect(talent.lowered).toContain("/about lists 2 openings");
    expect(all(talent)).not.toMatch(/no careers page/);
    // A careers page keeps its own wording.
    const careers = talentOrganization(
      site({
        path: "/careers",
        title: "Careers",
        text: "Current openings\nSoftware Engineer\nFrontend Engineer",
      }).about("talent_organization"),
    );
    expect(careers.raised).toContain("a careers page");
    expect(careers.lowered).toContain("careers page lists 2 openings");
  });

  it("reads 'The world's leading projects trust Acme' over a logo strip as naming customers; a sentence that goes on is not", () => {
    const home = (line: string) =>
      customerProof(
        syntheticFacts([
          { path: "/", title: "Acme", text: `We build things for teams.\n${line}\nIn-depth audits` },
        ]).about("customer_proof"),
      );
    for (const label of [
      "THE WORLD’S LEADING PROJECTS TRUST ACME",
      "Top teams rely on us",
      "Leading companies trust Acme.",
    ])
      expect(home(label).raised).toContain('names customers ("trusted by …")');
    expect(all(home("Leading companies use data to cut costs across their operations."))).toMatch(
      /no logo wall or customer list/,
    );
  });

  it("reads the same sign-up for growth as for onboarding: another domain's 'get-started' docs page is not one", () => {
    const linked = (href: string, text: string) => {
      const facts = syntheticFacts([{ ...BARE_SITE[0]!, namedLinks: [{ href, text }] }]);
      return [
        growthDistribution(facts.about("growth_distribution")),
        onboardingActivation(facts.about("onboarding_activation")),
      ];
    };
    const [growthDocs, onboardingDocs] = linked("https://library.example.org/api/docs/get-started.html", "Go to docs");
    expect(all(growthDocs!)).toMatch(/no self-serve sign-up/);
    expect(all(onboardingDocs!)).not.toMatch(/self-serve sign-up/);
    const [growthOwn, onboardingOwn] = linked("/signup", "Sign up");
    expect(growthOwn!.raised).toContain("a self-serve sign-up");
    expect(onboardingOwn!.raised).toContain("self-serve sign-up");
  });

  it("reads the site's own API reference linked (not crawled) for the docs as for the developer platform", () => {
    const linked = (href: string, text: string) => {
      const facts = site({
        path: "/docs",
        title: "Documentation",
        text: "Product documentation for administrators.",
        namedLinks: [{ href, text }],
      });
      return {
        docs: all(documentationQuality(facts.about("documentation_quality"))),
        platform: all(developerPlatform(facts.about("developer_platform"))),
      };
    };
    const own = linked("/docs/acme-api-quick-reference.pdf", "API Quick Reference Guide");
    expect(own.docs).toMatch(/an API reference linked \(not crawled\)/);
    expect(own.platform).toMatch(/an API reference linked \(not crawled\)/);
    const theirs = linked("https://developer.other.example/api/reference", "Other API reference");
    expect(theirs.docs).toMatch(/no API reference/);
    expect(theirs.platform).not.toMatch(/an API reference linked/);
  });

  it("does not take a product page's 'step-by-step guides' for a quickstart; a getting-started guide is one", () => {
    const product = (text: string) =>
      onboardingActivation(site({ path: "/defender", title: "Defender", text }).about("onboarding_activation"));
    expect(all(product("Use step-by-step guides to implement security best practices across your projects."))).toMatch(
      /no quickstart or getting-started guide/,
    );
    expect(product("Read the getting started guide: deploy your first project in 5 minutes.").raised.join(" ")).toMatch(
      /a quickstart or getting-started guide/,
    );
  });

  it("names a pricing-page turnaround 'SLA 3-5 Working Days' no SLA, and a delegated PCI claim no certification", () => {
    const readiness = (text: string) =>
      all(
        enterpriseReadiness(
          site(pricing(`Pro\n$799/ month\n${text}`, [{ amount: 799 }])).about("enterprise_readiness"),
        ),
      );
    expect(readiness("SLA 3-5 Working Days")).toMatch(/no SLA offered/);
    expect(readiness("MSA/SLA")).not.toMatch(/no SLA offered/);

    const delegated = site({
      path: "/security",
      title: "Security",
      text: "Acme doesn't have to comply with the full PCI spec. However, the whole process is PCI compliant, because Stripe or PayPal cover most of the requirements.",
    });
    expect(all(complianceCertifications(delegated.about("compliance_certifications")))).not.toMatch(
      /regulations?: [^|;]*PCI/,
    );
    const held = site({ path: "/security", title: "Security", text: "Acme is PCI DSS Level 1 compliant." });
    expect(all(complianceCertifications(held.about("compliance_certifications")))).toMatch(/regulations?: PCI DSS/);
  });

  it("does not take a video of press coverage for a product video", () => {
    const linked = (text: string) =>
      experienceDesign(
        syntheticFacts([
          { ...BARE_SITE[0]!, namedLinks: [{ href: "https://www.youtube.com/watch?v=abc123", text }] },
        ]).about("experience_design"),
      );
    expect(all(linked("Acme feature on Dutch National Television (RTL-Z)"))).toMatch(
      /no screenshots, product tour or demo video/,
    );
    expect(all(linked("Watch the two-minute product demo"))).toMatch(/shows the product/);
  });

  it("says a count under the norm is one ('stack named: AWS, fewer than the usual 2'), not a fault", () => {
    const proof = customerProof(
      site({
        path: "/",
        title: "Acme",
        text: "“Acme cut our month-end close from ten days to three.”\n— Jane Roe, CFO, Globex",
      }).about("customer_proof"),
    );
    expect(proof.lowered.join(" | ")).toMatch(/1 testimonial signed with a name, fewer than the usual \d/);
  });

  it("does not take a 'Get Started' button for a sign-up when the page it opens is a guide that asks for no account", () => {
    const started = (text: string) => {
      const facts = syntheticFacts([
        { ...BARE_SITE[0]!, namedLinks: [{ href: "/getstarted", text: "Get Started" }] },
        { path: "/getstarted", title: "Get started", text },
      ]);
      return all(onboardingActivation(facts.about("onboarding_activation")));
    };
    expect(
      started("Get started building on Acme\nBelow, we describe the core functionality of the protocol."),
    ).not.toMatch(/self-serve sign-up/);
    expect(started("Create your account\nEmail address\nPassword")).toMatch(/self-serve sign-up/);
  });

  it("files a community manager's opening under marketing", () => {
    const careers = talentOrganization(
      site({
        path: "/careers",
        title: "Careers",
        text: "Current openings\nSoftware Engineer\nCommunity Manager",
      }).about("talent_organization"),
    );
    expect(all(careers)).toMatch(
      /openings in 2 functions: engineering, marketing|openings in 2 functions: marketing, engineering/,
    );
  });

  it("reads a pricing page's 'Activity log' and 'Team member permissions' rows as audit logs and roles", () => {
    const readiness = enterpriseReadiness(
      site(pricing("Growth\n$99/month\nActivity log\nTeam member permissions", [{ amount: 99 }])).about(
        "enterprise_readiness",
      ),
    );
    expect(readiness.raised).toEqual(expect.arrayContaining(["audit logs", "role-based access control"]));
  });

  it("reads a chat channel offered for help as a support channel", () => {
    const contact = (text: string) =>
      all(customerSuccess(site({ path: "/contact", title: "Contact", text }).about("customer_success")));
    expect(contact("Ping us on Slack or fill out the form below to reach our team.")).toMatch(
      /Slack, Discord or Telegram/,
    );
    expect(contact("Follow our Slack engineering posts for news.")).not.toMatch(/Slack, Discord or Telegram/);
  });

  it("reads a rating badge on a line of its own ('Average 4.8/5 Rating')", () => {
    const proof = customerProof(
      syntheticFacts([
        { path: "/", title: "Acme", text: "We build things for teams.\nAverage 4.8/5 Rating\nvia QuickBooks" },
      ]).about("customer_proof"),
    );
    expect(all(proof)).toMatch(/rating/i);
    expect(all(proof)).not.toMatch(/no review-site ratings/);
    // An employer's rating on a careers page is not customers' proof.
    const careers = customerProof(
      site({ path: "/careers", title: "Careers", text: "Join us\nRated 4.8/5 by our team" }).about("customer_proof"),
    );
    expect(all(careers)).toMatch(/no review-site ratings/);
  });
});
