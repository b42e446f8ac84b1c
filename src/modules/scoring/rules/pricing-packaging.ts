import { moreIsBetter } from "../curves.js";
import type { SiteFacts } from "../site-facts.js";
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

  const free = facts.mentions(
    /\b(free (plan|tier|forever)|free trial|try (it )?(for )?free|\d+[- ]day trial|start (for )?free)\b/i,
    { limit: 1 },
  );
  assessor.signal(
    1.5,
    free.length > 0 ? 85 : undefined,
    free.length > 0 ? "a free plan or trial" : "no free plan or trial mentioned",
    free,
  );

  const units = facts.mentions(
    /\b(per (seat|user|member|month|project|request|credit|gb|1,?000)|\/(seat|user|mo|month)|usage[- ]based|pay[- ]as[- ]you[- ]go|credits?)\b/i,
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

  const enterprise = facts.mentions(/\b(enterprise|contact sales|custom (plan|pricing)|talk to sales)\b/i, {
    ...onPricing,
    limit: 1,
  });
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

/** Tiers: h2/h3 headings on pricing pages that read like plan names. */
function countTiers(facts: SiteFacts): number {
  const names = new Set<string>();
  for (const page of facts.pagesIn("pricing")) {
    for (const heading of page.headings) {
      if (heading.level === 1) continue;
      const text = heading.text.trim().toLowerCase();
      if (
        /^(free|hobby|starter|basic|personal|pro|plus|premium|team|teams|growth|business|scale|enterprise|standard|essentials|advanced|ultimate|developer|startup)\b/.test(
          text,
        ) &&
        text.length <= 30
      ) {
        names.add(text.split(/\s+/)[0]!);
      }
    }
  }
  return names.size;
}
