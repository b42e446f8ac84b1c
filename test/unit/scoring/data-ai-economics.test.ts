import { describe, expect, it } from "vitest";
import {
  aiGovernance,
  costTokenEconomics,
  dataStrategyFlywheel,
  modelStrategy,
} from "../../../src/modules/scoring/rules/data-ai-economics.js";
import { BARE_SITE, expectSignal } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const bare = BARE_SITE;
const product = (text: string, path = "/product"): PageSpec => ({ path, title: "Product", text });

describe("data_strategy_flywheel", () => {
  it.each<[string, string]>([
    ["feedback loop", "The model learns from every correction your team makes, so it gets smarter over time."],
    ["proprietary data", "Our proprietary dataset covers 40 million invoices."],
    ["analytics", "Usage analytics show which workflows your team relies on."],
    ["feedback that improves the product", "Your feedback on summaries improves ranking for your workspace."],
  ])("rises with %s", (_name, text) => {
    expectSignal(dataStrategyFlywheel, [product(text)], `${SYNTHETIC_ORIGIN}/product`);
  });

  it("does not read product improvements as a feedback loop", () => {
    expect(
      dataStrategyFlywheel(syntheticFacts([...bare, product("Improvements to delivery and the dashboard.")])).coverage,
    ).toBe(0);
  });

  it("ignores analytics cookies in the privacy policy", () => {
    const assessment = dataStrategyFlywheel(
      syntheticFacts([...bare, { path: "/privacy", text: "We use product analytics cookies." }]),
    );
    expect(assessment.coverage).toBe(0);
  });

  it("counts more feedback statements higher than one", () => {
    const one = dataStrategyFlywheel(syntheticFacts([...bare, product("It learns from your edits.")]));
    const three = dataStrategyFlywheel(
      syntheticFacts([
        ...bare,
        product("It learns from your edits.\nA feedback loop ranks answers.\nThumbs up or down trains the ranking."),
      ]),
    );
    expect(three.raw).toBeGreaterThan(one.raw);
  });
});

describe("cost_token_economics", () => {
  it.each<[string, PageSpec]>([
    ["credits", { path: "/pricing", title: "Pricing", text: "Pro includes 5,000 credits per month." }],
    ["tokens", { path: "/pricing", title: "Pricing", text: "$2 per 1M tokens of input." }],
    ["bring your own key", product("Bring your own API key from OpenAI or Anthropic.")],
    ["usage limits", product("Overage is billed at the end of the month.")],
    ["cost controls", product("Set spending limits and budget alerts per workspace.")],
  ])("rises with %s", (_name, page) => {
    expectSignal(costTokenEconomics, [page], `${SYNTHETIC_ORIGIN}${page.path}`);
  });

  it("scores several usage units above one", () => {
    const one = costTokenEconomics(syntheticFacts([...bare, product("Usage-based pricing.")]));
    const three = costTokenEconomics(
      syntheticFacts([
        ...bare,
        product("Usage-based pricing.\nBuy more credits anytime.\nInput tokens cost less than output tokens."),
      ]),
    );
    expect(three.raw).toBeGreaterThan(one.raw);
    expect(three.raised[0]).toContain("credits");
  });

  it("does not read an API token or a credit card as a usage unit", () => {
    expect(
      costTokenEconomics(syntheticFacts([...bare, product("Create an API token. No credit card required.")])).coverage,
    ).toBe(0);
  });
});

describe("model_strategy", () => {
  it.each<[string, string]>([
    ["named models", "Powered by GPT-4o and Claude."],
    ["model choice", "Choose your model for each workflow."],
    ["model choice by name", "Choose GPT-4o or Claude per workspace."],
    ["own models", "We fine-tune models on your documents."],
    ["fallbacks", "Requests fail over to a second provider when a model is down, with automatic fallback."],
  ])("rises with %s", (_name, text) => {
    expectSignal(modelStrategy, [product(text)], `${SYNTHETIC_ORIGIN}/product`);
  });

  it("scores four providers above one", () => {
    const one = modelStrategy(syntheticFacts([...bare, product("Built on OpenAI.")]));
    const four = modelStrategy(
      syntheticFacts([...bare, product("Built on OpenAI, Anthropic Claude, Google Gemini and Mistral.")]),
    );
    expect(four.raw).toBeGreaterThan(one.raw);
    expect(four.raised[0]).toBe("models named: OpenAI, Anthropic, Google, Mistral");
  });
});

describe("ai_governance", () => {
  it.each<[string, PageSpec[], string]>([
    [
      "an AI policy page",
      [{ path: "/responsible-ai", title: "Responsible AI", text: "How we build AI." }],
      `${SYNTHETIC_ORIGIN}/responsible-ai`,
    ],
    ["a linked AI policy", [{ path: "/about", links: ["/legal/ai-policy"] }], `${SYNTHETIC_ORIGIN}/legal/ai-policy`],
    [
      "no training on customer data",
      [product("We never use your data to train our models.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    ["guardrails", [product("Guardrails and human review before anything is sent.")], `${SYNTHETIC_ORIGIN}/product`],
    ["a standard", [product("Certified to ISO/IEC 42001.")], `${SYNTHETIC_ORIGIN}/product`],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(aiGovernance, pages, url);
  });

  it("reads contractions as the no-training commitment", () => {
    const assessment = aiGovernance(syntheticFacts([...bare, product("We don’t train on customer content.")]));
    expect(assessment.raised).toContain("commits not to train on customer data");
  });

  it("does not read a training course as a commitment", () => {
    expect(aiGovernance(syntheticFacts([...bare, product("Training for new users is included.")])).coverage).toBe(0);
  });
});
