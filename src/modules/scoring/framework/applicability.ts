import type { DimensionId } from "../scoring.types.js";
import type { SiteProfile } from "../site-profile.js";

/**
 * Framework 2.0: what silence means, per dimension. When a site shows nothing
 * for a dimension, either that absence is itself a sign of an early stage (a
 * commercial product with no pricing page, no privacy policy, no docs), or the
 * dimension does not apply to what the site sells (AI governance for a product
 * that sells no AI; pricing or a status page for an open-source project) or is
 * simply not observable from outside (competitive intelligence). A dimension
 * that does not apply weighs little in the total and is never a strength or gap.
 */
export type Silence =
  { readonly means: "early"; readonly why: string } | { readonly means: "not_applicable"; readonly why: string };

const AI_DIMENSIONS: ReadonlySet<DimensionId> = new Set([
  "ai_capability_depth",
  "model_strategy",
  "ai_governance",
  "cost_token_economics",
  "data_strategy_flywheel",
]);
/** What an open-source project with no commercial offer has no reason to publish. */
const COMMERCIAL_ONLY: ReadonlySet<DimensionId> = new Set([
  "pricing_packaging",
  "compliance_certifications",
  "enterprise_readiness",
  "reliability_operations",
  "talent_organization",
]);
/**
 * What a product sold through a sales conversation (no prices, a sales path) has no reason to publish:
 * a regulated vendor, a services firm or an enterprise platform onboards each customer by hand and
 * documents under contract, so public docs, a changelog and a self-serve start are not expected.
 */
const SELF_SERVE_ONLY: ReadonlySet<DimensionId> = new Set([
  "documentation_quality",
  "developer_platform",
  "delivery_velocity",
  "onboarding_activation",
  "customer_success",
]);
/**
 * What a business that sells no software (an underwriter, a law firm, a shop) has no reason to publish. A
 * security page (encryption, penetration tests, a disclosure policy) and a users' forum or Discord describe a
 * product people log in to (framework 2.8.0); a privacy policy is owed by any business, so it is not here.
 */
const SOFTWARE_ONLY: ReadonlySet<DimensionId> = new Set([
  "integration_ecosystem",
  "reliability_operations",
  "enterprise_readiness",
  "developer_platform",
  "documentation_quality",
  "delivery_velocity",
  "onboarding_activation",
  "security_posture",
  "community_ecosystem",
]);
/** Rarely public even at mature companies: silence says nothing about the stage. */
const NOT_OBSERVABLE: ReadonlySet<DimensionId> = new Set(["market_intelligence", "architecture_systems"]);

/**
 * AI practice read on a site that sells no AI is a false reading: "choose the
 * pricing model", "customer feedback loops", "fine-tune your campaigns". Such a
 * dimension is scored as if the site were silent on it (it does not apply).
 */
export function excusedDespiteReadings(dimension: DimensionId, profile: SiteProfile): boolean {
  return AI_DIMENSIONS.has(dimension) && !profile.sellsAi;
}

export function whenSilent(dimension: DimensionId, profile: SiteProfile): Silence {
  if (excusedDespiteReadings(dimension, profile))
    return { means: "not_applicable", why: `it does not apply: ${profile.because.ai}` };
  if (COMMERCIAL_ONLY.has(dimension) && profile.openSource)
    return { means: "not_applicable", why: `it does not apply: ${profile.because.openSource}` };
  if (dimension === "pricing_packaging" && profile.salesLed)
    return { means: "not_applicable", why: `it does not apply: ${profile.because.salesLed}` };
  if (SELF_SERVE_ONLY.has(dimension) && profile.salesLed) {
    return {
      means: "not_applicable",
      why: `it does not apply: ${profile.because.salesLed.replace("where published prices are not expected", "where public docs, changelogs and self-serve starts are not expected")}`,
    };
  }
  if (SOFTWARE_ONLY.has(dimension) && !profile.sellsSoftware)
    return { means: "not_applicable", why: `it does not apply: ${profile.because.software}` };
  if (NOT_OBSERVABLE.has(dimension))
    return {
      means: "not_applicable",
      why: "mature companies often keep this to themselves, so its absence from the site says nothing about the stage",
    };
  if (AI_DIMENSIONS.has(dimension))
    return { means: "early", why: `${profile.because.ai}, yet says nothing about this` };
  return {
    means: "early",
    why: profile.openSource
      ? "an established project usually shows this"
      : "an established product usually shows this on its site",
  };
}
