import { moreIsBetter } from "../curves.js";
import type { SiteFacts } from "../site-facts.js";
import { Assessor, kindsFound, plural, present, type Kinds, type RuleSet } from "./rule.js";

/**
 * Data & AI Economics: whether usage feeds the product (flywheel), how compute
 * cost is priced and controlled, how models are chosen, and how AI use is
 * governed. Most sites without AI show none of this, so each rule reports only
 * what it saw and leaves the rest at coverage 0 (near the prior).
 */

/** A crawled page whose URL or title matches, else a link to one: a dedicated page beats a passing sentence. */
function pageOrLink(facts: SiteFacts, pattern: RegExp): { url: string; text: string; crawled: boolean } | undefined {
  const page = facts.pages.find((candidate) => pattern.test(candidate.url) || pattern.test(candidate.title));
  if (page) return { url: page.url, text: page.title || page.url, crawled: true };
  const [link] = facts.linksMatching(pattern);
  return link ? { url: link.url, text: link.text || link.url, crawled: false } : undefined;
}

const INSIGHTS =
  /\b((product|usage|customer|team|real[- ]time) analytics|insights dashboards?|usage insights|benchmark (your|against)|industry benchmarks?|trend reports?|reporting dashboards?)\b/i;

export function dataStrategyFlywheel(facts: SiteFacts) {
  const assessor = new Assessor();

  // Named phrases, or (anchored lookaheads, linear) feedback or usage and improvement in one sentence:
  // "Your feedback on summaries improves ranking for your workspace."
  const loops = facts.mentions(
    /\b(learns? from (your|every|each|user|customer|real)|gets? (smarter|better) (with|over time|the more)|feedback loops?|continuously (improv|learn)\w*|self[- ]improving|flywheel|human feedback|rlhf|thumbs[- ](up|down))\b|^(?=.*\b(feedback|usage|corrections?|edits?|reviews?|ratings?|interactions?)\b)(?=.*\b(improves?|learns?|refines?|retrains?|gets? (better|smarter))\b)/i,
    { limit: 5 },
  );
  // One clear statement that usage improves the product is the median; three distinct ones is a real flywheel story.
  assessor.signal(
    2,
    loops.length > 0 ? moreIsBetter(loops.length, 1, 3) : undefined,
    loops.length > 0
      ? `${plural(loops.length, "statement")} that usage improves the product`
      : "no feedback loop from usage described",
    loops.slice(0, 2),
  );

  const proprietary = facts.mentions(
    /\b(proprietary (data|dataset|datasets|index|corpus|benchmarks?|knowledge graph)|first[- ]party data|exclusive (data|dataset)|largest (dataset|database|corpus)|(trained|built) on (millions|billions|\d[\d,.]{0,15}\s?(m|b|k|million|billion)\+?) (of )?(data points|records|documents|examples|conversations|images|hours|transactions))\b/i,
    { limit: 3 },
  );
  // One claim is the median; two or more (data plus benchmarks, say) is a deliberate data moat.
  assessor.signal(
    2,
    proprietary.length > 0 ? moreIsBetter(proprietary.length, 1, 2.5) : undefined,
    proprietary.length > 0 ? "proprietary data or benchmarks claimed" : "no proprietary data or benchmark claimed",
    proprietary.slice(0, 2),
  );

  // Privacy and legal pages mention "analytics" for their cookies, which says nothing about the product.
  const outsideLegal = {
    in: ["other", "docs", "blog", "pricing", "customers", "integrations", "about", "changelog", "api_reference"],
  } as const;
  const insightPages = facts.pagesMentioning(INSIGHTS, outsideLegal);
  // Analytics on two pages is typical of a SaaS site; six pages means insight is a product line, not a feature.
  assessor.signal(
    1,
    insightPages > 0 ? moreIsBetter(insightPages, 2, 6) : undefined,
    insightPages > 0
      ? `analytics or insights features on ${plural(insightPages, "page")}`
      : "no analytics or insights features",
    facts.mentions(INSIGHTS, { ...outsideLegal, limit: 1 }),
  );

  return assessor.done(
    loops.length === 0
      ? "Say how usage makes the product better: feedback loops, learning from corrections, and what that data builds."
      : "Name the proprietary data the product accumulates and show it in insights or benchmarks customers can see.",
  );
}

