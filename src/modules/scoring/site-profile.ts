import { thinCrawl } from "./result-builder.js";
import { LEGAL_PATH, pathOf } from "./evidence-relevance.js";
import type { Mention, SiteFacts } from "./site-facts.js";

/**
 * What kind of product the site presents, read from the site alone. Framework
 * 2.0 uses it to tell "not shown" from "does not apply": a security vendor that
 * sells no AI has no AI governance to show, and an open-source project has no
 * price list to publish.
 */
export interface SiteProfile {
  /** AI is part of what is sold: named on the home page or described on several pages. */
  readonly sellsAi: boolean;
  /** An open-source project with no commercial offer on its own site (no prices, trial, sign-up or sales path). */
  readonly openSource: boolean;
  /** Sold through a conversation (contact sales, request a demo or quote) with no price on the site: prices are not expected. */
  readonly salesLed: boolean;
  /**
   * Software is part of what is sold (an app, a platform, an API, docs or sign-in). False only for a site read
   * well enough to say so (not a thin crawl) that names no software: an underwriter, a law firm, a consultancy.
   */
  readonly sellsSoftware: boolean;
  /** Why, in words, for the reasoning of the dimensions the profile excuses. */
  readonly because: {
    readonly ai: string;
    readonly openSource: string;
    readonly salesLed: string;
    readonly software: string;
  };
}

const AI =
  /\b(AI|A\.I\.|artificial intelligence|machine learning|deep learning|LLMs?|large language models?|GPT[- ]?\d?|generative|neural (network|net)s?|copilots?|AI[- ](powered|driven|agents?|assistants?)|agentic)\b/;
const OPEN_SOURCE =
  /\b(open[- ]source|free software|GPL(v[23])?|GNU General Public Licen[cs]e|Apache (2\.0|License)|BSD licen[sc]e|MIT licen[sc]e|source code (is )?(available|on GitHub)|contribut(e|ing|ors) (to|on) (the project|GitHub))\b/i;
/**
 * A sentence that says the site's own product is open source, not that the team used or worked on open
 * source ("models fitted in the open source R language", "we contributed to open source projects
 * including Ethereum"): the product is named or spoken of as "it"/"our", or the licence is given.
 */
