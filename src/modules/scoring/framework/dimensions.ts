import type { DimensionId, EvidenceCost, PillarId } from "../scoring.types.js";

/**
 * The 27 dimensions as data: what each measures and the public signals that
 * evidence it. The heuristic rules (rules/*.ts) implement these signals; the LLM
 * scorer receives this text as its rubric. `prior` is where a dimension sits when
 * the site shows nothing about it (docs/api.md §1: low confidence, near the prior).
 * Priors are low on purpose (framework 2.0: 5 for all): where a dimension applies, a
 * mature product leaves public traces of it, so showing nothing is a sign of an early
 * stage; where it does not apply (framework/applicability.ts) it weighs little.
 */
export interface DimensionDefinition {
  readonly id: DimensionId;
  readonly name: string;
  readonly pillar: PillarId;
  readonly measures: string;
  readonly signals: readonly string[];
  readonly prior: number;
  /** What the evidence costs a company to show truthfully (framework 2.0): how much the dimension weighs in the total. */
  readonly evidenceCost: EvidenceCost;
}

/**
 * Framework 2.0 weighs a dimension by what its public evidence costs to produce,
 * as an analyst does: a headline, a privacy policy, a sign-up button or a claimed
 * certification take an afternoon to write and say little about a company's stage;
 * named customers, open roles, years of dated news, a dated changelog, real docs
 * and support take years to accumulate. Each class weighs four times the one below
 * (the time each takes to show differs by far more than twice): costly 4, moderate 1,
 * cheap 0.25 (times the pillar weight and the confidence weight). Community and
 * architecture are moderate: what a site can show of them (a Discord or forum linked,
 * GitHub links, a stack named, engineering posts) takes days to put up, not years.
 * Documentation is moderate too (framework 2.2.0): a developer-tool startup writes
 * full docs in its first months (a generated API reference, a quickstart, guides), so
 * on real sites docs said little about a company's stage (Spearman ρ 0.11 with the
 * judgments of 27 commercial sites, against 0.5–0.6 for openings and dated news).
 * Customer success is moderate (framework 2.5.0): read correctly, what a site shows of
 * it is a support address, an FAQ or "priority support" on a plan, an afternoon's work
 * for a company of any age (ρ 0.13 with the judgments once its readings were fixed);
 * a help centre with SLAs is rare on any site. Delivery stays costly because its rule
 * now also reads how long the changelog has been kept, not only its last quarter.
 * Customer proof is moderate by default (framework 2.12.0): a product's first users
 * give it a logo strip, a few signed quotes and a first case study within months, and
 * that is what an early product shows. A body of proof takes years: at least three case
 * studies, a stated base of a thousand customers, or six signed testimonials (the
 * rule's own norms). Then the rule weighs the dimension as costly (`weighsAs`), as
 * compliance does for an audited certification.
 */
export type { EvidenceCost };
export const evidenceCostWeight: Readonly<Record<EvidenceCost, number>> = { costly: 4, moderate: 1, cheap: 0.25 };

const COSTLY: ReadonlySet<DimensionId> = new Set(["talent_organization", "company_momentum", "delivery_velocity"]);
const CHEAP: ReadonlySet<DimensionId> = new Set([
  "value_proposition",
  "experience_design",
  "onboarding_activation",
  "pricing_packaging",
  "reliability_operations",
  "security_posture",
  "compliance_certifications",
  "data_privacy",
  "ai_capability_depth",
  "model_strategy",
  "ai_governance",
  "cost_token_economics",
  "data_strategy_flywheel",
  // Framework 2.2.0: a public API with SDKs and a list of integrations are what a developer-tool startup ships in its
  // first months; on the 27 commercial corpus sites they did not track the judged stage (ρ −0.22 and 0.15).
  "developer_platform",
  "integration_ecosystem",
]);

const d = (
  id: DimensionId,
  name: string,
  pillar: PillarId,
  measures: string,
  signals: string[],
  prior = 5,
): DimensionDefinition => ({
  id,
  name,
  pillar,
  measures,
  signals,
  prior,
  evidenceCost: COSTLY.has(id) ? "costly" : CHEAP.has(id) ? "cheap" : "moderate",
});

