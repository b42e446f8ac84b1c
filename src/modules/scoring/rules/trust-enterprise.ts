import { moreIsBetter } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { brandKeys, nameKey, onOwnDomain, ownOutbound } from "./code-hosts.js";
import { customTier, enterpriseTier } from "./pricing-packaging.js";
import { Assessor, kindsFound, plural, present, type Kinds, type RuleSet } from "./rule.js";

/**
 * Trust & Enterprise: what a security reviewer or procurement team can verify
 * from the outside before a call: the security page and trust centre, the
 * certifications held, how customer data is handled, and the controls large
 * organisations require (SSO, SCIM, audit logs, roles, an SLA).
 */

/** A page about the company's own security (its address or title says so), not a compliance, licence or regulation page. */
const ABOUT_SECURITY = /secur|\btrust\b|\/trust|vulnerab|pen-?test/i;

/**
 * A page speaks of the company's own security: "we encrypt …", "our security team", a security@ address,
 * how to report a vulnerability, a SOC 2 or ISO 27001 it holds. A feed of other vendors' patch alerts or
 * the security audits a firm sells carries "security" in its address but none of these.
 */
const OWN_SECURITY_CUE =
  /\b(?:our|we)\b[^.\n]{0,60}\b(?:secur|protect|encrypt)|\bsecurity@|\breport (?:a |any )?(?:security )?(?:vulnerabilit|issue|bug)|\b(?:vulnerability|responsible|coordinated) disclosure|\bsoc ?2\b|\biso(?:\/iec)? ?27001\b|\bsecurity contact|\bbug bounty/i;
/** A compliance or licence page speaks of the company's own: "our certifications", "licensed by the … Authority". */
const OWN_COMPLIANCE_CUE =
  /\b(?:our|we)\b[^.\n]{0,60}\b(?:complian|certifi|accredit|licen[cs]|regulat|authori[sz]|adhere)|\b(?:licen[cs]ed|regulated|authori[sz]ed|supervised) by\b|\blicen[cs]e (?:no\.|number)|\bsoc ?2\b|\biso(?:\/iec)? ?27001\b/i;

/** A page's headings and the text the rules read, for a cue about the page as a whole. */
function pageText(page: { headings: ReadonlyArray<{ text: string }>; text: string }): string {
  return `${page.headings.map((heading) => heading.text).join("\n")}\n${page.text.slice(0, SCORED_TEXT_PER_PAGE)}`;
}

/**
 * The crawled security page and the trust centre, as evidence, when the site has
 * them. A trust centre is a hosted one (outbound "trust_center") or a crawled
 * security page that calls itself one ("/trust", "Trust Center"). A security page
 * counts when it speaks of the company's own security, a compliance or licence page
 * when it speaks of the company's own compliance.
 */
function securityHome(facts: SiteFacts): { page?: Evidence; pageAboutSecurity: boolean; trustCenter?: Evidence } {
  const pages = facts.pagesIn("security");
  const ownTrust = pages.find(
    (candidate) =>
      /\btrust\b/i.test(candidate.title) || /\/trust(-cent(er|re))?(\/|$)|\/\/trust\./i.test(candidate.url),
  );
  // Prefer a security page other than the trust centre, so one /trust page does not count twice, and one about
  // security over a compliance or licence page.
  const about = (candidate: (typeof pages)[number]) =>
    ABOUT_SECURITY.test(`${new URL(candidate.url).pathname} ${candidate.title} ${candidate.headings[0]?.text ?? ""}`);
  const others = pages.filter((candidate) => candidate !== ownTrust);
  const ownSecurity = others.find((candidate) => about(candidate) && OWN_SECURITY_CUE.test(pageText(candidate)));
  const page =
    ownSecurity ??
    others.find((candidate) => !about(candidate) && OWN_COMPLIANCE_CUE.test(pageText(candidate))) ??
    ownTrust;
  const [hosted] = ownOutbound(facts, "trust_center");
  return {
    // A licence or compliance page is named as one: "Regulation" is not a security page.
    page: page && {
      url: page.url,
      text: `${page === ownSecurity || page === ownTrust ? "security" : "compliance"} page: ${page.title || page.headings[0]?.text || page.url}`,
    },
    pageAboutSecurity: page !== undefined && page === ownSecurity,
    trustCenter: hosted
      ? { url: hosted.url, text: `trust centre linked from ${hosted.foundOn}` }
      : ownTrust && { url: ownTrust.url, text: `trust centre: ${ownTrust.title || ownTrust.url}` },
  };
}

