import type { PageCategory } from "../crawl/page-priority.js";
import type { DimensionId } from "./scoring.types.js";

/**
 * Whether a sentence may stand as evidence for a dimension (docs/api.md §12: evidence is
 * about its dimension). A rule's keyword can hit a sentence that is about something
 * else: a privacy policy's "when you sign up" is not onboarding, a job ad's
 * "knowledge of distributed systems" is not architecture, a bare "FAQ" is not
 * customer success. Such a sentence is neither quoted nor counted, for every rule
 * of the dimension at once: SiteFacts.about(dimension) applies this to each
 * sentence its mentions read. Measured against a labelled set of the calibration
 * corpus's sentences (calibration/evidence-labels.tsv, `npm run calibrate`).
 */

export interface SentenceSource {
  readonly url: string;
  readonly category: PageCategory;
  /** The home page (its category is "other", but it speaks for the whole product). */
  readonly home?: boolean;
}

/** Privacy policies, terms, cookie notices, disclaimers, imprints: legal text, read for data privacy only. */
export const LEGAL_PATH =
  /\/(?:terms|tos|terms-of-(?:service|use)|terms-and-conditions|conditions|legal|disclaimer|cookies?|cookie-policy|privacy|privacy-policy|privacy-notice|eula|imprint|impressum|policies|gtc|agb)(?=[/.?#_-]|$)/i;
/** A job ad's lines: requirements and duties of a role, not what the company does. */
const JOB_AD_LINE =
  /^(?:\d+\.\s*)?(?:familiarity|knowledge|experience|proficien(?:t|cy)|fluent (?:in|english)|bachelor|master'?s|degree|responsib\w*|(?:minimum |preferred )?qualifications|requirements|nice to have|bonus points|you (?:will|have|are)|you'll|we'?re looking for|what you'?ll|about the role|strong (?:knowledge|understanding|experience)|ability to|excellent (?:written|communication|writing)|pay attention to|follow the|have a strong)\b/i;

/** Documentation is read for its code samples: "import Acme", "brew install acme" are what it shows. */
const CODE_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["documentation_quality"]);
/** Dimensions whose evidence lives in legal text or job ads by nature. */
const LEGAL_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["data_privacy"]);
const HIRING_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["talent_organization"]);
/**
 * What a careers page can evidence: the team, and the company's story told to applicants, its backers and history
 * ("we are supported by Mosaic and BlueYard, two of the best VCs in Europe": framework 2.9.0).
 */
const CAREERS_PAGE_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["talent_organization", "company_momentum"]);
/**
 * Dimensions whose evidence can be a label of two words or fewer ("SOC 2 Type II",
 * "$49/month", "Staff Engineer"); elsewhere such a fragment is a button or a menu
 * entry ("Get Started", "FAQ", "Open Source") that evidences nothing.
 */
const LABEL_DIMENSIONS: ReadonlySet<DimensionId> = new Set([
  "pricing_packaging",
  "compliance_certifications",
  // A policy's section headings: "Data Retention", "Subprocessors".
  "data_privacy",
  "talent_organization",
  "integration_ecosystem",
]);

/**
 * What a blog post or a news item can evidence: the company's news, reach, research, releases and
 * engineering. A post's sentence about a practice ("backups", "an API", "templates") is usually about
 * the reader's work or another vendor's product, not the company's own practice.
 */
const BLOG_DIMENSIONS: ReadonlySet<DimensionId> = new Set([
  "growth_distribution",
  "company_momentum",
  "delivery_velocity",
  "market_intelligence",
  "customer_proof",
  "ai_capability_depth",
  "model_strategy",
  "data_strategy_flywheel",
]);
/** What a customer story can evidence: the customers, who they are, what they got. Their continuity or security is theirs. */
const CUSTOMER_STORY_DIMENSIONS: ReadonlySet<DimensionId> = new Set([
  "customer_proof",
  "target_segments",
  "value_proposition",
  "customer_success",
  "company_momentum",
  "growth_distribution",
  "integration_ecosystem",
  "ai_capability_depth",
]);
/** What a connector or integration page can evidence: the integration, and what it lets users do. Its sentences describe another company's product. */
const INTEGRATION_PAGE_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["integration_ecosystem", "developer_platform"]);
/** What a security or trust page can evidence: the company's own security, compliance, privacy, reliability and architecture (its security contact is not customer support). */
const SECURITY_PAGE_DIMENSIONS: ReadonlySet<DimensionId> = new Set([
  "security_posture",
  "compliance_certifications",
  "data_privacy",
  "enterprise_readiness",
  "reliability_operations",
  "architecture_systems",
  "ai_governance",
]);
/**
 * Pages that, read on the calibration corpus, evidenced nothing for a dimension (the labelled set's
 * pages by category): a docs page's "deploy in minutes" is a how-to, not architecture; an about page's
 * history is not customer proof; a product page's "get started" is a button, not onboarding.
 */