const OWN_OPEN_SOURCE =
  /\b(?:is|are|it's|goes|went|now|fully|100%|completely|an?)\s+(?:\w+[, ]+){0,3}?(?:free (?:and|&) )?open[- ]source(?! (?:\w+ )?(?:projects?|intelligence|community|communities|libraries|library (?:that|which)|programming|language|ISA|contributors?|contributions?|software (?:such as|like|including))\b)|\b(?:our|its) (?:source code|code|repositor(?:y|ies))\b|\b(?:licen[cs]ed|developed|released|distributed) under\b|\b(?:GPL(?:v[23])?|GNU General Public Licen[cs]e|Apache (?:2\.0|License)|(?:MIT|BSD) licen[sc]e)\b|\bfork (?:us|it|the project) on\b/i;
/** What a person or a team did with open source elsewhere: not a statement about the product. */
const OTHERS_OPEN_SOURCE =
  /\b(?:contribut\w*|participat\w*|experience|involved|work(?:ed|ing)?) (?:to|in|with|on) (?:\w+ ){0,4}open[- ]source\b|\bwhether (?:it is|it's|or not)\b/i;
const SALES =
  /\b(contact (our )?sales|talk to (sales|an expert|our team)|request (a |an )?(demo|quote|audit|proposal|consultation)|book (a )?(demo|meeting|call)|schedule (a )?(demo|call)|get (a )?(quote|demo)|contact us for (pricing|a quote)|pricing (is )?available on request)\b/i;
const REGULATED =
  /\b(licen[cs]ed|authori[sz]ed|regulated|supervised)\b[^.]{0,30}\bby (the )?[^.]{0,60}\b(authority|commission|central bank|regulator|FCA|SEC|FINRA|MAS|BaFin|FINMA)\b/i;
/** Words a site that sells software uses of it somewhere: what it is, how people get in, where it runs. */
const SOFTWARE =
  /\b(software|SaaS|platforms?|apps?|applications?|APIs?|SDKs?|dashboards?|log[- ]?in|sign[- ]?(in|up)|downloads?|install\w*|integrat\w+|plugins?|extensions?|iOS|Android|cloud|web[- ]based|online (tools?|services?)|self[- ]hosted|on[- ]prem\w*|deploy\w*|developers?|source code|open[- ]source|tools?|automat\w+)\b/i;
const COMMERCIAL =
  /\b(free trial|start (your |a )?(free )?trial|sign[- ]?up|get started (for )?free|request (a )?demo|book (a )?demo|contact sales|talk to sales|buy now|subscribe|per (user|seat|month)|\/(mo|month)\b|pricing)\b/i;

/** Whether a sentence says the site's own product is open source (not that its team used or worked on open source). */
export function ownOpenSource(sentence: string): boolean {
  return OWN_OPEN_SOURCE.test(sentence) && !OTHERS_OPEN_SOURCE.test(sentence);
}

export function siteProfile(facts: SiteFacts): SiteProfile {
  const home = facts.home;
  const aiOnHome = AI.test(
    `${home.title}\n${home.metaDescription}\n${home.headings.map((heading) => heading.text).join("\n")}`,
  );
  const aiPages = facts.pagesMentioning(AI, {
    in: ["other", "pricing", "docs", "integrations", "customers", "changelog", "api_reference"],
  });
  const sellsAi = aiOnHome || aiPages >= 3;

  // Pages where the site says its own product is open source (one such sentence per page counts it).
  const openSourcePages = new Set(
    facts
      .mentions(OPEN_SOURCE, { limit: 40 })
      .filter((mention) => ownOpenSource(mention.text))
      .map((mention) => mention.url),
  ).size;
  const priced = facts.hasPrices();
  const commercialPages = facts.pagesMentioning(COMMERCIAL, { in: ["other", "pricing", "customers", "integrations"] });
  const openSource = openSourcePages >= 1 && !priced && commercialPages === 0 && !facts.hasPage("pricing");

  // A licensed, regulated firm (an underwriter, a payment institution) sells through relationships even when its
  // site names no sales path: its products are contracts, not sign-ups.
  // Not from legal text: a terms page's "certificate authorized by the appropriate taxing authority" sells nothing.
  const notLegal = (mention: Mention) =>
    facts.categoryOf(mention.url) !== "privacy" && !LEGAL_PATH.test(pathOf(mention.url));
  const [salesPath] = priced
    ? []
    : [...facts.mentions(SALES, { limit: 5 }), ...facts.mentions(REGULATED, { limit: 5 })].filter(notLegal);
  const salesLed = !openSource && salesPath !== undefined;

  // Software is assumed unless the site, read well enough to tell (not a thin crawl), never presents any: named on the
  // home page's title or headings, on two pages or more, or a docs, API, changelog, integrations or pricing page.
  const softwareOnHome = SOFTWARE.test(
    `${home.title}\n${home.metaDescription}\n${home.headings.map((heading) => heading.text).join("\n")}`,
  );
  const softwarePages = facts.pagesMentioning(SOFTWARE);
  const softwareKinds = (["docs", "api_reference", "changelog", "integrations", "pricing"] as const).filter((kind) =>
    facts.hasPage(kind),
  );
  const sellsSoftware =
    sellsAi ||
    openSource ||
    thinCrawl(facts.crawl.crawlStats) ||
    softwareOnHome ||
    softwarePages >= 2 ||
    softwareKinds.length > 0;
  return {
    sellsAi,
    sellsSoftware,
    openSource,
    salesLed,
    because: {
      ai: sellsAi
        ? aiOnHome
          ? "the home page presents AI as part of the product"
          : `AI is described on ${aiPages} pages`
        : "the site does not present AI as part of what it sells",
      openSource: openSource
        ? `the site presents an open-source project (${openSourcePages} page${openSourcePages === 1 ? "" : "s"} say so) with no commercial offer of its own`
        : "the site presents a commercial offer",
      salesLed: salesLed
        ? `it sells through a sales conversation ("${clip(salesPath!.text, 80)}"), where published prices are not expected`
        : "",
      software: sellsSoftware
        ? ""
        : `the site sells no software (across the ${facts.pages.length} pages read, it offers no app, platform, API, docs or sign-in)`,
    },
  };
}

/** At most `max` characters, cut at a word and marked with "…" when cut, so a quote never ends mid-word. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:(“"'‘-]+$/u, "")}…`;
}