export const dimensions: readonly DimensionDefinition[] = [
  d(
    "market_intelligence",
    "Market Intelligence",
    "market_strategy",
    "How well the company understands its market and competitors.",
    [
      "comparison or alternatives pages (vs competitors)",
      "industry reports, benchmarks or research published",
      "positioning against named categories",
    ],
  ),
  d(
    "value_proposition",
    "Value Proposition",
    "market_strategy",
    "How clearly the product states who it is for and what outcome it delivers.",
    [
      "a specific headline and meta description",
      'quantified outcomes ("cut costs 38%")',
      "a clear problem → solution narrative on the home page",
    ],
  ),
  d(
    "target_segments",
    "Target Segments",
    "market_strategy",
    "How deliberately the product addresses defined customer segments.",
    ["solutions pages by industry, role or company size", "plan names mapped to segments (startup, team, enterprise)"],
  ),
  d("customer_proof", "Customer Proof", "market_strategy", "Evidence that real customers use and value the product.", [
    "named customers and logos",
    "case studies with numbers",
    "testimonials with names and roles",
    "review-site ratings",
  ]),
  d("pricing_packaging", "Pricing & Packaging", "market_strategy", "How mature and transparent pricing is.", [
    "a pricing page with prices",
    "number of tiers",
    "free plan or trial",
    "usage units",
    "annual discount",
    "enterprise tier",
  ]),
  d(
    "experience_design",
    "Experience Design",
    "product_experience",
    "The care evident in the product's experience and its presentation.",
    [
      "product screenshots or demos",
      "accessibility statement",
      "design system or UI kit",
      "consistent navigation and titles",
    ],
  ),
  d(
    "onboarding_activation",
    "Onboarding & Activation",
    "product_experience",
    "How quickly a new user can start and reach value.",
    [
      "self-serve sign-up or free trial",
      "quickstart or getting-started guide",
      "templates, sample data, interactive demo",
    ],
  ),
  d(
    "ai_capability_depth",
    "AI Capability Depth",
    "product_experience",
    "How deep and specific the product's AI capabilities are.",
    [
      "concrete AI features (agents, copilots, generation, classification)",
      "evaluation or accuracy figures",
      "AI beyond buzzwords",
    ],
  ),
  d(
    "integration_ecosystem",
    "Integration Ecosystem",
    "product_experience",
    "How well the product connects to the tools customers use.",
    [
      "integrations directory",
      "number of named integrations",
      "marketplace or app store listings",
      "Zapier/Make connectors",
    ],
  ),
  d("developer_platform", "Developer Platform", "product_experience", "How much developers can build on the product.", [
    "public API and reference",
    "SDKs",
    "webhooks",
    "OpenAPI spec",
    "CLI",
    "sandbox or test keys",
  ]),
  d("delivery_velocity", "Delivery Velocity", "engineering_delivery", "How often and how recently the product ships.", [
    "changelog or release notes",
    "entries in the last 90 days",
    "recency of the newest entry",
  ]),
  d(
    "architecture_systems",
    "Architecture & Systems",
    "engineering_delivery",
    "Evidence of sound, scalable architecture.",
    ["architecture or engineering blog posts", "regions, scalability, performance figures", "open-source components"],
  ),
  d(
    "reliability_operations",
    "Reliability & Operations",
    "engineering_delivery",
    "How reliably the product is run and how openly.",
    ["status page", "uptime SLA", "incident history or post-mortems", "uptime figures"],
  ),
  d(
    "documentation_quality",
    "Documentation Quality",
    "engineering_delivery",
    "Breadth and quality of public documentation.",
    ["docs site", "number of docs pages", "API reference", "guides and tutorials", "search, versioning"],
  ),
  d(
    "data_strategy_flywheel",
    "Data Strategy & Flywheel",
    "data_ai_economics",
    "Whether usage improves the product through data.",
    [
      "feedback loops (the product learns from usage)",
      "proprietary data or benchmarks",
      "analytics and insights features",
    ],
  ),
  d(
    "cost_token_economics",
    "Cost & Token Economics",
    "data_ai_economics",
    "How the product prices and controls compute and AI cost.",
    ["credits, tokens or usage-based units", "bring-your-own-key", "usage limits and overage terms", "cost controls"],
  ),
  d(
    "model_strategy",
    "Model Strategy",
    "data_ai_economics",
    "How deliberately the product chooses and manages AI models.",
    [
      "named models or providers",
      "model choice for customers",
      "fine-tuning or own models",
      "fallbacks across providers",
    ],
  ),
  d("ai_governance", "AI Governance", "data_ai_economics", "How responsibly AI use is governed.", [
    "AI policy or responsible-AI page",
    "no training on customer data commitments",
    "human review, guardrails",
    "ISO 42001 or similar",
  ]),
  d("security_posture", "Security Posture", "trust_enterprise", "How visibly the product takes security seriously.", [
    "security page or trust centre",
    "security.txt",
    "security headers (HSTS, CSP)",
    "bug bounty or disclosure policy",
    "encryption, pentests",
  ]),
  d(
    "compliance_certifications",
    "Compliance & Certifications",
    "trust_enterprise",
    "Which recognised certifications and attestations the product holds.",
    ["SOC 2 (Type II)", "ISO 27001", "HIPAA", "GDPR", "PCI DSS", "trust centre with reports"],
  ),
  d("data_privacy", "Data Privacy", "trust_enterprise", "How well customer data rights are handled and documented.", [
    "privacy policy",
    "DPA",
    "subprocessor list",
    "data retention and deletion",
    "data residency",
  ]),
  d(
    "enterprise_readiness",
    "Enterprise Readiness",
    "trust_enterprise",
    "Whether large organisations can adopt the product.",
    ["SSO/SAML", "SCIM provisioning", "audit logs", "role-based access", "enterprise plan and SLA"],
  ),
  d(
    "growth_distribution",
    "Growth & Distribution",
    "growth_organization",
    "How the product reaches and converts its market.",
    ["blog or content cadence", "newsletter, webinars, events", "partner or affiliate programme", "self-serve funnel"],
  ),
  d("community_ecosystem", "Community & Ecosystem", "growth_organization", "The community around the product.", [
    "community forum, Discord or Slack",
    "GitHub presence",
    "user groups, champions, events",
  ]),
  d("customer_success", "Customer Success", "growth_organization", "How customers are supported to succeed.", [
    "help centre",
    "support channels and hours",
    "customer success or onboarding services",
    "SLAs for support",
  ]),
  d("talent_organization", "Talent & Organization", "growth_organization", "The team and how it is growing.", [
    "careers page with openings",
    "openings by function",
    "about/team page",
    "values or culture",
  ]),
  d(
    "company_momentum",
    "Company Momentum",
    "growth_organization",
    "Signs the company is moving: news, funding, growth.",
    [
      "recent news or announcements",
      "funding or investors named",
      "growth figures",
      "recent dated content",
      "current copyright year",
    ],
  ),
];

export const dimensionById: ReadonlyMap<DimensionId, DimensionDefinition> = new Map(
  dimensions.map((definition) => [definition.id, definition]),
);
