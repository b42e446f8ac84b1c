import { moreIsBetter } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { Assessor, plural } from "./rule.js";

/**
 * Pricing & Packaging: a pricing page that shows prices, a few tiers, a way in
 * (free plan or trial), units a buyer can reason about, an annual option and a
 * path for large customers. The example the other rules follow.
 */
export function pricingPackaging(facts: SiteFacts) {
  const assessor = new Assessor();
  const pricingPages = facts.pagesIn("pricing");
  const onPricing = { in: ["pricing"] } as const;

  if (pricingPages.length === 0) {
    assessor.signal(3, undefined, "no pricing page found");
  } else {
    const prices = facts.prices(onPricing);
    const distinct = new Set(prices.map((price) => `${price.currency} ${price.amount}`));
    assessor.signal(
      3,
      distinct.size > 0 ? 60 + Math.min(40, distinct.size * 10) : 15,
      distinct.size > 0 ? `pricing page lists ${plural(distinct.size, "price")}` : "pricing page shows no prices",
      distinct.size > 0
        ? [
            {
              url: prices[0]!.url,
              text: `pricing page lists ${plural(distinct.size, "price")}, e.g. "${prices[0]!.text}"`,
            },
          ]
        : [{ url: pricingPages[0]!.url, text: "pricing page without any price" }],
    );
    const tiers = countTiers(facts);
    if (tiers > 0) assessor.signal(2, moreIsBetter(tiers, 2, 4), `${plural(tiers, "tier")} on the pricing page`);
    else assessor.signal(2, undefined, "no named tiers on the pricing page");
  }

  const free = freeWayIn(facts);
  assessor.signal(
    1.5,
    free.length > 0 ? 85 : undefined,
    free.length > 0 ? "a free plan or trial" : "no free plan or trial mentioned",
    free,
  );

  // "/mo" after a space ("$ 25 /Mo") too; credits, not a "Credit Card".
  const units = facts.mentions(
    /\b(?:per (?:seat|user|member|month|project|request|credit|gb|1,?000|1k)|usage[- ]based|pay[- ]as[- ]you[- ]go|credits?(?! cards?\b))\b|\/\s?(?:seat|user|mo|month)\b/i,
    { ...onPricing, limit: 1 },
  );
  assessor.signal(
    1,
    units.length > 0 ? 80 : undefined,
    units.length > 0 ? "clear usage units" : "no usage unit stated",
    units,
  );

  const annual = facts.mentions(/\b(annual(ly)?|yearly|billed (annually|yearly)|save \d+%|\d+% off)\b/i, {
    ...onPricing,
    limit: 1,
  });
  assessor.signal(
    0.75,
    annual.length > 0 ? 80 : undefined,
    annual.length > 0 ? "an annual billing option" : "no annual option",
    annual,
  );

  const named = facts.mentions(/\b(enterprise|contact sales|custom (plan|pricing)|talk to sales)\b/i, {
    ...onPricing,
    limit: 1,
  });
  const enterprise = named.length > 0 ? named : customTier(facts);
  assessor.signal(
    0.75,
    enterprise.length > 0 ? 80 : undefined,
    enterprise.length > 0 ? "an enterprise tier or sales path" : "no enterprise path",
    enterprise,
  );

  return assessor.done(
    pricingPages.length === 0
      ? "Publish a pricing page with prices and named tiers."
      : "Show prices for every tier, a free way in, and the unit customers pay for.",
  );
}

const PLAN_NAME =
  /^(free|hobby|starter|basic|personal|pro|plus|premium|team|teams|growth|business|scale|enterprise|standard|essentials|advanced|ultimate|developer|startup)\b/;
/** A line that opens with a price: "$ 25 /Mo", "$0Per Month", "€49", "from $9". */
const PRICE_LINE = /^(?:from |only )?(?:[$€£¥]\s?\d|\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp)\b)/i;
/** A plan's name on a line of its own: one or two words, no figures ("Starter", "Extra Large"). */
const NAME_LINE = /^[A-Za-z][\w+&'’]*(?: [A-Za-z][\w+&'’]*)?$/;
/** A plan's name and its price on one line: "Personal - Free", "Organization - $10 per user". */
const NAMED_PRICE_LINE = /^([A-Za-z][\w+&'’]*(?: [A-Za-z][\w+&'’]*)?) [-–—:] (?:free\b|[$€£¥]\s?\d)/i;
/** Short lines of a pricing table that are not plans: labels, badges and buttons. */
const NOT_A_PLAN =
  /\b(?:pric\w*|plans?|features?|popular|best value|recommended|costs?|total|monthly|annually|yearly|per|billed|save|faq|support|get started|sign up|buy|contact|learn more|subscribe|choose|select|start|try)\b/i;
/** Words in a line: a plan's description is a phrase ("For startups and small teams"), not a feature label. */
const wordCount = (line: string): number => line.split(/\s+/).filter(Boolean).length;

/**
 * Tiers: h2/h3 headings on pricing pages that read like plan names; short lines (one or two words) that a
 * price opens the next line, or the line after a description ("Starter / For small teams to start / $ 25 /Mo");
 * and "Name - $price" lines.
 */
function countTiers(facts: SiteFacts): number {
  return tierNames(facts).size;
}

