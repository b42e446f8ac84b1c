import type { PageCategory } from "../crawl/page-priority.js";
import type { DimensionId } from "./scoring.types.js";

/**
 * Whether a sentence may stand as evidence for a dimension (DESIGN §12: evidence is
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
}

/** Privacy policies, terms, cookie notices, disclaimers, imprints: legal text, read for data privacy only. */
const LEGAL_PATH = /\/(?:terms|tos|terms-of-(?:service|use)|terms-and-conditions|conditions|legal|disclaimer|cookies?|cookie-policy|privacy|privacy-policy|privacy-notice|eula|imprint|impressum|policies|gtc|agb)(?=[/.?#_-]|$)/i;
/** A job ad's lines: requirements and duties of a role, not what the company does. */
const JOB_AD_LINE =
  /^(?:\d+\.\s*)?(?:familiarity|knowledge|experience|proficien|fluen|bachelor|master'?s|degree|responsib|(?:minimum |preferred )?qualifications|requirements|nice to have|bonus points|you (?:will|have|are)|you'll|we'?re looking for|what you'?ll|about the role|strong (?:knowledge|understanding|experience)|ability to|excellent (?:written|communication|writing)|pay attention to|follow the|have a strong)\b/i;

/** Dimensions whose evidence lives in legal text or job ads by nature. */
const LEGAL_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["data_privacy"]);
const HIRING_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["talent_organization"]);
/**
 * Dimensions whose evidence can be a label of two words or fewer ("SOC 2 Type II",
 * "$49/month", "Staff Engineer"); elsewhere such a fragment is a button or a menu
 * entry ("Get Started", "FAQ", "Open Source") that evidences nothing.
 */
const LABEL_DIMENSIONS: ReadonlySet<DimensionId> = new Set(["pricing_packaging", "compliance_certifications", "talent_organization", "integration_ecosystem"]);

const words = (sentence: string): number => sentence.trim().split(/\s+/).filter(Boolean).length;

export function quotable(dimension: DimensionId, source: SentenceSource, sentence: string): boolean {
  if (!LEGAL_DIMENSIONS.has(dimension) && (source.category === "privacy" || LEGAL_PATH.test(pathOf(source.url)))) return false;
  if (!HIRING_DIMENSIONS.has(dimension) && (source.category === "careers" || JOB_AD_LINE.test(sentence.trim()))) return false;
  if (!LABEL_DIMENSIONS.has(dimension) && words(sentence) <= 2) return false;
  return true;
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1 ? "/" : url.slice(start);
}
