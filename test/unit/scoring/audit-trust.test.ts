import { describe, expect, it } from "vitest";
import {
  complianceCertifications,
  dataPrivacy,
  securityPosture,
} from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const at = (path: string) => `${SYNTHETIC_ORIGIN}${path}`;
const page = (path: string, text: string, title = ""): PageSpec => ({ path, text, title });
const POLICY = "This policy explains how we collect, use, share and protect personal information. ".repeat(6);
const policyFound = (assessment: { readonly raised: readonly string[] }) =>
  assessment.raised.find((line) => line.startsWith("a privacy policy"));

describe("data_privacy: a privacy page that holds no policy (framework 2.5.0)", () => {
  it("does not credit a privacy page with only its heading, or one whose policy is 'coming soon'", () => {
    for (const text of ["Privacy Policy", "Privacy. Our #1 concern.\nPolicy coming soon!"]) {
      const assessment = dataPrivacy(
        syntheticFacts([{ ...BARE_SITE[0]!, links: ["/privacy"] }, page("/privacy", text, "Privacy Policy")]),
      );
      expect(policyFound(assessment)).toBeUndefined();
      expect(assessment.lowered).toContain("no privacy policy found");
    }
  });

  it("still credits a crawled privacy policy with its text", () => {
    const assessment = dataPrivacy(syntheticFacts([...BARE_SITE, page("/privacy", POLICY, "Privacy Policy")]));
    expect(assessment.raised).toContain("a privacy policy");
    expect(assessment.evidence[0]?.url).toBe(at("/privacy"));
  });

  it("reads a crawled policy at a policy's address in another category as crawled, not 'linked'", () => {
    const assessment = dataPrivacy(
      syntheticFacts([...BARE_SITE, page("/privacy-and-cookies-policy", POLICY, "Acme - Home")]),
    );
    expect(assessment.raised).toContain("a privacy policy");
  });
});

describe("data_privacy: a linked privacy policy is the site's own (framework 2.5.0)", () => {
  it("does not take a press article, a paper or a blog post with 'privacy' in it for the policy", () => {
    const assessment = dataPrivacy(
      syntheticFacts([
        {
          ...BARE_SITE[0]!,
          namedLinks: [
            { href: "https://news.example.org/research/first-privacy-survey-of-mobile-apps", text: "Acme in the news" },
            { href: "https://eprint.example.org/2018/1132", text: "Privacy-Preserving Proof-of-Stake" },
            { href: "/blog/about-privacy", text: "Why we built it decentralized" },
          ],
        },
      ]),
    );
    expect(policyFound(assessment)).toBeUndefined();
  });

  it("still credits a link to the policy on the site's domain, or one named as the policy", () => {
    const own = dataPrivacy(syntheticFacts([{ ...BARE_SITE[0]!, links: ["/legal/privacy-policy"] }]));
    expect(own.raised).toContain("a privacy policy linked (not crawled)");
    const hosted = dataPrivacy(
      syntheticFacts([
        { ...BARE_SITE[0]!, namedLinks: [{ href: "https://policies.example.net/8050679", text: "Privacy Policy" }] },
      ]),
    );
    expect(hosted.raised).toContain("a privacy policy linked (not crawled)");
  });
});

describe("data_privacy: retention and deletion terms (framework 2.5.0)", () => {
  it.each([
    "We will only retain your data for as long as reasonably necessary to fulfil the purposes we collected it for.",
    "We keep your Personal Data for as long as it is required for our legitimate business purposes.",
    "The Company shall store your Personal Information for as long as it deems sufficient.",
    "The Company will keep your personal data for a period of time not exceeding the legal permission.",
    "We will only retain your personally identifiable information for as long as necessary.",
    "If your personal information is no longer required, we will delete it or make it anonymous.",
    "Once the retention period expires, Personal Information shall be deleted.",
    "Request erasure of your personal information.",
    "Retention and deletion of your personal data",
  ])("reads %j", (sentence) => {
    const assessment = dataPrivacy(syntheticFacts([...BARE_SITE, page("/privacy", `${POLICY}\n${sentence}`)]));
    expect(assessment.raised).toContain("data retention and deletion terms");
  });

  it("does not read storage without a period or a deletion", () => {
    const assessment = dataPrivacy(
      syntheticFacts([...BARE_SITE, page("/privacy", `${POLICY}\nWe store your information on servers in Ireland.`)]),
    );
    expect(assessment.lowered).toContain("no retention or deletion terms");
  });
});

describe("data_privacy: a DPA offered, not a conditional clause (framework 2.5.0)", () => {
  it("does not read 'unless we have entered into a data processing agreement with you' as a DPA", () => {
    const assessment = dataPrivacy(
      syntheticFacts([
        ...BARE_SITE,
        page(
          "/privacy",
          `${POLICY}\nWe act as a data controller, unless we have entered into a data processing agreement with you.`,
        ),
      ]),
    );
    expect(assessment.lowered).toContain("no DPA offered");
  });

  it("still reads a DPA the company offers", () => {
    const assessment = dataPrivacy(
      syntheticFacts([...BARE_SITE, page("/legal", "Customers can sign our Data Processing Agreement online.")]),
    );
    expect(assessment.raised).toContain("a data processing agreement (DPA)");
  });
});

