import { describe, expect, it } from "vitest";
import type { OutboundLink } from "../../../src/modules/crawl/crawl.types.js";
import {
  complianceCertifications,
  dataPrivacy,
  enterpriseReadiness,
  securityPosture,
} from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { BARE_SITE, expectSignal } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const bare = BARE_SITE;
const product = (text: string, path = "/product"): PageSpec => ({ path, title: "Product", text });
const trustCenter: OutboundLink = {
  url: "https://trust.acme.example/",
  kind: "trust_center",
  foundOn: `${SYNTHETIC_ORIGIN}/`,
};
type Options = Parameters<typeof syntheticFacts>[1];
/** A privacy policy's text: a crawled privacy page with only its heading holds none. */
const POLICY_TEXT = "How we collect, use and share personal data, and the choices you have. ".repeat(8);
/** A security page in the company's own voice: a page with "security" in its address and nothing about its own is none. */
const OWN_SECURITY_TEXT = "We encrypt customer data and our team reviews access every quarter.";

describe("security_posture", () => {
  it.each<[string, PageSpec[], string, Options?]>([
    [
      "a security page",
      [{ path: "/security", title: "Security at Acme", text: "We take security seriously." }],
      `${SYNTHETIC_ORIGIN}/security`,
    ],
    ["a trust centre", [], trustCenter.url, { outbound: [trustCenter] }],
    ["security.txt", [], `${SYNTHETIC_ORIGIN}/.well-known/security.txt`, { securityTxt: true }],
    [
      "a disclosure policy",
      [product("Report a vulnerability through our bug bounty on HackerOne.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    // The security programme as the security page describes it (a security vendor's product pages describe what it sells).
    [
      "encryption and pentests",
      [
        {
          path: "/security",
          title: "Security",
          text: "Data is encrypted at rest with AES-256.\nAnnual penetration tests by a third party.",
        },
      ],
      `${SYNTHETIC_ORIGIN}/security`,
    ],
  ])("rises with %s", (_name, pages, url, options) => {
    expectSignal(securityPosture, pages, url, options);
  });

  it("rises with HSTS and CSP on the home page, more with both", () => {
    const none = securityPosture(syntheticFacts(bare));
    const hsts = securityPosture(syntheticFacts([{ ...bare[0]!, hsts: true }]));
    const both = securityPosture(syntheticFacts([{ ...bare[0]!, hsts: true, csp: true }]));
    expect(hsts.raw).toBeGreaterThan(none.raw);
    expect(both.raw).toBeGreaterThan(hsts.raw);
    expect(both.evidence[0]).toEqual({
      url: `${SYNTHETIC_ORIGIN}/`,
      text: "home page sends Strict-Transport-Security, Content-Security-Policy",
    });
  });

  it("scores a security page with a trust centre above either alone", () => {
    const page: PageSpec = { path: "/security", title: "Security", text: OWN_SECURITY_TEXT };
    const alone = securityPosture(syntheticFacts([...bare, page]));
    const both = securityPosture(syntheticFacts([...bare, page], { outbound: [trustCenter] }));
    expect(both.raw).toBeGreaterThan(alone.raw);
  });
});

describe("compliance_certifications", () => {
  it.each<[string, PageSpec[], string, Options?]>([
    ["SOC 2", [product("Acme is SOC 2 compliant.")], `${SYNTHETIC_ORIGIN}/product`],
    ["ISO 27001", [product("Certified to ISO 27001.")], `${SYNTHETIC_ORIGIN}/product`],
    ["HIPAA", [product("HIPAA-ready with a BAA.")], `${SYNTHETIC_ORIGIN}/product`],
    ["GDPR", [product("Fully GDPR aligned.")], `${SYNTHETIC_ORIGIN}/product`],
    ["PCI DSS", [product("Payments are PCI DSS Level 1.")], `${SYNTHETIC_ORIGIN}/product`],
    ["a trust centre", [], trustCenter.url, { outbound: [trustCenter] }],
    [
      "a security page",
      [{ path: "/security", title: "Security", text: OWN_SECURITY_TEXT }],
      `${SYNTHETIC_ORIGIN}/security`,
    ],
  ])("rises with %s", (_name, pages, url, options) => {
    expectSignal(complianceCertifications, pages, url, options);
  });

  it("counts distinct certifications through the curve", () => {
    const score = (text: string) => complianceCertifications(syntheticFacts([...bare, product(text)])).raw;
    const one = score("GDPR compliant.");
    const three = score("GDPR compliant.\nSOC 2 audited.\nISO 27001 certified.");
    const five = score("GDPR compliant.\nSOC 2 audited.\nISO 27001 certified.\nHIPAA compliant.\nPCI DSS certified.");
    expect(three).toBeGreaterThan(one);
    expect(five).toBeGreaterThan(three);
  });

  it("counts what the company holds, not what its compliance product helps customers meet", () => {
    const sells = complianceCertifications(
      syntheticFacts([...bare, product("Our scanner helps you meet PCI DSS, HIPAA and ISO 27001 requirements.")]),
    );
    expect(sells.coverage).toBe(0);
    const holds = complianceCertifications(syntheticFacts([...bare, product("Acme is ISO 27001 certified.")]));
    expect(holds.coverage).toBeGreaterThan(0);
  });

  it("scores SOC 2 Type II above an untyped SOC 2", () => {
    const untyped = complianceCertifications(syntheticFacts([...bare, product("We are SOC 2 compliant.")]));
    const typeTwo = complianceCertifications(syntheticFacts([...bare, product("We hold a SOC 2 Type II report.")]));
    expect(typeTwo.raw).toBeGreaterThan(untyped.raw);
    expect(untyped.lowered).toContain("SOC 2 named without its type (Type II is the bar)");
  });

  it.each([
    ["SOC 2 Type II", "We hold a SOC 2 Type II report."],
    ["ISO 27001", "Acme is ISO 27001 certified."],
    ["FedRAMP", "Acme is FedRAMP authorized at the Moderate level."],
    ["a regulator's licence", "Acme Payments Ltd is authorised and regulated by the Financial Conduct Authority."],
  ])("marks %s as costly evidence: an outside audit (framework 2.8.0)", (name, text) => {
    const { weighsAs } = complianceCertifications(syntheticFacts([...bare, product(text)]));
    expect(weighsAs?.cost).toBe("costly");
    expect(weighsAs?.why).toMatch(new RegExp(`^${name} takes an outside audit`, "i"));
  });

  it.each([
    ["an untyped SOC 2", "We are SOC 2 compliant."],
    ["laws complied with", "We are GDPR compliant.\nWe are HIPAA compliant.\nWe are PCI DSS compliant."],
    ["what a compliance product helps customers meet", "Our scanner helps you meet ISO 27001 and SOC 2 Type II."],
  ])("does not mark %s as costly evidence", (_name, text) => {
    expect(complianceCertifications(syntheticFacts([...bare, product(text)])).weighsAs).toBeUndefined();
  });
});

describe("data_privacy", () => {
  it.each<[string, PageSpec[], string]>([
    [
      "a privacy policy",
      [{ path: "/privacy", title: "Privacy Policy", text: POLICY_TEXT }],
      `${SYNTHETIC_ORIGIN}/privacy`,
    ],
    [
      "a linked privacy policy",
      [{ path: "/about", links: ["/legal/privacy-policy"] }],
      `${SYNTHETIC_ORIGIN}/legal/privacy-policy`,
    ],
    ["a DPA", [product("Sign our Data Processing Agreement online.")], `${SYNTHETIC_ORIGIN}/product`],
    ["a subprocessor list", [product("See the list of subprocessors we use.")], `${SYNTHETIC_ORIGIN}/product`],
    [
      "retention and deletion",
      [product("Data is deleted within 30 days of cancellation.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    ["data residency", [product("Data residency in the EU or US is available.")], `${SYNTHETIC_ORIGIN}/product`],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(dataPrivacy, pages, url);
  });

  it("scores a crawled privacy policy above a linked one", () => {
    const linked = dataPrivacy(syntheticFacts([...bare, { path: "/about", links: ["/privacy-policy"] }]));
    const crawled = dataPrivacy(
      syntheticFacts([...bare, { path: "/privacy-policy", title: "Privacy Policy", text: POLICY_TEXT }]),
    );
    expect(crawled.raw).toBeGreaterThan(linked.raw);
  });
});

describe("enterprise_readiness", () => {
  it.each<[string, string]>([
    ["SSO", "Single sign-on with Okta and Azure AD."],
    ["SAML", "SAML for every workspace."],
    ["SCIM", "SCIM provisioning keeps users in sync."],
    ["audit logs", "Audit logs for every change."],
    ["RBAC", "Role-based access control with custom roles."],
    ["an enterprise plan", "The Enterprise plan adds premium features."],
    ["an SLA", "A 99.9% uptime SLA."],
    ["self-hosting", "Deploy self-hosted in your own VPC."],
  ])("rises with %s", (_name, text) => {
    expectSignal(enterpriseReadiness, [product(text)], `${SYNTHETIC_ORIGIN}/product`);
  });

  it("reads an Enterprise tier heading on the pricing page", () => {
    const assessment = enterpriseReadiness(
      syntheticFacts([...bare, { path: "/pricing", title: "Pricing", headings: ["Pro", "Enterprise"] }]),
    );
    expect(assessment.raised).toContain("an enterprise plan");
  });

  it("rises with each control added", () => {
    const score = (text: string) => enterpriseReadiness(syntheticFacts([...bare, product(text)])).raw;
    expect(score("SSO and SAML. Audit logs.")).toBeGreaterThan(score("SSO and SAML."));
  });
});

describe("trust centre on the site itself", () => {
  it("reads a crawled /trust page with downloadable reports as a trust centre with reports", () => {
    const trust: PageSpec = {
      path: "/trust",
      title: "Trust center",
      text: "Download our SOC 2 Type II report and ISO 27001 certificate.",
    };
    const compliance = complianceCertifications(syntheticFacts([...bare, trust]));
    expect(compliance.raised).toContain("a trust centre with reports");
    expect(compliance.evidence.map((item) => item.url)).toContain(`${SYNTHETIC_ORIGIN}/trust`);
    const security = securityPosture(
      syntheticFacts([...bare, { path: "/security", title: "Security", text: OWN_SECURITY_TEXT }, trust]),
    );
    expect(security.raised).toContain("a security page and a trust centre");
  });
});

describe("a single /trust page", () => {
  it("counts once: a trust centre, not a security page and a trust centre", () => {
    const security = securityPosture(syntheticFacts([...bare, { path: "/trust", title: "Trust center" }]));
    expect(security.raised).toContain("a trust centre");
    expect(security.evidence[0]?.url).toBe(`${SYNTHETIC_ORIGIN}/trust`);
  });
});
