import { dataAiEconomicsRules } from "./data-ai-economics.js";
import { engineeringDeliveryRules } from "./engineering-delivery.js";
import { growthOrganizationRules } from "./growth-organization.js";
import { marketStrategyRules } from "./market-strategy.js";
import { productExperienceRules } from "./product-experience.js";
import type { DimensionId } from "../scoring.types.js";
import type { RuleSet } from "./rule.js";
import { trustEnterpriseRules } from "./trust-enterprise.js";

/** Every dimension's rule, by pillar. */
export const allRules: RuleSet = {
  ...marketStrategyRules,
  ...productExperienceRules,
  ...engineeringDeliveryRules,
  ...dataAiEconomicsRules,
  ...trustEnterpriseRules,
  ...growthOrganizationRules,
};

/**
 * The dimensions whose weight in the total follows the evidence found (`weighsAs`): an audited certification makes
 * compliance costly (2.8.0), a delivery record under a year makes delivery moderate (2.9.0), a body of customer proof
 * makes customer proof costly (2.12.0). The LLM scorer runs these rules for their weight alone.
 */
export const weighedByEvidence: readonly DimensionId[] = [
  "customer_proof",
  "delivery_velocity",
  "compliance_certifications",
];