describe("data_privacy: a subprocessor list, not a mention of subprocessors (framework 2.5.0)", () => {
  it("does not read a policy sentence that shares data with 'third-party sub-processors' as a list", () => {
    const assessment = dataPrivacy(
      syntheticFacts([
        ...BARE_SITE,
        page("/privacy", `${POLICY}\nWe may share your information with partners and third-party sub-processors.`),
      ]),
    );
    expect(assessment.lowered).toContain("no subprocessor list");
  });

  it("still reads a published list, or a link to one", () => {
    const listed = dataPrivacy(
      syntheticFacts([...BARE_SITE, page("/legal", "We publish the list of our subprocessors and update it monthly.")]),
    );
    expect(listed.raised).toContain("a subprocessor list");
    const linked = dataPrivacy(syntheticFacts([{ ...BARE_SITE[0]!, links: ["/legal/subprocessors"] }]));
    expect(linked.raised).toContain("a subprocessor list");
  });
});

describe("security_posture and compliance: a security page about the company's own security (framework 2.5.0)", () => {
  it("does not take a feed of other vendors' alerts or a security-audit service page for a security page", () => {
    for (const spec of [
      page(
        "/research/security-alerts",
        "Microsoft Patch Tuesday: 74 vulnerabilities fixed in Windows and Office.",
        "Security Alerts",
      ),
      page(
        "/security-audits",
        "Audits for smart contract systems. Request an audit of your protocol by experienced auditors.",
        "Security Audits",
      ),
    ]) {
      const facts = syntheticFacts([...BARE_SITE, spec]);
      expect(securityPosture(facts).raised).not.toContain("a security page");
      expect(complianceCertifications(facts).raised).not.toContain("a security or compliance page");
    }
  });

  it("still counts a security page in the company's own voice, and a regulator's licence page", () => {
    const own = syntheticFacts([
      ...BARE_SITE,
      page("/security", "We encrypt all data at rest. Report a vulnerability to our team.", "Security"),
    ]);
    expect(securityPosture(own).raised).toContain("a security page");
    const contact = syntheticFacts([
      ...BARE_SITE,
      page("/security", "Release notes. The Acme security contact is security@acme.example.", "Releases"),
    ]);
    expect(securityPosture(contact).raised).toContain("a security page");
    const licence = syntheticFacts([
      ...BARE_SITE,
      page("/regulation", "Acme Underwriting is licensed by the Financial Services Authority.", "Regulation"),
    ]);
    expect(complianceCertifications(licence).raised).toContain("a security or compliance page");
  });
});

describe("security_posture: a security contact is a disclosure channel (framework 2.5.0)", () => {
  it.each(["The Acme security contact is security@acme.example.", "For security issues, please email the team."])(
    "reads %j",
    (sentence) => {
      const assessment = securityPosture(syntheticFacts([...BARE_SITE, page("/about", sentence)]));
      expect(assessment.raised).toContain("a bug bounty or disclosure policy");
    },
  );

  it("does not read a general support address as one", () => {
    const assessment = securityPosture(
      syntheticFacts([...BARE_SITE, page("/about", "For billing issues, please email support@acme.example.")]),
    );
    expect(assessment.lowered).toContain("no bug bounty or vulnerability disclosure policy");
  });
});

describe("compliance: a certification held by another company (framework 2.5.0)", () => {
  const security = (text: string) =>
    complianceCertifications(syntheticFacts([...BARE_SITE, page("/security", text, "Security")]));
  const names = (assessment: { readonly raised: readonly string[]; readonly lowered: readonly string[] }) =>
    [...assessment.raised, ...assessment.lowered].join("; ");

  it("does not credit the site with its payment processor's PCI compliance", () => {
    const assessment = security(
      "Payments & PCI compliance\nAcme uses Braintree to power our payments.\nBraintree is PCI Level 1 compliant, and all payment data is stored in their systems.",
    );
    expect(names(assessment)).not.toContain("PCI DSS");
  });

  it("still credits 'we are PCI compliant', 'Acme is SOC 2 certified' and a plain-noun subject", () => {
    expect(names(security("We are PCI compliant."))).toContain("PCI DSS");
    expect(names(security("Acme is SOC 2 certified."))).toContain("SOC 2");
    expect(names(security("Payments are PCI DSS Level 1."))).toContain("PCI DSS");
  });
});

