import type { DimensionView, ResultCore } from "../score/score-result.view.js";
import { STRENGTH_MIN_SCORE } from "../scoring/aggregate.js";
import type { Citation } from "./chat.entity.js";
import { citationFor, type ChatEngine, type ChatReply, type ChatRequest } from "./chat-engine.js";

/** Words a founder uses for each dimension, beyond its own name. */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  market_intelligence: ["competitor", "competition", "alternatives", "market", "research"],
  value_proposition: ["value", "headline", "positioning", "message", "messaging", "tagline", "proposition"],
  target_segments: ["segment", "industries", "industry", "audience", "icp", "persona"],
  customer_proof: ["customer", "customers", "case stud", "testimonial", "logos", "proof", "reviews"],
  pricing_packaging: ["pricing", "price", "prices", "plans", "packaging", "tiers", "cost to buy"],
  experience_design: ["design", "ux", "ui", "experience", "look"],
  onboarding_activation: ["onboarding", "signup", "sign-up", "sign up", "trial", "activation", "free tier"],
  ai_capability_depth: ["ai feature", "ai capabilit", "machine learning", "ai"],
  integration_ecosystem: ["integration", "integrations", "connectors", "zapier", "marketplace"],
  developer_platform: ["api", "sdk", "developer", "developers", "webhook"],
  delivery_velocity: ["release", "releases", "changelog", "shipping", "ship", "velocity", "updates"],
  architecture_systems: ["architecture", "scalab", "infrastructure", "systems"],
  reliability_operations: ["reliability", "uptime", "status page", "incident", "sla", "outage"],
  documentation_quality: ["docs", "documentation", "guides", "reference"],
  data_strategy_flywheel: ["data strategy", "flywheel", "data"],
  cost_token_economics: ["token", "tokens", "inference cost", "usage-based"],
  model_strategy: ["model", "models", "llm", "gpt"],
  ai_governance: ["governance", "responsible ai", "ai policy"],
  security_posture: ["security", "secure", "vulnerab", "pentest", "bug bounty"],
  compliance_certifications: ["compliance", "soc 2", "soc2", "iso 27001", "hipaa", "certif"],
  data_privacy: ["privacy", "gdpr", "ccpa", "dpa", "personal data"],
  enterprise_readiness: ["enterprise", "sso", "saml", "audit log", "rbac"],
  growth_distribution: ["growth", "marketing", "seo", "blog", "distribution", "acquisition"],
  community_ecosystem: ["community", "forum", "discord", "slack", "meetup", "open source"],
  customer_success: ["support", "help center", "help centre", "success", "onboarding call"],
  talent_organization: ["team", "hiring", "careers", "jobs", "talent", "people"],
  company_momentum: ["momentum", "news", "funding", "press", "raised"],
};

const GAP_WORDS =
  /\b(gap|gaps|weak|weakest|worst|lowest|improve|improving|raise|fix|first|priorit|focus|next|missing|lacking|should)/;
const STRENGTH_WORDS = /\b(strength|strengths|strong|strongest|best|highest|good at|doing well)/;
const OVERALL_WORDS = /\b(overall|total|score|stage|summary|summar|how mature|maturity)\b/;
const MAX_DIMENSIONS = 3;
/** Why a result lists no strengths (the rule in result-builder.ts). */
const NO_STRENGTH = `no dimension that applies scores ${STRENGTH_MIN_SCORE} or more with high or medium confidence`;

/**
 * Answers from the stored result alone, deterministically: it finds the dimensions
 * the question names (their names, ids and common synonyms) or asks for ("gaps",
 * "strengths", "what first"), and answers with their scores, stages, confidence,
 * evidence and "to raise it" advice, citing the evidence it quotes. The same result
 * and question always give the same answer.
 */
export class DeterministicChatEngine implements ChatEngine {
  readonly name = "deterministic" as const;