/** The company, by name, saying what it encrypts with: "<name> uses encryption …", "<name> encrypts …". */
const BRAND_USES_ENCRYPTION =
  /\b([\w.-]{3,}) (?:(?:uses|employs|applies|relies on) [^.]{0,40}?\b(?:encryption|aes[- ]?256|tls ?1\.[23])|encrypts)\b/i;

export function securityPosture(facts: SiteFacts) {
  const assessor = new Assessor();
  const home = securityHome(facts);
  const { trustCenter } = home;
  // A regulator's licence page says the firm is supervised, not how it keeps data safe: it is compliance evidence only.
  const page = home.page && home.pageAboutSecurity ? home.page : undefined;
  const both = page !== undefined && trustCenter !== undefined && page.url !== trustCenter.url;
  const evidence = both
    ? [page, trustCenter]
    : [trustCenter ?? page].filter((item): item is Evidence => item !== undefined);
  assessor.signal(
    2,
    both ? 95 : trustCenter ? 85 : page ? 80 : undefined,
    both
      ? "a security page and a trust centre"
      : trustCenter
        ? "a trust centre"
        : page
          ? "a security page"
          : "no security page or trust centre",
    evidence,
  );

  const origin = new URL(facts.home.url).origin;
  assessor.signal(
    1,
    facts.securityTxt ? 90 : undefined,
    facts.securityTxt ? "security.txt published" : "no security.txt",
    facts.securityTxt
      ? [{ url: `${origin}/.well-known/security.txt`, text: "security.txt published for vulnerability reports" }]
      : [],
  );

  const headers = facts.home.trustHeaders;
  const sent = [
    headers.hsts && "Strict-Transport-Security",
    headers.csp && "Content-Security-Policy",
    headers.xFrameOptions && "X-Frame-Options",
    headers.xContentTypeOptions && "X-Content-Type-Options",
  ].filter((name): name is string => typeof name === "string");
  // HSTS and CSP count one and a half each: 2 (e.g. HSTS plus X-Frame-Options) is the median, all four headers (5) the top decile.
  const headerScore = moreIsBetter(sent.length + (headers.hsts ? 0.5 : 0) + (headers.csp ? 0.5 : 0), 2, 4.5);
  assessor.signal(
    1,
    sent.length > 0 ? headerScore : undefined,
    sent.length > 0 ? `home page sends ${sent.join(", ")}` : "no security headers (HSTS, CSP) on the home page",
    sent.length > 0 ? [{ url: facts.home.url, text: `home page sends ${sent.join(", ")}` }] : [],
  );

  // A programme or policy, or where to send a finding: a security contact, a security@ address, "for security
  // issues, email …" tells a researcher how to disclose.
  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(bug bounty|vulnerability disclosure|responsible disclosure|coordinated disclosure|hackerone|report (a|security) vulnerabilit(y|ies)|report (security )?(issues|vulnerabilities) to|security contact|security@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}|(report|disclose) (any )?security (issues|vulnerabilities|bugs|problems|concerns)|for security (issues|concerns|reports|vulnerabilities)[^.]{0,20}\b(email|contact|write|reach))\b/i,
      { limit: 1 },
    ),
    90,
    "a bug bounty or disclosure policy",
    "no bug bounty or vulnerability disclosure policy",
  );

  // The site's own security programme, as its security or trust page describes it: on a security vendor's other
  // pages "threat detection" or "vulnerability management" is what it sells, and "backups" elsewhere is a feature.
  // An encryption claim the site makes in its own voice counts wherever it is, and so does one about what its
  // service sends or keeps: "each request is protected with 256-bit … cryptography", "data is encrypted with AES".
  const ownEncryption = facts.mentions(
    /\b(our|we) [^.]{0,40}\b(encrypt(ed|ion|s)?|aes[- ]?256|tls ?1\.[23])\b|\b(requests?|data|traffic|connections?|communications?|files|information|passwords|credentials|messages|transfers?|payloads?|everything)( \w+)? (is|are|gets|get) (always |all |fully |securely )?(protected|secured|encrypted|transmitted|sent|transferred|stored)( \w+){0,2} (with|by|using|via|over|through) [^.]{0,40}\b(encryption|cryptography|tls|ssl|https|aes[- ]?\d{3}|\d{3}-bit)\b/i,
    { limit: 1 },
  );
  // …or in its name's: "idemeum uses encryption, phone's hardware-backed components, biometrics" (framework 2.11.0).
  const brands = brandKeys(facts);
  const namedEncryption = facts.mentions(BRAND_USES_ENCRYPTION, { limit: 3 }).filter((mention) => {
    const subject = BRAND_USES_ENCRYPTION.exec(mention.text)?.[1];
    return subject !== undefined && brands.includes(nameKey(subject));
  });
  ownEncryption.push(...namedEncryption);
  const practices = kindsFound(facts.securityPages(), [
    [
      "encryption",
      /\b(encrypt(ed|ion|s)? (at rest|in transit)|aes[- ]?256|tls ?1\.[23]|end[- ]to[- ]end encrypt(ed|ion))\b/i,
    ],
    ["penetration tests", /\b(pen(etration)?[- ]?test(s|ing|ed)?|third[- ]party security (audits?|assessments?))\b/i],
    ["MFA", /\b(mfa|2fa|multi[- ]factor|two[- ]factor)\b/i],
    [
      "vulnerability scanning",
      /\b(vulnerability (scanning|management|scans)|dependency scanning|static analysis|sast|dast)\b/i,
    ],
    ["monitoring", /\b(24\/7 (security )?monitoring|intrusion detection|siem|security monitoring|threat detection)\b/i],
    [
      "backups",
      /\b((automatic|automated|daily|hourly|nightly|regular|encrypted|off-?site) backups|backups (are|is) (created|taken|made|kept|stored|encrypted)|disaster recovery (plan|site|procedures?)|point[- ]in[- ]time recovery)\b/i,
    ],
    ["incident response", /\b(incident response|security incidents?)\b/i],
    ["least privilege", /\b(least privilege|access reviews?|background checks)\b/i],
  ]);
  if (ownEncryption[0] && !practices.some((entry) => entry.name === "encryption"))
    practices.unshift({ name: "encryption", mention: ownEncryption[0] });
  // Two described practices is the median for a SaaS security page; five (encryption, pentests, MFA …) is thorough.
  assessor.signal(
    1.5,
    practices.length > 0 ? moreIsBetter(practices.length, 2, 5) : undefined,
    practices.length > 0
      ? `security practices described: ${practices.map((entry) => entry.name).join(", ")}`
      : "no encryption, pentests or other practices described",
    practices.slice(0, 3).map((entry) => entry.mention),
  );

  return assessor.done(
    page === undefined && trustCenter === undefined
      ? "Publish a security page: encryption, penetration tests, disclosure policy and a security.txt."
      : "Add what reviewers check first: security.txt, HSTS and CSP headers, a disclosure policy and third-party pentests.",
  );
}