describe("compliance: SOC named without its number (framework 2.5.0)", () => {
  it("reads 'Service and Organization Controls (SOC) certification' as SOC, type not stated", () => {
    const assessment = complianceCertifications(
      syntheticFacts([
        {
          ...BARE_SITE[0]!,
          text: "Service and Organization Controls (SOC) certification and compliance controls in place.",
        },
      ]),
    );
    expect(assessment.lowered.join("; ")).toContain("SOC (type not stated)");
    expect(assessment.lowered).toContain("no SOC 2 report");
  });

  it("names SOC 2 alone when the number is given", () => {
    const assessment = complianceCertifications(
      syntheticFacts([...BARE_SITE, page("/security", "We hold a SOC 2 Type II report and SOC certification.")]),
    );
    const all = [...assessment.raised, ...assessment.lowered].join("; ");
    expect(all).toContain("SOC 2");
    expect(all).not.toContain("SOC (type not stated)");
  });
});

describe("security_posture: encryption of what the service sends (framework 2.5.0)", () => {
  it("reads 'each request is protected with 256-bit elliptic curve cryptography' as encryption", () => {
    const assessment = securityPosture(
      syntheticFacts([
        {
          ...BARE_SITE[0]!,
          text: "Each request is protected with 256-bit elliptical curve cryptography with Perfect Forward Secrecy.",
        },
      ]),
    );
    expect([...assessment.raised, ...assessment.lowered].join("; ")).toContain(
      "security practices described: encryption",
    );
  });

  it("does not read a product's feature list that merely names cryptography", () => {
    const assessment = securityPosture(
      syntheticFacts([{ ...BARE_SITE[0]!, text: "Learn cryptography with interactive lessons." }]),
    );
    expect(assessment.lowered).toContain("no encryption, pentests or other practices described");
  });
});

describe("data_privacy: a policy kept as a section of a legal page (framework 2.5.0)", () => {
  it("reads the 'Privacy Policy' section of /legal as the policy, with its deletion terms", () => {
    const policy = `We collect your e-mail address to run your account. ${"We never sell it. ".repeat(30)}\nCustomer data can be deleted from all primary and backup systems within 7 days of request.`;
    const result = dataPrivacy(
      syntheticFacts([
        ...BARE_SITE,
        {
          path: "/legal",
          title: "Legal",
          headings: [
            { level: 2, text: "Terms of Service" },
            { level: 2, text: "Privacy Policy" },
          ],
          text: policy,
        },
      ]).about("data_privacy"),
    );
    expect(result.raised).toContain("a privacy policy");
    expect(result.raised).toContain("data retention and deletion terms");
  });
});

describe("security_posture: the security section of a page of legal documents (framework 2.6.0)", () => {
  const overview = [
    "Security Overview",
    "We provide this overview so that you can understand the security measures we have put in place.",
    "Secure Storage",
    "We encrypt the files that you transmit through Acme using the AES-256 standard.",
    "Secure Transfers",
    "Your files are sent over a secure channel using TLS 1.2 encryption.",
    "Where Do I Report Security Concerns?",
    "Report security issues to security@acme.example; we will fully credit anybody whose reports lead to a fix.",
  ];
  const legal = (h1: string, sections: string[], headings: PageSpec["headings"]): PageSpec => ({
    path: "/legal",
    title: "Legal",
    text: [h1, ...sections, "Privacy Policy", POLICY].join("\n"),
    headings: [{ level: 1, text: h1 }, ...(headings ?? []), { level: 2, text: "Privacy Policy" }],
  });
  const sectionHeadings: PageSpec["headings"] = [
    { level: 2, text: "Security Overview" },
    { level: 3, text: "Secure Storage" },
    { level: 3, text: "Secure Transfers" },
    { level: 3, text: "Where Do I Report Security Concerns?" },
  ];

  it("reads a 'Security Overview' section of /legal as the site's security page, quoting from that section only", () => {
    const assessment = securityPosture(
      syntheticFacts([...BARE_SITE, legal("Legal", overview, sectionHeadings)]).about("security_posture"),
    );
    expect(assessment.raised).toContain("a security page");
    expect(assessment.evidence[0]).toMatchObject({ url: at("/legal"), text: "security page: Security Overview" });
    expect(assessment.evidence.some((item) => /AES-256/.test(item.text))).toBe(true);
    expect(assessment.evidence.every((item) => !/personal information/.test(item.text))).toBe(true);
  });

  it("does not read a privacy policy's one-clause 'Information Security' heading as a security page", () => {
    const clause = ["Information Security", "We use reasonable safeguards to protect your information."];
    const asPolicy = securityPosture(
      syntheticFacts([
        ...BARE_SITE,
        {
          path: "/privacy",
          title: "Privacy Policy",
          text: ["Acme Privacy Policy", POLICY, ...clause, "Data Retention", POLICY].join("\n"),
          headings: [
            { level: 1, text: "Acme Privacy Policy" },
            { level: 2, text: "Information Security" },
            { level: 2, text: "Data Retention" },
          ],
        },
      ]).about("security_posture"),
    );
    expect(asPolicy.lowered).toContain("no security page or trust centre");
    const shortClause = securityPosture(
      syntheticFacts([...BARE_SITE, legal("Legal", clause, [{ level: 2, text: "Information Security" }])]).about(
        "security_posture",
      ),
    );
    expect(shortClause.lowered).toContain("no security page or trust centre");
  });
});