const OFF_TOPIC: Partial<Record<DimensionId, ReadonlySet<PageCategory>>> = {
  onboarding_activation: new Set(["other", "about", "customers", "blog"]),
  architecture_systems: new Set(["docs", "about", "api_reference"]),
  customer_proof: new Set(["about"]),
  target_segments: new Set(["docs", "other", "api_reference"]),
  enterprise_readiness: new Set(["docs", "other", "blog"]),
  company_momentum: new Set(["other", "docs"]),
  experience_design: new Set(["docs", "api_reference"]),
  growth_distribution: new Set(["other", "about", "docs", "customers"]),
};
/** A line of code in the docs ("var menu = Menus.addMenu(…);"). */
const CODE = /[;{}]\s*$|^\s*(?:var|let|const|function|class|import|export|return)\b|[=(){};].*[=(){};].*[=(){};]/;
/** A person's bio ("He has been a contributor since 2007", "Later she took a role as …"): about talent, not the company's practice. */
const BIO =
  /^(?:\w+\s+){0,3}(?:he|she)\b|\b(?:his|her)\s+(?:role|career|experience|background|work)\b|\bwhere (?:he|she)\b|\b(?:he|she) (?:was|is|has|had|joined|worked|led|developed|holds|spent)\b|\b(?:is|was) an? (?:\w+ )?(?:developer|engineer|designer|consultant) with\b/i;
/** Menu and product-list labels: every word capitalised (or "&"), no sentence ("Threat Detection & Response", "Contribute API Docs Blog"). */
const LABEL = /^(?:(?:[A-Z0-9][\w'’.+-]*|&|\||\/|-)\s*){3,10}$/;

const words = (sentence: string): number => sentence.trim().split(/\s+/).filter(Boolean).length;

/** What a sentence is, whatever the dimension: read once per sentence (SiteFacts caches it), used by every dimension's check. */
export interface SentenceTraits {
  /** A job ad's line or a person's bio. */
  readonly hiring: boolean;
  /** Two words or fewer, a label, or a list of labels ("A | B"). */
  readonly fragment: boolean;
  /** A line of code. */
  readonly code: boolean;
}

export function traitsOf(sentence: string): SentenceTraits {
  const text = sentence.trim();
  return {
    hiring: JOB_AD_LINE.test(text) || BIO.test(text),
    fragment: words(text) <= 2 || LABEL.test(text) || / \| /.test(text),
    code: CODE.test(text),
  };
}

/** Whether any sentence of this page may evidence the dimension (its address and category alone rule some pages out). */
export function pageQuotable(dimension: DimensionId, source: SentenceSource): boolean {
  const path = pathOf(source.url);
  // A legal page's security section is read as a security page (SiteFacts): its category says so, not its address.
  if (
    !LEGAL_DIMENSIONS.has(dimension) &&
    (source.category === "privacy" || (LEGAL_PATH.test(path) && source.category !== "security"))
  )
    return false;
  if (!CAREERS_PAGE_DIMENSIONS.has(dimension) && source.category === "careers") return false;
  if (!BLOG_DIMENSIONS.has(dimension) && (source.category === "blog" || DATED_POST.test(path))) return false;
  if (!CUSTOMER_STORY_DIMENSIONS.has(dimension) && source.category === "customers") return false;
  if (!INTEGRATION_PAGE_DIMENSIONS.has(dimension) && source.category === "integrations") return false;
  if (!SECURITY_PAGE_DIMENSIONS.has(dimension) && source.category === "security") return false;
  if (!source.home && OFF_TOPIC[dimension]?.has(source.category)) return false;
  return true;
}

/** Whether a sentence of a page that pageQuotable admits may evidence the dimension. */
/**
 * Whether a sentence of this kind may evidence the dimension. A fragment on a pricing page is a row of
 * its plan table ("SSO", "MSA/SLA", "On Premise", "Enterprise"), not a menu entry: the page's menus are
 * set apart as navigation or repeated text before this is read, so every dimension reads those rows.
 */
export function sentenceQuotable(dimension: DimensionId, traits: SentenceTraits, category?: PageCategory): boolean {
  if (traits.hiring && !HIRING_DIMENSIONS.has(dimension)) return false;
  if (CODE_DIMENSIONS.has(dimension)) return true;
  if (traits.fragment && !LABEL_DIMENSIONS.has(dimension) && category !== "pricing") return false;
  return !traits.code;
}

export function quotable(dimension: DimensionId, source: SentenceSource, sentence: string): boolean {
  return pageQuotable(dimension, source) && sentenceQuotable(dimension, traitsOf(sentence), source.category);
}

/** A dated post's address ("/2016-04-01-…", "/2014/06/17/…", "/blog/…"). */
const DATED_POST = /\/(?:19|20)\d\d[/-]\d\d[/-]|\/(?:blog|news|posts?|articles?|tags?|categories)\/[^/]+/i;

/** A URL's path and query ("/" for a bare origin). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1 ? "/" : url.slice(start);
}
