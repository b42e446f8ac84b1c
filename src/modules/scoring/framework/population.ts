import type { DimensionId } from "../scoring.types.js";

/**
 * Framework 2.0 curves, in the manner of Lighthouse (whose control points come
 * from HTTP Archive): each dimension's evidence strength (its rule's 0–100
 * reading, signals not found counting as 0) maps onto the score through a
 * log-normal curve whose median scores 50 and whose 90th percentile scores 90.
 * The control points are the distribution over the sites that showed anything
 * for the dimension, measured on the FIT half of the real-site calibration
 * corpus only (`npm run calibrate -- --fit` prints them), so the held-out half
 * stays a fair test.
 */
export const populationCurves: Readonly<Record<DimensionId, readonly [median: number, p90: number]>> = {
  market_intelligence: [20, 45],
  value_proposition: [25, 55],
  target_segments: [20, 50],
  customer_proof: [20, 50],
  pricing_packaging: [40, 75],
  experience_design: [25, 50],
  onboarding_activation: [25, 55],
  ai_capability_depth: [20, 50],
  integration_ecosystem: [20, 50],
  developer_platform: [15, 45],
  delivery_velocity: [25, 60],
  architecture_systems: [15, 40],
  reliability_operations: [20, 50],
  documentation_quality: [20, 50],
  data_strategy_flywheel: [20, 50],
  cost_token_economics: [20, 50],
  model_strategy: [20, 50],
  ai_governance: [20, 50],
  security_posture: [20, 45],
  compliance_certifications: [20, 50],
  data_privacy: [20, 45],
  enterprise_readiness: [20, 50],
  growth_distribution: [20, 50],
  community_ecosystem: [20, 50],
  customer_success: [20, 50],
  talent_organization: [20, 50],
  company_momentum: [20, 50],
};
