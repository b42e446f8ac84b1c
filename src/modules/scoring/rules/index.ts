import { dataAiEconomicsRules } from "./data-ai-economics.js";
import { engineeringDeliveryRules } from "./engineering-delivery.js";
import { growthOrganizationRules } from "./growth-organization.js";
import { marketStrategyRules } from "./market-strategy.js";
import { productExperienceRules } from "./product-experience.js";
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