/** Recognised certifications and regulations; each counts once. */
const CERTIFICATIONS: Kinds = [
  ["SOC 2", /\bsoc ?2\b/i],
  ["ISO 27001", /\biso(\/iec)? ?27001\b/i],
  ["ISO 27017/27018/27701", /\biso(\/iec)? ?(27017|27018|27701)\b/i],
  ["HIPAA", /\bhipaa\b/i],
  ["GDPR", /\bgdpr\b/i],
  ["PCI DSS", /\bpci([- ]dss)?\b/i],
  ["CCPA", /\b(ccpa|cpra)\b/i],
  ["FedRAMP", /\bfedramp\b/i],
  ["CSA STAR", /\bcsa star\b/i],
  ["HITRUST", /\bhitrust\b/i],
  ["SOC 1 / SOC 3", /\bsoc ?[13]\b/i],
  // "Service Organization Controls (SOC) certification": a SOC report without its number is not SOC 2.
  [
    "SOC (type not stated)",
    /\b(service (and )?organi[sz]ation controls?|soc (certification|certified|report|audit|compliance|compliant|attestation))\b/i,
  ],
  ["Cyber Essentials", /\bcyber essentials\b/i],
  ["TISAX", /\btisax\b/i],
  ["BSI C5", /\b(bsi )?c5 (attestation|certified|compliance)\b/i],
  // A regulator's licence is a compliance programme too: payments, insurance, lending and health are sold on it.
  [
    "a regulator's licence",
    /\b(licen[cs]ed|authori[sz]ed|regulated|supervised)\b[^.]{0,30}\bby (the )?[^.]{0,60}\b(authority|commission|central bank|regulator|FCA|SEC|FINRA|MAS|BaFin|FINMA|ASIC|OCC|FinCEN|CNMV|AMF|FSA|FSC|RBI|SEBI|IRDAI)\b|\blicen[cs]e (no\.|number\b|#)|\b(e-money institution|money transmitter licen[cs]es?|payment institution licen[cs]e)\b/i,
  ],
  ["ISO 9001 / 13485 quality", /\biso ?(9001|13485)\b/i],
  [
    "FDA / CE medical clearance",
    /\bfda[- ](cleared|approved|clearance|510\(k\))|\bce[- ]marked\b|\bce mark(ing)? (as a )?medical device\b/i,
  ],
];

/**
 * Certifications an outside auditor or a regulator grants after months of evidence (with SOC 2 Type II): what
 * a compliance page shows that no afternoon's work can. PCI DSS (mostly a self-assessment), GDPR, HIPAA and CCPA
 * (laws one complies with) and CSA STAR (level 1 is a self-assessment) are not among them.
 */
const AUDITED: ReadonlySet<string> = new Set([
  "ISO 27001",
  "ISO 27017/27018/27701",
  "FedRAMP",
  "HITRUST",
  "TISAX",
  "a regulator's licence",
]);

/** Holding a certification or a licence, in the site's own voice. */
const HOLDS =
  /\b(certifi(ed|cation|cate)|compliant|compliance|complies|conform(s|ant|ity)?|attest(ed|ation)|audited|accredited|registered|licen[cs]ed|licen[cs]e (no|number)|authori[sz]ed|regulated|supervised|achieved|holds?|maintains?|passed|ready|aligned|level [1-4]|baa|business associate agreement|we are|is (fully )?(soc|iso|hipaa|pci|gdpr))\b/i;
/** What a compliance or security product does for its customers: helps them comply, checks for a regulation. */
const SELLS_COMPLIANCE =
  /\b(helps? (you |customers |organi[sz]ations |teams )?(to )?(ensure|achieve|maintain|meet|stay|with)|ensure (audit[- ]ready )?compliance|checks? (for|necessary)|test cases|such as|including regulatory|regulatory directives|solution set|for your (audit|compliance)|ensuring your\b|coverage for|\brequirements\b)/i;

/**
 * The name a sentence makes the holder of a certification: "Stripe is PCI Level 1 certified", "AWS
 * is SOC 2 compliant" (one to three capitalised words right before "is"/"are"/"has been", the
 * certification within the same clause). Case-sensitive on purpose: a name is capitalised.
 */
const HOLDER =
  /(?:^|[^\w'’])([A-Z][\w&.'’-]*(?: [A-Z][\w&.'’-]*){0,2}) (?:is|are|has been|have been|remains|was)\b(?=[^.;]{0,40}\b(?:SOC|ISO|PCI|HIPAA|GDPR|CCPA|FedRAMP|FEDRAMP|HITRUST|CSA STAR|TISAX|Cyber Essentials)\b)/;
/** Opening words that make the subject the company, its product or the standard itself, not another firm. */
const NOT_A_HOLDER_NAME =
  /^(?:we|it|this|that|these|those|the|our|its|each|every|all|everything|your|which|who|there|here|soc|iso|pci|dss|hipaa|gdpr|ccpa)$/i;

/**
 * Whether the sentence makes a company other than the site (its brand) the certification's holder.
 * Capitalised words opening the sentence may be plain nouns ("Payments are PCI DSS Level 1", "Card
 * Data is …"): they name a company only when the page also writes one of them capitalised
 * mid-sentence ("we use Stripe").
 */
function heldByAnother(facts: SiteFacts, mention: Mention, brands: readonly string[]): boolean {
  const found = HOLDER.exec(mention.text);
  const subject = found?.[1];
  if (!found || !subject) return false;
  const words = subject.split(" ");
  const [first = ""] = words;
  if (NOT_A_HOLDER_NAME.test(first)) return false;
  const keys = words.map((word) => word.toLowerCase().replace(/[^a-z0-9]/g, ""));
  if (keys.some((name) => name.length >= 3 && brands.some((brand) => name.includes(brand) || brand.includes(name))))
    return false;
  const subjectStart = found.index + (found[0].startsWith(subject) ? 0 : 1);
  if (mention.text.slice(0, subjectStart).trim() !== "") return true;
  const text = facts.pages.find((page) => page.url === mention.url)?.text ?? "";
  return words.some((word) => {
    const name = word.replace(/[^\w]/g, "");
    return name.length > 0 && new RegExp(`[a-z,] ${name}\\b`).test(text);
  });
}

/**
 * Certifications and licences the company holds: named on its security or compliance pages, or
 * anywhere in a sentence that claims them; a compliance vendor's "helps you meet PCI DSS, HIPAA
 * and SOX" names what it sells. A certification the site attributes to another company ("Stripe
 * is PCI Level 1 certified") is not the site's: then only a sentence in the site's own
 * voice ("we are PCI compliant", "Acme is …") counts, not a bare heading "Payments & PCI compliance".
 */
function heldCertifications(facts: SiteFacts): Array<{ name: string; mention: Mention }> {
  const brands = brandKeys(facts);
  const found = CERTIFICATIONS.flatMap(([name, pattern]) => {
    const mentions = facts.mentions(pattern, { limit: 6 });
    // The site says it need not comply, its provider covering it: the claim elsewhere is the provider's.
    if (mentions.some((mention) => DELEGATED.test(mention.text))) return [];
    // Pages where a sentence gives this certification to another company.
    const another = new Set(
      mentions.filter((mention) => heldByAnother(facts, mention, brands)).map((mention) => mention.url),
    );
    const held = mentions.find(
      (mention) =>
        !SELLS_COMPLIANCE.test(mention.text) &&
        (facts.categoryOf(mention.url) === "security" || HOLDS.test(mention.text)) &&
        !heldByAnother(facts, mention, brands) &&
        (!another.has(mention.url) || speaksForSite(facts, mention.text, brands)),
    );
    return held ? [{ name, mention: held }] : [];
  });
  // A numbered SOC report, when named, says more than "SOC certification" without one.
  return found.some((entry) => entry.name === "SOC 2" || entry.name === "SOC 1 / SOC 3")
    ? found.filter((entry) => entry.name !== "SOC (type not stated)")
    : found;
}

/**
 * "Acme doesn't have to comply with the full PCI spec … because Stripe or PayPal cover most of the requirements",
 * "we are not required to be HIPAA compliant": the standard is met, if at all, by someone else.
 */
const DELEGATED =
  /\b(?:do(?:es)?n['’]?t|do(?:es)? not|need not|no need to|(?:is|are) not required to) (?:have to |need to )?(?:comply|be (?:certified|compliant))\b/i;

/** A sentence in the site's own voice: "we", "our", or one of its names. */
function speaksForSite(facts: SiteFacts, text: string, brands: readonly string[]): boolean {
  if (facts.speaksForItself(text)) return true;
  const lower = text.toLowerCase().replace(/[^a-z0-9 ]/g, "");
  return brands.some((brand) => lower.includes(brand));
}

/** An SLA counted in days or hours: a turnaround ("SLA 3-5 Working Days"), not the product's service level. */
const TURNAROUND_SLA = /\bsla\b\W{0,3}\d+(?:\s?[-–]\s?\d+)?\s?(?:working |business )?(?:days?|hours?|hrs?)\b/i;

export function complianceCertifications(facts: SiteFacts) {
  const assessor = new Assessor();

  const certifications = heldCertifications(facts);
  // Two (often GDPR plus SOC 2) is the median among sites that name any; five is a mature compliance programme.
  const held = certifications.length > 0 ? moreIsBetter(certifications.length, 2, 5) : undefined;
  assessor.signal(
    3,
    held,
    certifications.length > 0
      ? `${plural(certifications.length, "certification or regulation", "certifications or regulations")}: ${certifications.map((entry) => entry.name).join(", ")}${held !== undefined && held < 50 ? ", fewer than the usual 2" : ""}`
      : "no certifications (SOC 2, ISO 27001, HIPAA, GDPR, PCI) or regulator's licence mentioned",
    certifications.slice(0, 4).map((entry) => entry.mention),
  );

  const soc2 = certifications.find((entry) => entry.name === "SOC 2");
  const typeTwo = soc2 ? facts.mentions(/\bsoc ?2 type (ii|2)\b/i, { limit: 1 }) : [];
  if (soc2) {
    assessor.signal(
      1,
      typeTwo.length > 0 ? 95 : 45,
      typeTwo.length > 0 ? "SOC 2 Type II" : "SOC 2 named without its type (Type II is the bar)",
      typeTwo.length > 0 ? typeTwo : [soc2.mention],
    );
  } else {
    assessor.signal(1, undefined, "no SOC 2 report");
  }

  const { page, trustCenter } = securityHome(facts);
  // "Download our SOC 2 Type II report": an access verb and a report in one sentence (anchored lookaheads, linear).
  // The company's own reports: "download our SOC 2 Type II report", "ISO 27001 certificate on request".
  const reports = facts.mentions(
    /\b(soc ?[123]|iso ?\d{4,5}|pci( dss)?|hipaa)( type (ii|2|i|1))?( audit)? (reports?|certificates?|attestations?)\b|^(?=.*\b(download|request|access|view)\b)(?=.*\b(reports?|certificates?|attestations?)\b)(?=.*\b(soc ?[123]|iso ?\d{4,5}|hipaa|pci|attestation)\b)/i,
    { limit: 1 },
  );
  assessor.signal(
    1.5,
    trustCenter ? (reports.length > 0 ? 95 : 85) : reports.length > 0 ? 75 : undefined,
    trustCenter
      ? "a trust centre" + (reports.length > 0 ? " with reports" : "")
      : reports.length > 0
        ? "audit reports available on request"
        : "no trust centre or audit reports",
    [...(trustCenter ? [trustCenter] : []), ...reports],
  );

  assessor.signal(
    1,
    page ? 80 : undefined,
    page ? "a security or compliance page" : "no security or compliance page crawled",
    page ? [page] : [],
  );

  // An audited certification or a licence takes an outside audit and months to earn; most compliance readings are a
  // "GDPR compliant" line, an afternoon's work. Framework 2.8.0 weighs the first like openings and dated news (and,
  // since 2.12.0, like a body of customer proof).
  const audited =
    soc2 && typeTwo.length > 0 ? "SOC 2 Type II" : certifications.find((entry) => AUDITED.has(entry.name))?.name;
  const done = assessor.done(
    certifications.length === 0
      ? "Name the certifications held (SOC 2 Type II, ISO 27001) on a security page."
      : "Publish a trust centre where customers can request the SOC 2 Type II and ISO 27001 reports.",
  );
  if (!audited) return done;
  const why = `${audited.charAt(0).toUpperCase()}${audited.slice(1)} takes an outside audit and months to earn, so this dimension weighs in the total like openings and dated news.`;
  return { ...done, weighsAs: { cost: "costly" as const, why } };
}

/** A privacy policy's own address: /privacy, /privacy-policy, /legal/privacy-notice, /privacy-and-cookies-policy. */
const POLICY_PATH =
  /\/(?:data[-_])?privacy(?:[-_](?:policy|notice|statement)|[-_]and[-_]cookies?(?:[-_]policy)?)?(?:\.html?|\.php)?\/?$/i;
/** A link text that names the policy itself: "Privacy", "Privacy Policy", "Data Privacy Notice", "Privacy & Cookies". */
const POLICY_TEXT =
  /^\s*(?:our |the )?(?:data )?privacy(?: (?:policy|notice|statement))?(?: ?(?:&|and) ?cookies?(?: policy)?)?\s*$/i;
/** A heading that opens the policy itself: "Privacy Policy", "Privacy Notice". */
const POLICY_HEADING = /^(?:our |the )?privacy (?:policy|notice|statement)$/i;
/** A placeholder where the policy should be. */
const NO_POLICY_YET = /\b(coming soon|under construction|work in progress|to be (published|announced))\b/i;

/** A crawled page that holds a policy: more than a heading, and not a "policy coming soon" placeholder. */
function holdsPolicy(page: { text: string }): boolean {
  const length = page.text.trim().length;
  return length >= 400 && !(length < 1_500 && NO_POLICY_YET.test(page.text));
}

/**
 * The site's privacy policy: a crawled privacy page that holds one (a privacy page with only its
 * heading, or "policy coming soon", is none), else a link to one not crawled, on the site's own
 * domain at a policy's address or named as the policy ("Privacy Policy"). A link to a press article
 * or paper with "privacy" in its address is not the site's policy.
 */
function privacyPolicy(facts: SiteFacts): { page?: Evidence; link?: { url: string; text: string } } {
  const privacyPages = [
    ...facts.pagesIn("privacy").filter((page) => /privacy/i.test(page.url) || /privacy/i.test(page.title)),
    ...facts.pagesIn("other").filter((page) => page !== facts.home && POLICY_PATH.test(new URL(page.url).pathname)),
    // A legal page that carries the policy as a section ("/legal" with a "Privacy Policy" heading).
    ...facts
      .pagesIn("other")
      .filter(
        (page) =>
          page !== facts.home &&
          page.headings.some((heading) => heading.level <= 2 && POLICY_HEADING.test(heading.text.trim())),
      ),
  ];
  const page = privacyPages.find(holdsPolicy);
  if (page) return { page: { url: page.url, text: `privacy policy: ${page.title || page.url}` } };
  const crawled = new Set(facts.pages.map((candidate) => candidate.url));
  const [link] = facts.linksMatching(/\bprivacy([- _]policy|[- _]notice|[- _]statement)?\b/i).filter((candidate) => {
    if (crawled.has(candidate.url)) return false;
    if (POLICY_TEXT.test(candidate.text)) return true;
    const url = onOwnDomain(facts, candidate.url);
    return url !== undefined && POLICY_PATH.test(url.pathname);
  });
  return { link };
}

/** A DPA named only as a condition: "unless we have entered into a DPA", "where you have signed a DPA with us". */
const DPA_CONDITIONAL =
  /\b(unless|except (where|if|when)|(if|where|when) (we|you|the parties|the customer) (have|has) (entered|signed|concluded|executed|agreed))\b[^.]{0,60}\b(data processing (agreement|addendum)|dpa)\b/i;

export function dataPrivacy(facts: SiteFacts) {
  const assessor = new Assessor();

  const { page: policyPage, link: policyLink } = privacyPolicy(facts);
  assessor.signal(
    2,
    policyPage ? 85 : policyLink ? 65 : undefined,
    policyPage ? "a privacy policy" : policyLink ? "a privacy policy linked (not crawled)" : "no privacy policy found",
    policyPage
      ? [policyPage]
      : policyLink
        ? [{ url: policyLink.url, text: `privacy policy linked as "${policyLink.text}"` }]
        : [],
  );

  // A DPA offered, not a template clause about one that may exist: "unless we have entered into a data
  // processing agreement with you" says nothing of whether the company signs one.
  const dpa = facts
    .mentions(/\b(data processing (agreement|addendum)|dpa)\b/i, { limit: 3 })
    .filter((mention) => !DPA_CONDITIONAL.test(mention.text))
    .slice(0, 1);
  const [dpaLink] = dpa.length > 0 ? [] : facts.linksMatching(/\/dpa\b|\bdata processing (agreement|addendum)\b/i);
  present(
    assessor,
    1.5,
    dpaLink ? [{ url: dpaLink.url, text: `DPA linked: ${dpaLink.text}` }] : dpa,
    85,
    "a data processing agreement (DPA)",
    "no DPA offered",
  );

  // A list: a page or link, or a sentence that lists or publishes them; a policy's "we share data with
  // third-party sub-processors" says they exist, not who they are.
  const subprocessors = facts.mentions(
    /\b(list of (our |all |current |the )*sub[- ]?processors|sub[- ]?processors? (list|page)|(our|the) (current )?sub[- ]?processors (are|include)|(the )?following sub[- ]?processors|sub[- ]?processors (we use|used by)|(publish|maintain|see|view|find|lists?)\b[^.]{0,30}\bsub[- ]?processors)\b/i,
    { limit: 1 },
  );
  const [subLink] = subprocessors.length > 0 ? [] : facts.linksMatching(/\bsub[- ]?processors?\b/i);
  present(
    assessor,
    1.5,
    subLink ? [{ url: subLink.url, text: `subprocessor list linked: ${subLink.text}` }] : subprocessors,
    85,
    "a subprocessor list",
    "no subprocessor list",
  );

  present(
    assessor,
    1,
    facts.mentions(
      /\b(data retention|retention (period|policy|schedule)s?|retention and deletion|(keep|retain|store)s? (your |the |all )?(personal |customer )?(\w+ ){0,2}(data|information)\b[^.]{0,40}\b(as long as|for a period|no longer than|until)|retain (your |personal |customer )?data|delete (your|all) (\w+ ){0,2}(data|information|account)|delete it or (make it )?(anonymous|anonymi[sz]e)|deletion (requests?|of (your |personal )?data)|(right to|request) (erasure|be forgotten|deletion)|deleted within \d{1,4} days|can be deleted\b[^.]{0,60}\bwithin \d{1,4} (days|hours))\b/i,
      { limit: 1 },
    ),
    80,
    "data retention and deletion terms",
    "no retention or deletion terms",
  );

  present(
    assessor,
    1,
    facts.mentions(
      /\b(data residency|data (is |are )?(stored|hosted|processed) (exclusively |only )?in (the )?(eu|us|uk|europe|european union|united states|germany|canada|australia)|(personal )?data\b[^.]{0,80}\b(stored|hosted|processed|kept)\b[^.]{0,30}\bin (the )?(eu|uk|europe|european union|united states|germany|france|ireland|the netherlands|switzerland|canada|australia|japan|singapore|taiwan|india)|eu (data centers?|data centres?|region|hosting)|(choose|select) (your|a|the) (data )?(region|location))\b/i,
      { limit: 1 },
    ),
    85,
    "data residency options",
    "no data residency stated",
  );

  return assessor.done(
    policyPage === undefined && policyLink === undefined
      ? "Publish a privacy policy, then a DPA and a subprocessor list."
      : "Offer what privacy reviews ask for: a signable DPA, a subprocessor list, retention and deletion terms, data residency.",
  );
}

export function enterpriseReadiness(facts: SiteFacts) {
  const assessor = new Assessor();

  present(
    assessor,
    2,
    facts.mentions(/\b(sso|single sign[- ]on|saml|okta|azure ad|entra id|oidc|openid connect)\b/i, { limit: 1 }),
    85,
    "SSO / SAML",
    "no SSO or SAML",
  );
  present(
    assessor,
    1,
    facts.mentions(/\b(scim|directory sync|automated (user )?provisioning|user provisioning)\b/i, { limit: 1 }),
    90,
    "SCIM provisioning",
    "no SCIM or directory sync",
  );
  present(
    assessor,
    1.5,
    // A plan row's "Activity log" is the same record by its product name.
    facts.mentions(/\b(audit (logs?|trails?|logging)|activity logs?)\b/i, { limit: 1 }),
    85,
    "audit logs",
    "no audit logs",
  );
  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(rbac|role[- ]based (access|permissions)|roles and permissions|granular permissions|custom roles|permission levels|(user|team|team member|member) (roles|permissions)|(admin|administrator) or read[- ]only (rights|access|roles?|permissions))\b/i,
      { limit: 1 },
    ),
    80,
    "role-based access control",
    "no role-based access control",
  );

  const plan = facts.mentions(
    /\b(enterprise (plans?|tiers?|editions?|pricing|licen[cs]es?)|contact (sales|us) for enterprise|talk to sales|custom (plans?|contracts?|terms|pricing))\b/i,
    { limit: 1 },
  );
  // Or the pricing page's plan named "Enterprise": a tier pricing counts, or a plan column's name on a line of its own.
  const tier = plan.length > 0 ? plan : enterpriseTier(facts);
  const named = tier.length > 0 ? tier : facts.mentions(/^enterprise$/i, { in: ["pricing"], limit: 1 });
  // Or a plan for large customers under another name, priced on request (framework 2.11.0).
  const column = named.length > 0 ? named : customTier(facts);
  present(assessor, 1.5, column, 80, "an enterprise plan", "no enterprise plan");
  present(
    assessor,
    1,
    facts
      .mentions(
        /\b(sla|service level agreements?|uptime (guarantee|commitment)|99\.9{1,4}% (uptime|availability))\b/i,
        {
          limit: 3,
        },
      )
      // "SLA 3-5 Working Days" is a delivery turnaround, not a service level for the product.
      .filter((mention) => !TURNAROUND_SLA.test(mention.text))
      .slice(0, 1),
    85,
    "an SLA",
    "no SLA offered",
  );
  present(
    assessor,
    0.75,
    facts.mentions(
      /\b(self[- ]host(ed|ing)?|host (it|\w+) (yourself|myself)|on[- ]prem(ise|ises)?|private cloud|your (own )?vpc|dedicated (instance|tenant|infrastructure)|single[- ]tenant)\b/i,
      { limit: 1 },
    ),
    85,
    "self-hosted or dedicated deployment",
    "no self-hosted or dedicated deployment",
  );

  return assessor.done(
    "List the enterprise controls in one place (SSO/SAML, SCIM, audit logs, roles) with an enterprise plan and SLA.",
  );
}

export const trustEnterpriseRules = {
  security_posture: securityPosture,
  compliance_certifications: complianceCertifications,
  data_privacy: dataPrivacy,
  enterprise_readiness: enterpriseReadiness,
} satisfies RuleSet;