export function costTokenEconomics(facts: SiteFacts) {
  const assessor = new Assessor();

  const units = kindsFound(facts, [
    [
      "credits",
      /\b(\d[\d,.]{0,15}k?\s{1,3}(ai |monthly |usage )?credits|credit[- ]based|(ai|usage|compute|monthly) credits|(buy|purchase|top[- ]up|add) (more |extra )?credits|credits? (packs?|bundles?|balance))\b/i,
    ],
    [
      "tokens",
      /\b(per (1[,.]?000|1k|1m|million|thousand) tokens|(input|output|prompt|completion) tokens|tokens? (usage|pricing|limits?|per month)|token[- ]based)\b/i,
    ],
    [
      "usage-based",
      /\b(usage[- ]based|pay[- ]as[- ]you[- ]go|metered (billing|pricing|usage)|pay (only )?for what you use|pay[- ]per[- ](use|request|call|query))\b/i,
    ],
    ["per request", /\bper (\d[\d,.]{0,15}k? )?(api calls?|requests?|queries|generations?|executions?|runs?)\b/i],
    ["compute time", /\b(gpu|compute|cpu) (hours?|minutes?|seconds?|units?)\b/i],
  ]);
  // One clear unit is typical of AI products that price usage at all; three units (credits, tokens, per request) is a full model.
  assessor.signal(
    2.5,
    units.length > 0 ? moreIsBetter(units.length, 1, 3) : undefined,
    units.length > 0
      ? `usage units: ${units.map((unit) => unit.name).join(", ")}`
      : "no credits, tokens or usage units stated",
    units.slice(0, 3).map((unit) => unit.mention),
  );

  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(bring your own (api |llm )?keys?|byok|byo[- ]?key|use your own (openai |anthropic |api |llm )?(api )?keys?|your own (openai|anthropic|api) keys?)\b/i,
      { limit: 1 },
    ),
    90,
    "bring-your-own-key supported",
    "no bring-your-own-key option",
  );

  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(usage limits?|rate limits?|overages?|overage (fees?|charges?|pricing)|monthly quotas?|soft limits?|hard limits?|included (credits|tokens|requests|runs)|additional (credits|tokens|usage) (at|for|billed))\b/i,
      { limit: 1 },
    ),
    80,
    "usage limits or overage terms stated",
    "no usage limits or overage terms",
  );

  present(
    assessor,
    1,
    facts.mentions(
      /\b(spend(ing)? (limits?|caps?|controls?|alerts?)|budget (alerts?|caps?|limits?|controls?)|usage (alerts?|dashboards?|tracking|reports?)|cost (controls?|tracking|monitoring|visibility|alerts?)|billing alerts?)\b/i,
      { limit: 1 },
    ),
    85,
    "cost controls (spend limits, usage alerts)",
    "no cost controls such as spend limits or usage alerts",
  );

  return assessor.done(
    units.length === 0
      ? "State the unit customers pay for (credits, tokens, requests) and what a plan includes."
      : "Give customers control of cost: spend limits, usage alerts, bring-your-own-key, clear overage terms.",
  );
}

/** Model providers and families a product may name; each counts once. */
const PROVIDERS: Kinds = [
  ["OpenAI", /\b(openai|chatgpt|gpt-?[345](\.\d)?(o|-turbo|-mini)?)\b/i],
  ["Anthropic", /\b(anthropic|claude)\b/i],
  ["Google", /\b(gemini|vertex ai|palm ?2)\b/i],
  ["Meta", /\b(llama ?\d*|meta ai)\b/i],
  ["Mistral", /\b(mistral|mixtral)\b/i],
  ["Cohere", /\bcohere\b/i],
  ["DeepSeek", /\bdeepseek\b/i],
  ["Qwen", /\bqwen\b/i],
  ["xAI", /\b(grok|xai)\b/i],
  ["Amazon Bedrock", /\b(amazon|aws) bedrock\b/i],
  ["Hugging Face", /\bhugging ?face\b/i],
  ["Stability", /\b(stable diffusion|stability ai)\b/i],
];

export function modelStrategy(facts: SiteFacts) {
  const assessor = new Assessor();

  const providers = kindsFound(facts, PROVIDERS);
  // Naming one provider is typical; four or more shows a deliberate multi-model strategy.
  assessor.signal(
    2,
    providers.length > 0 ? moreIsBetter(providers.length, 1, 4) : undefined,
    providers.length > 0
      ? `models named: ${providers.map((entry) => entry.name).join(", ")}`
      : "no models or providers named",
    providers.slice(0, 3).map((entry) => entry.mention),
  );

  present(
    assessor,
    1.5,
    // Named phrases, or a choice verb and a model in one sentence ("Choose GPT-4o, Claude or a fine-tuned model").
    facts.mentions(
      /\b(model (choice|selection|picker|switcher|agnostic)|any (llm|model)|multi[- ](model|llm)|bring your own (model|llm))\b|^(?=.*\b(choose|pick|select|switch)\b)(?=.*\b(models?|llms?|gpt-?\d\w*|claude|gemini|llama|mistral)\b)/i,
      { limit: 1 },
    ),
    85,
    "customers can choose the model",
    "no model choice for customers",
  );

  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(fine[- ]tun(e|ed|es|ing)|our own (models?|llms?)|in[- ]house (models?|llms?)|proprietary (models?|llms?)|custom[- ]trained|trained our own|purpose[- ]built models?)\b/i,
      { limit: 1 },
    ),
    85,
    "fine-tuned or own models",
    "no fine-tuning or own models mentioned",
  );

  // Sentence-level co-occurrence (anchored lookaheads, linear): a fallback or router that is about models or providers.
  present(
    assessor,
    1,
    facts.mentions(/^(?=.*\b(fallbacks?|failover|rout(e|es|ing|er))\b)(?=.*\b(models?|providers?|llms?)\b)/i, {
      limit: 1,
    }),
    85,
    "fallbacks or routing across models",
    "no fallback or routing across models",
  );

  return assessor.done(
    providers.length === 0
      ? "Say which models power the product and why they were chosen."
      : "Show the strategy behind the models: choice for customers, fallbacks across providers, fine-tuned or own models.",
  );
}