/** The pricing pages' plan names (lower case), each with the page and line that shows it. */
export function tierNames(facts: SiteFacts): Map<string, { url: string; line: string }> {
  const names = new Map<string, { url: string; line: string }>();
  const add = (name: string, url: string, line: string) => {
    const key = name.toLowerCase();
    if (!names.has(key) && !names.has(key.split(" ")[0]!)) names.set(key, { url, line });
  };
  for (const page of facts.pagesIn("pricing")) {
    for (const heading of page.headings) {
      if (heading.level === 1) continue;
      const text = heading.text.trim().toLowerCase();
      if (PLAN_NAME.test(text) && text.length <= 30) add(text.split(/\s+/)[0]!, page.url, heading.text.trim());
    }
    const lines = page.text
      .slice(0, SCORED_TEXT_PER_PAGE)
      .split("\n")
      .map((line) => line.trim());
    lines.forEach((line, index) => {
      if (line.length > 40) return;
      const together = NAMED_PRICE_LINE.exec(line);
      if (together && !NOT_A_PLAN.test(together[1]!)) return add(together[1]!, page.url, line);
      if (line.length > 24 || !NAME_LINE.test(line) || NOT_A_PLAN.test(line)) return;
      const [next = "", after = ""] = lines.slice(index + 1, index + 3);
      const price = PRICE_LINE.test(next) ? next : wordCount(next) >= 4 && PRICE_LINE.test(after) ? after : undefined;
      if (price) add(line, page.url, `${line} … ${price}`);
    });
  }
  return names;
}

/** A plan column's call to action on a line of its own when it is priced on request. */
const ON_REQUEST =
  /^(?:get in touch|contact us|contact sales|talk to (?:us|sales)|let'?s talk|request (?:a )?quote|ask for (?:a )?quote)\W*$/i;
/** Where the column before it ends: its price, a saving, or its own button. */
const COLUMN_END =
  /^(?:request (?:a )?demo|book (?:a )?demo|sign ?up(?: now| free| today)?|get started|choose(?: plan)?|select(?: plan)?|buy(?: now)?|start (?:a |your )?(?:free )?trial|subscribe|try (?:it )?(?:for )?free)\W*$|^save\b/i;
/** A plan offered to large buyers without the word "enterprise": "For high volume applications or larger corporations we offer …". */
const LARGE_BUYERS =
  /\bfor (?:\w+ ){0,4}(?:larger?|big) (?:corporations|organi[sz]ations|companies|enterprises|businesses)\b|\bfor high[- ]volume (?:applications|customers|senders|teams|users)\b/i;

/**
 * A plan for large customers that is not called Enterprise (framework 2.11.0): a pricing column with a name, at least
 * two feature rows and no price, that ends in "Get in touch" (appknox's "Dedicated Infrastructure … Private Secure
 * Cloud … Get In Touch"), or a plan the pricing page offers to larger corporations or high-volume use.
 */
export function customTier(facts: SiteFacts): Array<Evidence | Mention> {
  for (const page of facts.pagesIn("pricing")) {
    const lines = page.text
      .slice(0, SCORED_TEXT_PER_PAGE)
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    for (let end = 1; end < lines.length; end++) {
      if (!ON_REQUEST.test(lines[end]!)) continue;
      let start = end - 1;
      while (start >= 0 && end - start <= 14 && !PRICE_LINE.test(lines[start]!) && !COLUMN_END.test(lines[start]!))
        start--;
      if (start >= 0 && end - start > 14) continue;
      const [name, ...rows] = lines.slice(start + 1, end);
      if (
        name !== undefined &&
        wordCount(name) <= 4 &&
        !/[$€£¥]\s?\d/.test(name) &&
        rows.length >= 2 &&
        rows.every((row) => wordCount(row) <= 8 && !/[$€£¥]\s?\d/.test(row))
      )
        return [{ url: page.url, text: `pricing page lists a plan priced on request: "${name} … ${lines[end]}"` }];
    }
  }
  return facts.mentions(LARGE_BUYERS, { in: ["pricing"], limit: 1 });
}

/**
 * A free way in: a tier priced $0 or named "Free" on the pricing page, or a sentence that names one
 * ("free plan", "14-day trial", "no credit card required"). One reading for pricing (a free way in)
 * and onboarding (a self-serve start), so the two never disagree about the same site.
 */
export function freeWayIn(facts: SiteFacts): Evidence[] {
  // The tier itself is the plainer evidence: a sentence naming "the free plan" may be about its limits.
  const tier = freeTier(facts);
  return tier.length > 0 ? tier : facts.mentions(FREE_WAY_IN, { limit: 1 });
}
/** "no credit card required", not "no credit card information is stored". */
const FREE_WAY_IN =
  /\b(?:free (?:plan|tier|forever)|free trial|try (?:it )?(?:for )?free|\d+[- ]day (?:free )?trial|start (?:for )?free|no credit card (?:required|needed|necessary))\b/i;

/**
 * A plan named "Enterprise" on the pricing page ("Enterprise - $50 per user", an "Enterprise" column over
 * "Contact us"): the tier that pricing counts is the enterprise plan that enterprise readiness reads.
 */
export function enterpriseTier(facts: SiteFacts): Evidence[] {
  const tier = tierNames(facts).get("enterprise");
  return tier ? [{ url: tier.url, text: `pricing page lists an Enterprise plan: "${tier.line}"` }] : [];
}

/** A free tier on the pricing page: a price of 0, or a plan named or priced "Free". */
function freeTier(facts: SiteFacts): Evidence[] {
  const zero = facts.prices({ in: ["pricing"] }).find((price) => price.amount === 0);
  if (zero) return [{ url: zero.url, text: `pricing page lists a free tier: "${zero.text}"` }];
  // "Free" by name, or priced "Free" ("Personal - Free").
  const named = [...tierNames(facts)].find(([name, { line }]) => name === "free" || /[-–—:] free\b/i.test(line))?.[1];
  return named ? [{ url: named.url, text: `pricing page lists a free tier: "${named.line}"` }] : [];
}
