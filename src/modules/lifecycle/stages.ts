import type { DimensionId } from "../scoring/scoring.types.js";

export const lifecycleStatuses = ["completed", "in_progress", "not_started"] as const;
export type LifecycleStatus = (typeof lifecycleStatuses)[number];

export interface LifecycleTask {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The scoring dimensions doing this task moves: where crawl evidence and self-assessment meet. */
  readonly dimensions: readonly DimensionId[];
}

export interface LifecycleStage {
  readonly id: string;
  readonly name: string;
  readonly order: number;
  readonly description: string;
  readonly tasks: readonly LifecycleTask[];
}

/** Bumped whenever a stage or task changes; stored with each assessment. */
export const LIFECYCLE_VERSION = "1.0.0";

/** A stage is "mostly complete" once this share of its tasks is completed. */
export const STAGE_DONE_SHARE = 0.75;

const t = (id: string, name: string, description: string, dimensions: DimensionId[]): LifecycleTask => ({
  id,
  name,
  description,
  dimensions,
});

/**
 * The product lifecycle (docs/api.md §8) as data, like the scoring frameworks. The
 * stage ids are the ones the product framework maps a total onto
 * (frameworks.ts `lifecycle`), so a score and a self-assessment speak of the same stages.
 */
export const lifecycleStages: readonly LifecycleStage[] = [
  {
    id: "stage_discovery",
    name: "Discovery",
    order: 1,
    description: "Find a problem worth solving and the people who have it.",
    tasks: [
      t(
        "task_define_problem",
        "Define the problem",
        "Write down the problem, who has it, and what it costs them today.",
        ["value_proposition", "target_segments"],
      ),
      t(
        "task_user_research",
        "Research users",
        "Interview at least ten people who have the problem; record what they do about it now.",
        ["target_segments", "market_intelligence"],
      ),
      t(
        "task_competitive_analysis",
        "Analyse competitors",
        "List the alternatives, what they charge, and where they fall short.",
        ["market_intelligence", "pricing_packaging"],
      ),
      t(
        "task_value_hypothesis",
        "State the value hypothesis",
        "One sentence on the outcome you deliver, and how you will know it is true.",
        ["value_proposition"],
      ),
    ],
  },
  {
    id: "stage_validation",
    name: "Validation",
    order: 2,
    description: "Show that people want it: a prototype in real hands and a price they accept.",
    tasks: [
      t("task_prototype", "Build a prototype", "The smallest thing that delivers the core outcome to a real user.", [
        "experience_design",
        "delivery_velocity",
      ]),
      t("task_first_users", "Win first users", "Get the prototype used by people outside the team, repeatedly.", [
        "customer_proof",
        "onboarding_activation",
      ]),
      t("task_pricing_test", "Test pricing", "Ask for money: a published price, a pilot fee or a pre-order.", [
        "pricing_packaging",
      ]),
      t(
        "task_success_metric",
        "Pick a success metric",
        "The one number that shows users get the outcome; measure it weekly.",
        ["data_strategy_flywheel", "customer_success"],
      ),
      t(
        "task_landing_page",
        "Publish a clear landing page",
        "Who it is for, the outcome, proof, and one way to start.",
        ["value_proposition", "growth_distribution"],
      ),
    ],
  },
  {
    id: "stage_launch",
    name: "Launch",
    order: 3,
    description: "Open the product to anyone who fits, with the basics a buyer checks.",
    tasks: [
      t(
        "task_self_serve_onboarding",
        "Self-serve onboarding",
        "Sign-up to first value without talking to you: a free tier, a trial or a demo.",
        ["onboarding_activation", "experience_design"],
      ),
      t("task_public_docs", "Public documentation", "Getting started, guides and a reference, kept current.", [
        "documentation_quality",
        "developer_platform",
      ]),
      t(
        "task_privacy_security",
        "Privacy and security basics",
        "A privacy policy, terms, a security page and a way to report issues.",
        ["data_privacy", "security_posture"],
      ),
      t("task_changelog", "Ship in the open", "A dated changelog or release notes, updated as you ship.", [
        "delivery_velocity",
        "company_momentum",
      ]),
      t("task_support_channel", "A support channel", "A help centre or contact route with a stated response time.", [
        "customer_success",
      ]),
      t("task_status_page", "Status page", "Public uptime and incident history.", ["reliability_operations"]),
    ],
  },
  {
    id: "stage_growth",
    name: "Growth",
    order: 4,
    description: "Turn a working product into a repeatable way of winning customers.",
    tasks: [
      t("task_case_studies", "Publish case studies", "Named customers with the outcome they got, in numbers.", [
        "customer_proof",
      ]),
      t("task_integrations", "Integrations", "Connect to the tools customers already use; document each.", [
        "integration_ecosystem",
        "developer_platform",
      ]),
      t("task_segment_pages", "Pages per segment", "Solutions by industry, role or size, each with its own proof.", [
        "target_segments",
        "growth_distribution",
      ]),
      t("task_content_engine", "A content engine", "A blog, guides or research published on a schedule.", [
        "growth_distribution",
        "market_intelligence",
      ]),
      t("task_hiring_plan", "Hire for the next stage", "Open roles and a careers page that says why to join.", [
        "talent_organization",
      ]),
      t("task_community", "Build a community", "A forum, chat or events where customers help each other.", [
        "community_ecosystem",
      ]),
    ],
  },
  {
    id: "stage_scale",
    name: "Scale",
    order: 5,
    description: "Serve large customers and many markets without breaking.",
    tasks: [
      t("task_compliance", "Compliance certifications", "SOC 2, ISO 27001 or what your buyers require, audited.", [
        "compliance_certifications",
        "security_posture",
      ]),
      t("task_enterprise_features", "Enterprise features", "SSO, roles, audit logs, an SLA and a DPA.", [
        "enterprise_readiness",
        "data_privacy",
      ]),
      t("task_reliability_program", "Reliability programme", "SLOs, on-call and published post-mortems.", [
        "reliability_operations",
        "architecture_systems",
      ]),
      t("task_partner_channel", "Partner channel", "Resellers, a marketplace listing or agency partners.", [
        "integration_ecosystem",
        "growth_distribution",
      ]),
      t("task_ai_governance", "Govern data and AI", "Documented data use, model choices and human oversight.", [
        "ai_governance",
        "model_strategy",
      ]),
    ],
  },
];

export const tasksById: ReadonlyMap<string, { readonly task: LifecycleTask; readonly stage: LifecycleStage }> = new Map(
  lifecycleStages.flatMap((stage) => stage.tasks.map((task) => [task.id, { task, stage }] as const)),
);