  async reply(request: ChatRequest): Promise<ChatReply> {
    const { result } = request;
    const question = request.message.toLowerCase();
    const named = namedDimensions(result, question);
    const byScore = [...result.dimensions].sort(
      (a, b) => a.score - b.score || a.dimensionId.localeCompare(b.dimensionId),
    );
    const lines: string[] = [];
    let cited: DimensionView[];

    if (named.length > 0) {
      cited = named.slice(0, MAX_DIMENSIONS);
      lines.push(...cited.map((dimension) => describe(dimension)));
    } else if (GAP_WORDS.test(question) && !STRENGTH_WORDS.test(question)) {
      cited = pick(result, result.gaps, byScore);
      lines.push(
        `The weakest areas of ${result.companyName}'s score (${result.totalScore}/100, ${result.stageName}), in the order to work on them:`,
      );
      lines.push(...cited.map((dimension, index) => `${index + 1}. ${describe(dimension)}`));
    } else if (STRENGTH_WORDS.test(question) && result.strengths.length === 0) {
      // A thin or early site may have no strengths; its best readings are said to be what they are, never a gap among them.
      cited = [...byScore]
        .reverse()
        .filter((dimension) => !result.gaps.includes(dimension.dimensionId))
        .slice(0, MAX_DIMENSIONS);
      lines.push(
        `${result.companyName}'s score (${result.totalScore}/100, ${result.stageName}) has no strengths yet: ${NO_STRENGTH}. Its highest readings:`,
      );
      lines.push(...cited.map((dimension, index) => `${index + 1}. ${describe(dimension)}`));
    } else if (STRENGTH_WORDS.test(question)) {
      cited = pick(result, result.strengths, [...byScore].reverse());
      lines.push(
        `The strongest areas of ${result.companyName}'s score (${result.totalScore}/100, ${result.stageName}):`,
      );
      lines.push(...cited.map((dimension, index) => `${index + 1}. ${describe(dimension)}`));
    } else {
      const strongest = pick(result, result.strengths, []).slice(0, 1);
      cited = [...strongest, ...pick(result, result.gaps, byScore).slice(0, 1)];
      const prefix = OVERALL_WORDS.test(question)
        ? ""
        : "I could not tell which dimension the question is about, so here is the overview. ";
      lines.push(
        `${prefix}${result.companyName} scores ${result.totalScore}/100 (${result.stageName}) on the ${result.framework} framework ${result.frameworkVersion}, from ${result.dimensions.length} dimensions.`,
      );
      if (strongest[0]) lines.push(`Strongest: ${describe(strongest[0])}`);
      else lines.push(`No strengths yet: ${NO_STRENGTH}.`);
      const weakest = cited[strongest.length];
      if (weakest) lines.push(`Weakest: ${describe(weakest)}`);
      lines.push("Ask about a dimension by name (pricing, docs, security …), or about gaps and strengths.");
    }
    const citations = cited.flatMap((dimension) => {
      const citation = citationFor(result, dimension.dimensionId);
      return citation ? [citation] : ([] as Citation[]);
    });
    const content = lines.join("\n");
    request.onToken?.(content);
    return { content, citations };
  }
}

function namedDimensions(result: ResultCore, question: string): DimensionView[] {
  const found = result.dimensions.filter((dimension) => {
    const terms = [
      dimension.dimensionName.toLowerCase(),
      dimension.dimensionId.replaceAll("_", " "),
      ...(SYNONYMS[dimension.dimensionId] ?? []),
    ];
    // Short terms (ai, ux, api, sso …) only as whole words; longer ones may be stems (scalab…, certif…).
    return terms.some((term) =>
      new RegExp(`(^|[^a-z])${term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${term.length <= 3 ? "(?![a-z])" : ""}`).test(
        question,
      ),
    );
  });
  // The question's own order is not kept: weakest first, which is what the founder can act on.
  return found.sort((a, b) => a.score - b.score || a.dimensionId.localeCompare(b.dimensionId));
}

function pick(result: ResultCore, ids: readonly string[], fallback: readonly DimensionView[]): DimensionView[] {
  const listed = ids.flatMap((id) => result.dimensions.filter((dimension) => dimension.dimensionId === id));
  return (listed.length > 0 ? listed : fallback).slice(0, MAX_DIMENSIONS);
}

function describe(dimension: DimensionView): string {
  const toRaise = /To raise it:\s*(.+)$/s.exec(dimension.reasoning)?.[1]?.trim();
  const evidence = dimension.evidence.trim();
  return [
    `${dimension.dimensionName}: ${dimension.score}/100 (${dimension.stageName}, ${dimension.confidence} confidence).`,
    evidence
      ? `Evidence: ${evidence.length > 300 ? `${evidence.slice(0, 299)}…` : evidence}`
      : "No evidence was found on the crawled pages.",
    toRaise ? `To raise it: ${toRaise}` : "",
  ]
    .filter(Boolean)
    .join(" ");
}