export function aiGovernance(facts: SiteFacts) {
  const assessor = new Assessor();

  const policyPattern = /\b(responsible[- ]ai|ai[- ](policy|principles|ethics|governance|trust|acceptable[- ]use))\b/i;
  const policy = pageOrLink(facts, policyPattern);
  const policyMention = policy
    ? []
    : facts.mentions(
        /\b(responsible ai|ai (policy|principles|ethics|governance|acceptable use)|ethical ai|trustworthy ai)\b/i,
        { limit: 1 },
      );
  assessor.signal(
    2,
    policy ? (policy.crawled ? 90 : 75) : policyMention.length > 0 ? 60 : undefined,
    policy
      ? `AI policy page${policy.crawled ? "" : " linked"}: ${policy.text}`
      : policyMention.length > 0
        ? "AI governance mentioned, without a dedicated page"
        : "no AI policy or responsible-AI page",
    policy ? [{ url: policy.url, text: `AI policy page: ${policy.text}` }] : policyMention,
  );

  // A negation, "train" and a kind of customer data in one sentence (anchored lookaheads), or an explicit opt-out.
  present(
    assessor,
    2,
    facts.mentions(
      /^(?:(?=.*(?:\b(?:never|not|no)\b|n['’]t\b))(?=.*\btrain(?:s|ed|ing)?\b)(?=.*\b(?:data|content|inputs?|prompts?|conversations?|files)\b)|.*\b(?:zero data retention|opt[- ]out of (?:model |ai )?training)\b)/i,
      { limit: 1 },
    ),
    90,
    "commits not to train on customer data",
    "no commitment about training on customer data",
  );

  const safeguards = kindsFound(facts, [
    ["human review", /\b(human[- ]in[- ]the[- ]loop|human (review|oversight|approval|reviewers?))\b/i],
    ["guardrails", /\b(guardrails?|content (filters?|filtering|moderation)|safety (filters?|checks?))\b/i],
    [
      "hallucination controls",
      /\b(hallucinations?|grounded (answers|responses)|citations? (for|to) (every|each|sources?))\b/i,
    ],
    ["red teaming", /\b(red[- ]team(ing|ed)?|adversarial testing|bias (testing|audits?|evaluation))\b/i],
    ["explainability", /\b(explainab(le|ility)|transparen(t|cy) (about|into) (how|the) (ai|model))\b/i],
  ]);
  // One safeguard is the median among AI products that mention any; three kinds is a considered safety practice.
  assessor.signal(
    1.5,
    safeguards.length > 0 ? moreIsBetter(safeguards.length, 1, 3) : undefined,
    safeguards.length > 0
      ? `AI safeguards: ${safeguards.map((entry) => entry.name).join(", ")}`
      : "no human review or guardrails described",
    safeguards.slice(0, 2).map((entry) => entry.mention),
  );

  present(
    assessor,
    1,
    facts.mentions(/\b(iso(\/iec)? ?42001|nist ai rmf|ai risk management framework|eu ai act)\b/i, { limit: 1 }),
    90,
    "an AI management standard (ISO 42001, NIST AI RMF, EU AI Act)",
    "no AI governance standard named",
  );

  return assessor.done(
    policy === undefined
      ? "Publish an AI policy: what data trains models (and what never does), human review, and guardrails."
      : "Back the AI policy with commitments: no training on customer data, human review, and a recognised standard such as ISO 42001.",
  );
}

export const dataAiEconomicsRules = {
  data_strategy_flywheel: dataStrategyFlywheel,
  cost_token_economics: costTokenEconomics,
  model_strategy: modelStrategy,
  ai_governance: aiGovernance,
} satisfies RuleSet;
