import type { PageCategory } from "../../crawl/page-priority.js";
import { clamp, moreIsBetter, weighted } from "../curves.js";
import { pageQuotable, pathOf } from "../evidence-relevance.js";
import type { Evidence } from "../scoring.types.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { brandKeys, nameKey, onOwnDomain } from "./code-hosts.js";
import { pricingPackaging, tierNames } from "./pricing-packaging.js";
import { Assessor, counted, plural, type RuleSet } from "./rule.js";

/**
 * Market & Strategy: what the public site says about the market it plays in, the
 * promise it makes, whom it makes it to, and who already believes it. Pricing &
 * Packaging lives in its own file and is re-exported in the pillar's rule set.
 */

/** Every category, so rules can walk all pages through pagesIn (a new category breaks the build here). */
const ALL: readonly PageCategory[] = Object.keys({
  pricing: 1,
  docs: 1,
  api_reference: 1,
  changelog: 1,
  security: 1,
  privacy: 1,
  careers: 1,
  customers: 1,
  integrations: 1,
  status: 1,
  blog: 1,
  about: 1,
  other: 1,
} satisfies Record<PageCategory, 1>) as PageCategory[];

/** A measured outcome: "38%", "10x", "3× faster", "20 hours saved". No "g" flag: facts reuse the object. */
// ("3x faster", "10x more", not a standard's name: "802.1X".)
const QUANTIFIED =
  /\b\d+(?:[.,]\d+)?\s?(?:%|×)|(?<![.\d])\b\d+(?:\.\d+)?\s?x\s+(?:faster|more|less|better|cheaper|quicker|growth|revenue|the|higher|lower|fewer)\b|\b\d+\s?(?:hours?|days?|weeks?|minutes?)\s(?:faster|saved|sooner|less|back)\b/i;

/** Up to `limit` mentions of `pattern` on the page that states the offer (the home page, or its stand-in: SiteFacts.front). */
function onHome(facts: SiteFacts, pattern: RegExp, limit = 5): Mention[] {
  const { front } = facts;
  return facts
    .mentions(pattern, { in: ["other"], limit: 40 })
    .filter((mention) => mention.url === front.url)
    .slice(0, limit);
}

const wordsIn = (text: string): number => text.trim().split(/\s+/).length;

// ---------------------------------------------------------------- market_intelligence

const COMPARISON_LINK = /(?:^|[\s/-])(?:vs\.?|versus|alternatives?)(?=[\s/-]|$)|\/compare(?:[/-]|$)/i;
const CODE_HOST = /^https?:\/\/(www\.)?(github\.com|gitlab\.com|bitbucket\.org)\//i;
const DATED_POST = /\/(?:19|20)\d\d[/-]\d\d(?:[/-]\d\d)?[/-]/;
// ASCII classes, not \p{L}: a "u" regex scans about nine times slower, and these run over every sentence.
// A product named after "vs" (a capital, not a quarter or a metric): "Acme vs Zendesk", not "+20% vs Q2" or "latency vs payload size".
const COMPARISON_TEXT =
  /(?:^|[\s(])(?:vs\.?|versus)\s+(?!Q[1-4]\b|[A-Z][a-z]+ (?:\w+ ){0,3}[Ss]ize\b|[A-Z][a-z]+ (?:\w+ ){0,3}(?:[Tt]imes?|[Rr]ate|[Pp]ace|[Ss]peed|[Cc]ost)\b)[A-Z][\w.-]*|\b[Aa]lternatives? to\s+[A-Z]/;
/** A post weighing the product against another by name, the product named in it (checked apart). */
const WEIGHED_AGAINST =
  /\bdifferences between [\w.-]+ and [\w.-]+|\bwhen to use [\w.-]+(?: [\w.-]+)? (?:and|or|over|instead of) [\w.-]+/i;
// Research about the market: a state-of report, an industry or analyst paper, a benchmark, a survey. A "security white
// paper" or a "technical whitepaper" describes the product, and "we provide research reports" sells a service.
const RESEARCH =
  /\b(?:state of (?!the art\b)[\w-]+(?: [\w-]+)?(?: report| \d{4})|(?:industry|annual|market|benchmark|trends?) reports?|original research|(?:industry|market|analyst|(?:IDC|Gartner|Forrester)(?:['’]s)?)(?: \w+){0,2} white ?papers?|white ?papers?:? (?:on (?:the )?(?:market|industry|state|trends)|observations|findings|survey)|surveyed \d[\d,]{0,15}|\d[\d,]{0,15} (?:respondents|responses to (?:the|our) survey|people surveyed|companies surveyed)|commissioned (?:a |an )?(?:survey|study)|industry benchmarks?)\b/i;
// Placement by analysts and review sites; "the first X platform" and "a leader in payments" are claims, not positioning others confirm.
const POSITIONING =
  /\b(?:magic quadrant|forrester wave|gigaom radar|g2 (?:grid|leader)|named (?:an? |the )?(?:top )?(?:leader|visionary|challenger|strong performer)|category[- ](?:leader|defining|creator))\b/i;

export function marketIntelligence(facts: SiteFacts) {
  const assessor = new Assessor();

  // Comparison pages, by URL ("/vs/zendesk", "/alternatives/x") or by a heading or sentence ("Acme vs Zendesk").
  // A code host's "/compare/v1...v2" is a diff between releases, not a page comparing products.
  // A dated blog post with "vs" in its address ("/2016-04-01-response-time-vs-payload-size") is an article, not a comparison page.
  const links = facts
    .linksMatching(COMPARISON_LINK)
    .filter((link) => !CODE_HOST.test(link.url) && !DATED_POST.test(pathOf(link.url)));
  // …or a post weighing the product against another by name ("Exploring the Differences Between genezio and
  // Express.js", "When to use AWS Lambda and genezio?"): framework 2.11.0. Two versions of a protocol are not products.
  const brands = brandKeys(facts);
  const ours = (text: string) => brands.some((brand) => nameKey(text).includes(brand));
  const texts = [
    ...facts.mentions(COMPARISON_TEXT, { limit: 10 }),
    ...facts.mentions(WEIGHED_AGAINST, { limit: 5 }).filter((mention) => ours(mention.text)),
  ];
  const targets = new Set([...links.map((link) => link.url), ...texts.map((mention) => mention.url)]);
  const comparisonEvidence: Evidence[] = [
    ...links.slice(0, 2).map((link) => ({ url: link.url, text: `comparison page: ${link.text}` })),
    ...texts.slice(0, 2),
  ];
  // A site with comparison content usually has one or two; six or more is a deliberate competitive programme.
  counted(
    assessor,
    2,
    targets.size,
    [2, 6],
    plural(targets.size, "comparison or alternatives page"),
    "no comparison or alternatives pages",
    comparisonEvidence,
  );

  const researchPages = facts.pagesMentioning(RESEARCH);
  // One report is already more than most sites publish; four shows a research habit.
  counted(
    assessor,
    1.5,
    researchPages,
    [1, 4],
    `reports or research on ${plural(researchPages, "page")}`,
    "no reports, benchmarks or research published",
    facts.mentions(RESEARCH, { limit: 2 }),
  );

  const positioning = facts.mentions(POSITIONING, { limit: 5 });
  // Naming the category or an analyst placement once is common; three distinct claims is deliberate positioning.
  counted(
    assessor,
    1,
    positioning.length,
    [1, 3],
    "positions itself in a named category",
    "no positioning against a named category",
    positioning.slice(0, 2),
  );

  return assessor.done(
    targets.size === 0
      ? 'Publish honest comparison pages ("Acme vs X", alternatives) for the competitors buyers weigh you against.'
      : "Publish original research or benchmarks about your market, and name the category you lead.",
  );
}

// ---------------------------------------------------------------- value_proposition

const BUZZWORDS =
  /\b(?:next[- ]gen(?:eration)?|revolutionary|revolutioni[sz]e|world[- ]class|cutting[- ]edge|seamless(?:ly)?|innovative|synerg\w*|best[- ]in[- ]class|game[- ]chang\w*|disrupt\w*|reimagin\w*|the future of|all[- ]in[- ]one|unlock (?:the )?(?:power|potential)|leverag\w*|empower\w*|supercharg\w*|transform your (?:business|workflow))\b/i;
const OUTCOME =
  /\b(?:ship|cut|reduce|save|automate|resolve|close|grow|find|fix|build|launch|deploy|track|collect|send|sell|hire|book|answer|faster|without|in minutes|in seconds)\b/i;
const AUDIENCE =
  /\bfor (?:\w+ ){0,2}(?:teams?|developers|engineers|startups|businesses|companies|enterprises?|marketers|designers|agencies|creators|founders|sellers|recruiters|clinics|schools|lawyers|accountants)\b/i;
const PROBLEM =
  /\b(?:tired of|struggl\w+|frustrat\w+|painful|wasted?|stop (?:wasting|losing|juggling)|instead of|manual(?:ly)?|spreadsheets?|the problems?|(?:costly|difficult|hard|expensive)(?: and \w+)? to (?:fix|find|build|manage|maintain|scale|secure|audit)|too (?:slow|expensive|hard|many))\b/i;
const SOLUTION =
  /\b(?:in \d+ (?:simple |easy )?steps|step \d|so (?:that )?you can|lets you|helps? (?:you|your|teams)|with \w+,? you)\b/i;

/** A description the site generator wrote, not the company. */
const GENERATOR_DEFAULT =
  /^(?:(?:an? |my )?(?:\w+ )?(?:website|site|blog) (?:built|made|created|generated|powered) (?:through|with|using|by|on) \w+|just another (?:wordpress|\w+) (?:site|blog)|(?:powered by|built with) (?:hugo|jekyll|wordpress|ghost|hexo|gatsby|blogdown|squarespace|wix))\b/i;

/** A figure someone else states: "75% of apps fail, says Gartner", "according to IDC". Not the product's outcome. */
const THIRD_PARTY_FIGURE =
  /,\s*(?:says|said|reports|finds|found) [A-Z]|\baccording to (?!(?:our|us|we)\b)|\b(?:says|said|reports|finds) (?:Gartner|Forrester|IDC|McKinsey)\b/;
/** An h1 that is a control of the page, not a headline: the mobile menu's toggle, a skip link. */
const UI_HEADING =
  /^(?:menu|main menu|navigation|nav|close|open menu|search|toggle navigation|skip to (?:main )?content)$/i;

/** 0–100: a headline or description that names an outcome and an audience, in plain words. */
function specificity(text: string): number {
  const words = text.split(/\s+/).filter(Boolean).length;
  const outcome = OUTCOME.test(text);
  const audience = AUDIENCE.test(text);
  const score = weighted([
    [1, words >= 4 && words <= 14 ? 100 : words < 4 ? 30 : 60], // a few words to one short sentence reads as a promise
    [1, outcome ? 100 : 20],
    [1, audience ? 100 : 30],
    [0.5, QUANTIFIED.test(text) && !THIRD_PARTY_FIGURE.test(text) ? 100 : 40],
  ]);
  // Specific means it names an outcome or an audience: a figure and a good length alone do not say what the product does.
  return clamp(Math.min(outcome || audience ? 100 : 49, score - (BUZZWORDS.test(text) ? 25 : 0)));
}

/** Between a page title's parts: "TeamT5 - Persistent Cyber Threat Hunters", "Qualys | Enterprise …". */
const TITLE_SEPARATOR = /\s+[-–—|•·:]\s+/;
/** A line that is a date or a time, not a headline ("2020/06/10", "June 10, 2020"). */
const DATE_LINE = /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$|^[A-Z][a-z]+ \d{1,2},? \d{4}$|^\d{1,2} [A-Z][a-z]+ \d{4}$/;

/**
 * The headline of a page that marks none with an h1: the part of its title beside the site's name
 * ("Persistent Cyber Threat Hunters" from "TeamT5 - Persistent Cyber Threat Hunters"), else its first line of text
 * when that reads as one (two to fourteen words, not a sentence or a question, not a date). Undefined when neither does.
 */
export function unmarkedHeadline(
  page: { readonly title: string; readonly text: string },
  brands: readonly string[],
): { text: string; from: string } | undefined {
  const isName = (part: string) => brands.some((brand) => nameKey(part).includes(brand));
  const parts = page.title.split(TITLE_SEPARATOR).map((part) => part.trim());
  const tagline = parts.length > 1 ? parts.find((part) => !isName(part) && wordsIn(part) >= 2) : undefined;
  if (tagline) return { text: tagline, from: "headline (the page title's tagline; no h1)" };
  const first = page.text
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "");
  if (first === undefined || DATE_LINE.test(first) || /[.?]$/.test(first)) return undefined;
  const words = wordsIn(first);
  return words >= 2 && words <= 14 ? { text: first, from: "headline (the first line; no h1)" } : undefined;
}

export function valueProposition(facts: SiteFacts) {
  const assessor = new Assessor();
  // The home page, or the page a reader clicks through to when the home page says nothing of its own.
  const { home, front } = facts;
  const where = front === home ? "on the home page" : `on ${pathOf(front.url)} (the home page has no words of its own)`;

  const h1 =
    front.headings.find((heading) => heading.level === 1 && !UI_HEADING.test(heading.text.trim()))?.text.trim() ?? "";
  // A page without an h1 (a script-built page's styled text, a span in a banner) still leads with a headline: the
  // tagline its title gives beside the name, or its first line (framework 2.11.0).
  const headline = h1 !== "" ? { text: h1, from: "headline" } : unmarkedHeadline(front, brandKeys(facts));
  if (!headline) {
    assessor.signal(2, undefined, `no headline (h1) ${where}`);
  } else {
    const score = specificity(headline.text);
    assessor.signal(
      2,
      score,
      score >= 50
        ? "a specific headline (outcome and audience)"
        : "a vague headline (no outcome or audience, or buzzwords)",
      [{ url: front.url, text: `${headline.from}: "${headline.text}"` }],
    );
  }

  // A site generator's default ("A website built through Hugo and blogdown", "Just another WordPress site") says nothing.
  const stated = (home.metaDescription || home.openGraph.description || "").trim();
  const description = GENERATOR_DEFAULT.test(stated) ? "" : stated;
  if (description === "") {
    assessor.signal(1, undefined, "no meta description on the home page");
  } else {
    // Search engines show ~150 characters; 50 is a thin description, 120 a full one.
    const score = weighted([
      [1, moreIsBetter(description.length, 50, 120)],
      [2, specificity(description)],
    ]);
    assessor.signal(1, score, score >= 50 ? "a specific meta description" : "a thin or generic meta description", [
      { url: home.url, text: `meta description: "${description.slice(0, 160)}"` },
    ]);
  }

  // An outcome is a sentence ("50-300% faster than without Caffeine"), not a bare figure in a banner ("75% Apps Fail Basic").
  const outcomes = onHome(facts, QUANTIFIED, 10)
    .filter(
      (mention) =>
        wordsIn(mention.text) >= 5 &&
        !/\b(uptime|availability|accuracy)\b/i.test(mention.text) &&
        !THIRD_PARTY_FIGURE.test(mention.text),
    )
    .slice(0, 5);
  // One measured outcome on the home page is typical of a good page; three makes the promise concrete.
  counted(
    assessor,
    2,
    outcomes.length,
    [1, 3],
    `${plural(outcomes.length, "quantified outcome")} ${where}`,
    `no quantified outcomes ${where}`,
    outcomes.slice(0, 2),
  );

  // Each half is a sentence that says it: "how it works" as a heading, or "Let us help you be awesome", say neither.
  const problem = onHome(facts, PROBLEM, 5)
    .filter((mention) => wordsIn(mention.text) >= 5)
    .slice(0, 1);
  const solution = onHome(facts, SOLUTION, 5)
    .filter((mention) => wordsIn(mention.text) >= 6 && !/\blet us help you be\b/i.test(mention.text))
    .slice(0, 1);
  const narrative = problem.length + solution.length;
  // Both halves tell a story (85); one half is a fragment (55).
  const story = [
    "no problem → solution narrative",
    "half a narrative (problem or solution, not both)",
    `a problem → solution narrative ${where}`,
  ];
  assessor.signal(1, narrative === 0 ? undefined : narrative === 2 ? 85 : 55, story[narrative]!, [
    ...problem,
    ...solution,
  ]);

  // Placeholder copy on the home page means no real proposition is being made yet.
  const placeholder = onHome(facts, /\b(lorem ipsum|coming soon|under construction)\b/i, 1);
  if (placeholder.length > 0) {
    assessor.penalty(
      2,
      `placeholder copy ${where}`,
      placeholder.map((mention) => ({
        url: mention.url,
        text: `placeholder copy ${where}: "${mention.text.slice(0, 80)}"`,
      })),
    );
  }

  return assessor.done(
    outcomes.length === 0
      ? 'State a measured outcome on the home page ("cut support costs 38%") and say who it is for in the headline.'
      : "Make the headline name the audience and the outcome in plain words, without buzzwords.",
  );
}

// ---------------------------------------------------------------- target_segments

const SOLUTION_LINK = /\/(?:solutions?|industries|industry|use-cases?|for|who-we-serve|teams|roles?)\/[\w-]+/i;
/** Hubs whose pages are segments by their place: an industry, an audience, a role. */
const SEGMENT_HUB = /\/(?:industries|industry|for|who-we-serve|teams|roles?)\/[\w-]+/i;
/** Help-desk articles (Freshdesk files its knowledge base under "/support/solutions/articles/…"): how-tos, not pages per segment. */
const HELP_DESK_ARTICLE = /\/(?:support|help|kb)\/solutions?\/|\/solutions?\/articles?\//i;
// Sizes too: "For individuals and small teams", "For small to medium sized teams", "For medium to large scale
// organisations", "for large teams"; and who a company says it serves ("We proudly serve many clients worldwide,
// including young innovative startups and large global enterprises"): framework 2.11.0.
const FOR_SEGMENT =
  /\b(?:serv(?:e|es|ing)\b[^.]{0,80}\b(?:including|from|like|such as) [^.]{0,40}\b(?:start-?ups?|smbs?|small business(?:es)?|enterprises|agencies|governments?)\b|for (?:individuals|(?:small|medium|large)(?: to (?:medium|large))?(?:[- ]sized| scale)? (?:teams|organi[sz]ations|companies))|(?:built |made |designed )?for (?:(?:small|growing|modern|large|global|fast-growing|high-growth) )?(?:start-?ups?|smbs?|small business(?:es)?|mid-?market|enterprises?|agencies|freelancers|developers|engineering teams|product teams|marketing teams|sales teams|support teams|finance teams|hr teams|it teams|designers|marketers|recruiters|healthcare|fintech|financial services|banks|insurance|e-?commerce|retail(?:ers)?|education|schools|universities|government|public sector|non-?profits|manufacturing|logistics|real estate|legal|law firms|media|accountants|accounting firms|bookkeepers|cfos|(?:finance|financial|accounting|legal|marketing|sales|it|hr|security|healthcare|medical|creative) (?:professionals|pros|leaders)))\b/i;
/** A line that lists the audience: "Accountants, FP&A Pros, Bookkeepers & CFOs" (kept when two or more are roles or segments, AUDIENCE_WORD). */
const AUDIENCE_LIST =
  /^(?:[A-Z][\w&'’-]*(?: [A-Z][\w&'’-]*)?, ){1,4}[A-Z][\w&'’-]*(?: [A-Z][\w&'’-]*)?,? (?:&|and) [A-Z][\w&'’-]*(?: [A-Z][\w&'’-]*)?$/;
const AUDIENCE_WORD =
  /\b(?:accountants|bookkeepers|cfos|ctos|founders|developers|engineers|marketers|designers|recruiters|lawyers|attorneys|agencies|freelancers|start-?ups|enterprises|consultants|clinics|retailers|teachers|nonprofits|pros|professionals|leaders)\b/gi;
const SEGMENTS: ReadonlyArray<readonly [string, RegExp]> = [
  ["startups", /\bstart-?ups?\b/i],
  ["individuals", /\bindividuals\b/i],
  ["small teams", /\bsmall(?: to medium)?(?:[- ]sized)? teams\b/i],
  ["large organisations", /\b(?:medium to large|large)(?: scale|[- ]sized)? (?:organi[sz]ations|companies|teams)\b/i],
  ["small business", /\b(?:small business(?:es)?|smbs?|smes?)\b/i],
  ["mid-market", /\bmid-?market\b/i],
  ["enterprise", /\benterprises?\b/i],
  ["agencies", /\bagenc(?:y|ies)\b/i],
  ["freelancers", /\bfreelancers?\b/i],
  ["developers", /\b(?:developers?|engineering)\b/i],
  ["product teams", /\bproduct (?:teams?|managers?)\b/i],
  ["marketing", /\bmarket(?:ers|ing(?:[- ]teams?)?)\b/i],
  ["sales", /\bsales(?:[- ]teams?)?\b/i],
  ["support", /\bsupport[- ]teams?\b/i],
  ["finance", /\b(?:finance|fintech|financial[- ]services|banks?|banking|lenders?|insurance|insurers|cfos?)\b/i],
  ["aviation", /\b(?:aviation|airlines?|lessors?|airports?)\b/i],
  ["accounting", /\b(?:accountants?|accounting firms?|bookkeep(?:ers?|ing))\b/i],
  ["healthcare", /\b(?:health ?care|clinics?|hospitals?)\b/i],
  ["commerce", /\b(?:e-?commerce|retail(?:ers)?)\b/i],
  ["education", /\b(?:education(?:al)?|schools?|universities|edtech)\b/i],
  ["telecom", /\b(?:internet service providers|isps|telecoms?|telcos?|mobile operators)\b/i],
  ["public sector", /\b(?:government|public[- ]sector)\b/i],
  ["nonprofits", /\bnon-?profits?\b/i],
  ["manufacturing", /\bmanufacturing\b/i],
  ["logistics", /\blogistics\b/i],
  ["legal", /\b(?:legal|law[- ]firms?)\b/i],
  ["real estate", /\breal[- ]estate\b/i],
  ["media", /\bmedia\b/i],
];
const SEGMENT_PLAN =
  /^(?:start-?ups?|teams?|business|enterprise|agency|agencies|individual|personal|solo|freelancer|small business|scale-?up|nonprofit|education|student|organi[sz]ations?)\b/i;

/** A section title on the home page that names a segment: a short title-case line, ending in a plural, over a sentence. */
function homeSegmentSections(facts: SiteFacts): Mention[] {
  const lines = facts.home.text
    .slice(0, SCORED_TEXT_PER_PAGE)
    .split("\n")
    .map((line) => line.trim());
  const found = new Map<string, Mention>();
  lines.forEach((line, index) => {
    const next = lines[index + 1] ?? "";
    if (
      wordsIn(line) <= 4 &&
      // Title case, ending in a plural: a group of customers ("Lessors", "Educational Institutions"), not a product
      // ("Enterprise TruRisk Platform") or a quality ("Developer Experience").
      /^(?:[A-Z][\w&'’-]*\s+){0,3}[A-Z][\w'’-]*[a-z]s$/.test(line) &&
      wordsIn(next) >= 6 &&
      SEGMENTS.some(([, pattern]) => pattern.test(line)) &&
      !found.has(line)
    )
      found.set(line, { url: facts.home.url, text: line, quoted: true });
  });
  return [...found.values()].slice(0, 5);
}

export function targetSegments(facts: SiteFacts) {
  const assessor = new Assessor();

  // A page per industry, role or size: under a hub that says so ("/industries/retail", "/for/agencies"), or a solutions
  // page whose address or link names a segment ("/solutions/lessors"). "/solutions/pci-compliance" and
  // "/solutions/cloud-security" are product areas, not segments (framework 2.11.0).
  const solutionLinks = facts
    .linksMatching(SOLUTION_LINK)
    .filter((link) => SOLUTION_LINK.test(pathOf(link.url)) && !HELP_DESK_ARTICLE.test(pathOf(link.url)))
    .filter(
      (link) =>
        SEGMENT_HUB.test(pathOf(link.url)) ||
        SEGMENTS.some(([, pattern]) => pattern.test(`${pathOf(link.url).replace(/[-_/]/g, " ")} ${link.text}`)),
    );
  // Two solutions pages (say, one per size) is a typical start; six covers industries and roles.
  counted(
    assessor,
    2,
    solutionLinks.length,
    [2, 6],
    `${plural(solutionLinks.length, "solutions page")} by industry, role or size`,
    "no solutions pages by industry, role or size",
    solutionLinks.slice(0, 2).map((link) => ({ url: link.url, text: `solutions page: ${link.text}` })),
  );

  const forMentions = [
    ...facts.mentions(FOR_SEGMENT, { limit: 20 }),
    ...facts
      .mentions(AUDIENCE_LIST, { limit: 5 })
      .filter((mention) => (mention.text.match(AUDIENCE_WORD) ?? []).length >= 2),
  ];
  // The home page's sections headed by a segment ("Internet Service Providers" / "Enterprise Networks" / "Educational
  // Institutions", each over a sentence of its own): framework 2.11.0.
  const sections = homeSegmentSections(facts);
  forMentions.push(...sections);
  const named = new Set<string>();
  for (const text of [
    ...forMentions.map((mention) => mention.text),
    ...solutionLinks.map((link) => pathOf(link.url)),
  ]) {
    for (const [label, pattern] of SEGMENTS) if (pattern.test(text)) named.add(label);
  }
  // Naming two segments ("for startups and enterprises") is common; six distinct ones is a segmented go-to-market.
  counted(
    assessor,
    1.5,
    named.size,
    [2, 6],
    `names ${plural(named.size, "segment")} (${[...named].slice(0, 4).join(", ")})`,
    'names no customer segment ("for startups", "for healthcare")',
    forMentions.slice(0, 2),
  );

  const pricing = facts.pagesIn("pricing");
  const plans = new Map<string, string>();
  for (const page of pricing) {
    for (const heading of page.headings) {
      const text = heading.text.trim();
      if (heading.level !== 1 && text.length <= 30 && SEGMENT_PLAN.test(text)) plans.set(text.toLowerCase(), page.url);
    }
  }
  // The plans pricing reads from the page's lines too ("Personal - Free", "Organization - $10 per user"): 2.11.0.
  for (const [name, { url }] of tierNames(facts)) if (SEGMENT_PLAN.test(name) && !plans.has(name)) plans.set(name, url);
  const [firstPlanUrl] = plans.values();
  // One segment-named plan ("Team") is usual; three (Startup, Team, Enterprise) maps the ladder onto segments.
  counted(
    assessor,
    1,
    plans.size,
    [1, 3],
    `${plural(plans.size, "plan")} named for a segment`,
    "no plans named for segments",
    firstPlanUrl ? [{ url: firstPlanUrl, text: `plans named for segments: ${[...plans.keys()].join(", ")}` }] : [],
  );

  return assessor.done(
    solutionLinks.length === 0
      ? "Add solutions pages per industry, role or company size, each with its own proof."
      : "Name each plan for the segment it serves and give every segment its own page.",
  );
}

// ---------------------------------------------------------------- customer_proof

const STORY_LINK =
  /\/(?:customers|case-studies|case-study|customer-stories|stories|success-stories|clients|references|achievements|showcase)\/[\w-]+/i;
/**
 * A page filed under the customers section that tells no customer's story: its awards, its reviews, its press
 * ("/customers/awards": "Qualys Ranks #1 …", framework 2.10.0).
 */
const NOT_A_STORY =
  /\/(?:awards?|awards-and-recognition|recognition|reviews?|press|analyst-reports?|analysts)\/?(?:[?#]|$)/i;
const isStoryPath = (path: string): boolean => STORY_LINK.test(path) && !NOT_A_STORY.test(path);
/** A story whose address starts with the kind of page: "/case-study-mobile-testing", "/customer-stories-globex". */
const STORY_PREFIX_LINK = /\/(?:case-stud(?:y|ies)|customer-stor(?:y|ies)|success-stor(?:y|ies))-[\w-]+/i;

/**
 * "Used by" alone is the label of a logo strip; in a sentence it must say by whom ("used by 500 teams"), not "used by You" or "used by banks".
 * "Companies like X" names customers only when they use the product ("companies like Stripe use Acme"): otherwise it is a
 * comparison ("measured against billion dollar companies like Facebook"), a feature list ("useful for large companies like
 * a virtual assistant") or a bio ("led products at companies like Cisco").
 */
const NAMED =
  /\b(?:trusted by|used by (?:over |more than )?(?:\d[\d,.]{0,15}k?\+? |thousands|millions|hundreds|leading|top|the world'?s|teams|companies|developers|engineers|businesses|organi[sz]ations|customers|brands)|loved by|relied on by|chosen by|customers (?:like|include|such as)|companies (?:like|such as) [^.\n]{1,80}?\b(?:use|uses|used|rely|relies|trust|trusts|chose|choose|run on|runs on|build on|built on|build with|built with|depend on|deploy|deployed|power|powers)\b|teams at|join(?:ed)? (?:over |more than )?[\d,.]{1,15}k?\+? (?:companies|teams|customers|businesses|organi[sz]ations|developers|users))\b|\bused by:?$/i;
/** An idea in use, not the product: "This model is also used by companies offering services at a monthly fee." */
const IDEA_USED_BY =
  /\b(?:models?|approach(?:es)?|methods?|techniques?|patterns?|strateg(?:y|ies)|practices?|concepts?|ideas?) (?:is|are) (?:(?:also|now|widely|commonly|often|already) )*used by\b/i;
/**
 * A named organisation choosing the product, in prose: "EasyJet, UK's largest
 * airline, selected FlightWatching", "Etihad chose Acme". Case matters: the
 * customer is a proper name, not a pronoun or an article.
 */
const SELECTED_BY =
  /(?:^|[.!?]\s+|\n)(?!(?:The|Our|We|You|They|This|That|It|Customers|Companies|Teams|Users)\b)[A-Z][\w&'’.-]+(?: [A-Z][\w&'’.-]+){0,3}(?:, [^,.\n]{2,60},)? (?:has |have )?(?:selected|chose|chooses|picked|adopted|deployed|signed with) (?:[A-Z]|us\b)/;
/** An award, not a customer choosing the product: "SC Media has selected Acme as the winner for …". */
const AWARD = /\bas (?:the |an? )?(?:\w+ )?(?:winner|finalist|recipient|honou?ree)\b|\bawards?\b/i;
/**
 * A stated count of customers, with one qualifier: "10,000 subscription customers", "500 paying teams", "9,000 sales
 * teams" (any one word: framework 2.12.0; the count decides whether the proof is a body of proof).
 */
const CUSTOMER_COUNT =
  /(\d[\d,.]{0,15})\s?(k|m|million)?\+?\s(?:[a-z][a-z-]{1,20} )?(?:companies|teams|customers|businesses|organi[sz]ations|developers|users)\b/i;
/** A customer base that relies on the product: "More than 10,000 subscription customers in 130 countries rely on Acme". */
const CUSTOMER_BASE =
  /(?<![\d.,%$€£])\b\d[\d,.]{0,15}\s?(?:k|m|million)?\+?\s(?:(?:subscription|active|paying|enterprise|business) )?(?:companies|teams|customers|businesses|organi[sz]ations|brands)\b[^.!?\n]{0,40}?\b(?:rely|relies|trust|use|choose|chose|run|depend)\s(?:on\s)?(?:us|our|it|the|[A-Z])/;
/** The roles a testimonial's author gives ("CTO", "Head of Growth", "Chief Financial Officer", "Full Stack Developer"). */
const ROLE =
  "(?:ceo|cto|coo|cfo|cmo|cpo|cio|ciso|vp\\b|vice president|head of|director|(?:co-?)?founder|chief (?:[\\w-]+ ){1,2}officer|(?:(?!(?:for|every|any|each|one|no|the|an?|your|our|their|and|or|to|with|of)\\b)[\\w-]+ ){0,2}(?:manager|engineer|developer|lead)|president|principal|owner|partner)\\b";
/**
 * A name and a role, as a testimonial signs off: "— Jane Doe, CTO", "- Sam Lee, CEO & Co-Founder, Globex",
 * "Stan Lee - Chief Financial Officer, Globex"; or a name, a role and "at" a company: "Ken Lee Software Engineer at Globex".
 */
const TESTIMONIAL = new RegExp(
  `(?:^[-—–~]?\\s*|[—–~"”]\\s*|\\s-\\s)[a-zà-öø-ÿ][a-zà-öø-ÿ.'’-]*(?: [a-zà-öø-ÿ][a-zà-öø-ÿ.'’-]*){1,3}(?:,\\s*|\\s[-–—]\\s)${ROLE}`,
  "i",
);
/** "Ken Lee Software Engineer at Globex", "Peter Lee CTO at Globex": a capitalised name, then a role at a company, and nothing else. */
const TESTIMONIAL_AT =
  /^(?:[-—–~]\s*)?(?!(?:Senior|Junior|Managing|Chief|Head|Lead|Principal|Staff|Vice|Executive|General|Associate|Assistant|Software|Security|Technical|Product|Marketing|Sales|Our|The)\b)[A-Z][a-zà-öø-ÿ'’-]+(?: (?!(?:Senior|Junior|Managing|Chief|Head|Lead|Principal|Staff|Vice|Executive|General|Associate|Assistant|Software|Security|Technical|Product)\b)[A-Z][a-zà-öø-ÿ'’-]*){1,2} (?:[A-Z][\w&-]* ){0,3}(?:CEO|CTO|COO|CFO|CMO|CPO|CIO|CISO|VP|Founder|Co-?[Ff]ounder|Director|Manager|Engineer|Developer|Lead|President|Partner|Owner|Principal) at \S[^!?]{0,60}$/;
/**
 * An attribution on its own line, under a quoted passage: a name of two to four capitalised words, then
 * optionally a role or a company after ",", " - " or " at " ("Jane Doe, Globex", "— Jane Doe - CTO, Globex"), or the
 * author's handle when the quote is a post ("Jane Doe @janedoe").
 */
const ATTRIBUTION =
  /^(?:[-—–~]\s*)?(?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?[A-Z][a-zà-öø-ÿ'’-]+(?: [A-Z][\wà-öø-ÿ'’.-]*){1,3}(?:(?:,| [-–—|]| at) [^\s!?][^!?]{0,70}| @\w{1,30})?$/;
/** A name alone on its line: "Jane Doe", "Dr. Jane Doe". */
const BARE_NAME = /^(?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?[A-Z][a-zà-öø-ÿ'’-]+(?: [A-Z][a-zà-öø-ÿ'’-]*){1,3}$/;
/** The line under a name that gives the role: "Chief Radiologist, City Hospital", "Globex's Director of Fleet Management". */
const ROLE_LINE =
  /^(?:[A-Z][\w&'’.-]* ){0,4}(?:Chief(?: [A-Z][\w-]*){1,2}|CEO|CTO|COO|CFO|CMO|CPO|CIO|CISO|VP|Vice President|Head of|Director|Founder|Co-?[Ff]ounder|President|Manager|Engineer|Developer|Lead|Partner|Owner|Principal)\b[^!?]{0,60}$/;
/** A line that opens a call to action or a section, not a name: "Read The Story", "Get Started Today". */
const NOT_A_NAME =
  /^(?:[-—–~]\s*)?(?:Get|Book|Learn|Read|Start|Try|Contact|Request|See|Watch|Sign|Join|Download|Explore|View|Discover|Schedule|Visit|Our|The|Why|How|What|More|All|Meet|Case|Customer|Success|Trusted|Used|Loved)\b/;
/**
 * A quoted passage: the whole line is in double quotes, or it opens a quote that goes on below or closes one
 * begun above. A line that only quotes a phrase ("“What-if” analysis on leases") is not a quote.
 */
function quotedPassage(line: string): boolean {
  if (line.length <= 40) return false;
  const marks = (line.match(/["“”„«»]/g) ?? []).length;
  const opens = /^["“”„«]/.test(line);
  const closes = /["”»][.,!?…]*$/.test(line);
  return opens && closes ? marks === 2 : (opens || closes) && marks === 1;
}
/** A passage in a customer's own voice ("has transformed our workflow"), not a bio ("She leads …"). */
const FIRST_PERSON = /\b(?:I|I'm|I've|we|we're|we've|our|us|my)\b/i;
const THIRD_PERSON = /^(?:\w+\s+){0,3}(?:he|she)\b|\b(?:his|her)\b/i;
/** How far below a "Testimonials" heading its quotes run. */
const SECTION_LINES = 40;
/** Where a quoted person works, said without a role: "EasyJet", "Technician, Alam Hospital" (capitalised words). */
const WORKPLACE = /^[A-Z][\w&'’.-]*(?: [A-Z&][\w&'’.-]*){0,3}(?:, [A-Z][\w&'’.-]*(?: [A-Z&][\w&'’.-]*){0,3})?$/;
/** A carousel's own controls under the last quote ("Previous Next"): not where anyone works. */
const CAROUSEL_CONTROLS = /^(?:(?:previous|prev|next|back|more)\b\s*)+$/i;
/** A heading over a wall of quotes. */
const TESTIMONIALS_HEADING =
  /^(?:testimonials?|reviews|what (?:our )?(?:customers|clients|users|people) (?:say|are saying)|(?:hear )?from our (?:customers|clients|users))\b/i;

/** A customer quoted in a story's prose: "“… I have ever been involved in.” said Fabro.", "…,” remarks Fabro". */
const SAID_BY =
  /[”"]\s*,?\s*(?:said|says|adds|added|remarks|remarked|explains|explained|notes|noted|recalls|recalled)\s+(?:(?:Mr|Ms|Mrs|Dr)\.\s)?(\p{Lu}[\p{L}'’-]+)/gu;
/** A role beside a person's full name: "Director of IT Services, Ray Fabro", "Ray Fabro, Director of IT Services". */
const ROLE_BESIDE_NAME =
  /\b(?:director|manager|head of|chief|ceo|cto|cio|cfo|coo|cmo|vp|vice president|(?:co-?)?founder|president|owner|partner|lead|officer|administrator)\b/i;

/** The title that ends just before a name: "… an obvious win for Director of IT Services, " gives "Director of IT Services". */
function titleBefore(text: string): string {
  const words = text.replace(/,\s*$/, "").trim().split(/\s+/);
  const title: string[] = [];
  for (let index = words.length - 1; index >= 0; index -= 1) {
    const word = words[index]!;
    if (!/^\p{Lu}/u.test(word) && !/^(?:of|and|&)$/.test(word)) break;
    title.unshift(word);
  }
  while (title.length > 0 && !/^\p{Lu}/u.test(title[0]!)) title.shift();
  return title.join(" ");
}

/**
 * Quotes a customer story attributes in its prose to a person the story names with a role (framework 2.10.0): a
 * signature, though it is not on a line of its own. Each person counts once, with their role as the story gives it.
 */
function quotesInStories(facts: SiteFacts): Evidence[] {
  const found: Evidence[] = [];
  // The vendor's own people quoted in a story ("said Jane Doe, CEO of Acme") are not the customer's voice.
  const brands = brandKeys(facts);
  for (const page of facts.pagesIn("customers")) {
    const text = page.text.slice(0, SCORED_TEXT_PER_PAGE);
    const people = new Set<string>();
    for (const match of text.matchAll(SAID_BY)) {
      const surname = match[1]!;
      if (people.has(surname)) continue;
      const escaped = surname.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      for (const named of text.matchAll(new RegExp(`\\p{Lu}[\\p{L}'’-]+ ${escaped}\\b`, "gu"))) {
        const at = named.index;
        const before = text.slice(Math.max(0, at - 50), at);
        const after = text.slice(at + named[0].length, at + named[0].length + 50);
        // The role sits before the name ("Director of IT Services, Ray Fabro") or after it ("Ray Fabro, Director …").
        const title =
          /,\s*$/.test(before) && ROLE_BESIDE_NAME.test(before)
            ? titleBefore(before)
            : /^,/.test(after) && ROLE_BESIDE_NAME.test(after)
              ? after
                  .slice(1)
                  .split(/[,.;:!?\n]/)[0]!
                  .trim()
              : undefined;
        if (title === undefined) continue;
        people.add(surname);
        if (!brands.some((brand) => nameKey(title).includes(brand)))
          found.push({ url: page.url, text: `quote attributed to ${named[0]}, ${title}` });
        break;
      }
    }
  }
  return found;
}

/**
 * Quotes signed by a named person, read line by line on the pages customer proof may quote: an attribution
 * line under a quoted passage ("“It just works.”" then "Jane Doe, Globex"), or a name line with a role line
 * under it, after a passage in a customer's own voice or a "Testimonials" heading. Headings, link texts and
 * calls to action are not names; a quote signed by the company's own people is not a customer's.
 */
function attributedQuotes(facts: SiteFacts, limit: number): Evidence[] {
  const found: Evidence[] = [];
  const brands = brandKeys(facts);
  const own = (text: string) => brands.some((brand) => nameKey(text).includes(brand));
  for (const page of facts.pages) {
    const category = facts.categoryOf(page.url) ?? "other";
    // A security page is read too: a security vendor's service page ("/security": audits for sale) carries its
    // customers' signed quotes, and a signature is what makes a quote proof, whatever page holds it.
    if (
      category !== "security" &&
      !pageQuotable("customer_proof", { url: page.url, category, home: page === facts.home })
    )
      continue;
    const headings = new Set(page.headings.map((heading) => heading.text.trim()));
    const links = new Set([...page.internalLinks, ...page.externalLinks].map((link) => link.text.trim()));
    const notName = (line: string) => headings.has(line) || links.has(line) || NOT_A_NAME.test(line) || own(line);
    const lines = scoredLines(page);
    // Lines under a "Testimonials" heading (framework 2.9.0): every long line there is a quote, marked or not, and a
    // name's line may give a role or only where the person works ("Technician, Alam Hospital", "EasyJet").
    const role = (text: string | undefined, inSection: boolean): text is string =>
      text !== undefined &&
      !own(text) &&
      (ROLE_LINE.test(text) || (inSection && !notName(text) && WORKPLACE.test(text) && !CAROUSEL_CONTROLS.test(text)));
    let section = -1;
    for (let i = 1; i < lines.length && found.length < limit; i++) {
      const line = lines[i]!;
      const before = lines[i - 1]!;
      const underHeading = TESTIMONIALS_HEADING.test(before);
      if (underHeading) section = i - 1;
      const inSection = section >= 0 && i - section <= SECTION_LINES;
      if (line.length > 90) continue;
      // What comes before decides first (most lines follow no quote), then whether the line can be a name.
      const quoted = quotedPassage(before);
      const next = lines[i + 1];
      // A name first, its role, then the quote within two lines (a card: name, company, "Visit website", quote).
      const quoteFollows = inSection && lines.slice(i + 2, i + 4).some((after) => after.length > 60);
      const spoken =
        quoted ||
        (before.length > 40 && FIRST_PERSON.test(before) && !THIRD_PERSON.test(before)) ||
        underHeading ||
        (inSection && before.length > 60) ||
        quoteFollows;
      if (!spoken || notName(line)) continue;
      if (quoted && ATTRIBUTION.test(line)) {
        found.push({ url: page.url, text: line, quoted: true });
        continue;
      }
      if (BARE_NAME.test(line) && role(next, inSection)) {
        found.push({ url: page.url, text: `quote attributed to ${line}, ${next}` });
        i += 1;
      }
    }
    if (found.length >= limit) break;
  }
  return found;
}

const RATING =
  /\b(?:g2|capterra|trustpilot|product hunt|trustradius|gartner peer insights|app store|google play)\b.{0,40}?\b[1-5](?:\.\d)?\s?(?:\/\s?5|stars?|out of 5)|\b[1-5]\.\d\s?(?:\/\s?5|stars?|out of 5)\b/i;

/** A rating shown as a badge on a line of its own, on any page read: "Average 4.8/5 Rating", "4.9 out of 5 stars". */
function ratingBadges(facts: SiteFacts): Evidence[] {
  for (const page of facts.pages) {
    // The pages customer proof may quote: not a privacy policy's or a job ad's lines.
    const category = facts.categoryOf(page.url) ?? "other";
    if (!pageQuotable("customer_proof", { url: page.url, category, home: page === facts.home })) continue;
    const line = scoredLines(page).find((text) => text.length <= 60 && RATING.test(text));
    if (line) return [{ url: page.url, text: `rating shown: "${line}"` }];
  }
  return [];
}

/** A page's scored text as trimmed, non-empty lines. */
function scoredLines(page: { readonly text: string }): string[] {
  return page.text
    .slice(0, SCORED_TEXT_PER_PAGE)
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The label of a logo strip on the home page: a line that is only "Used by", "Trusted by" or "Our customers",
 * the logos under it being images. (A two-word line is a fragment that mentions never read.)
 */
function logoStripLabel(facts: SiteFacts): Evidence[] {
  const { home } = facts;
  const label = scoredLines(home).find((line) => LOGO_STRIP_LABEL.test(line) || LEADERS_TRUST.test(line));
  return label ? [{ url: home.url, text: `a logo strip labelled "${label}" on the home page` }] : [];
}
/**
 * A logo strip's label on a line of its own: "Trusted by", "Our clients:", and the customers called happy ("Our happy
 * customers", "Some of our satisfied clients", "Supporting these happy teams": framework 2.9.0).
 */
const LOGO_STRIP_LABEL =
  /^(?:used by|trusted by|loved by|relied on by|our customers|our clients|(?:[a-z]+ )?(?:(?:some )?of )?(?:these |our )?(?:happy|satisfied) (?:customers|clients|teams|users))\s*:?$/i;
/**
 * The same label said the other way round, a line of its own: "The world's leading projects trust Acme",
 * "Top teams rely on us". Not a sentence that goes on ("leading companies use AI to …").
 */
const LEADERS_TRUST =
  /^(?:the )?(?:world['’]s |industry['’]s )?(?:leading|top|best|biggest|largest|most innovative) (?:[\w-]+ )?(?:projects|companies|teams|brands|organi[sz]ations|businesses|enterprises|startups) (?:trust|work with|rely on|choose|build (?:with|on)) (?:us|[\w.&'’-]+)[.!]?$/i;

/** A sign-off ends its sentence, a company at most after the role: not a speaker's line that goes on to a talk's title. */
function signsOff(mention: Mention): boolean {
  const match = TESTIMONIAL.exec(mention.text);
  return match !== null && wordsIn(mention.text.slice(match.index + match[0].length) || "x") <= 6;
}

function customerCount(text: string): number | undefined {
  const match = CUSTOMER_COUNT.exec(text);
  if (!match) return undefined;
  const base = Number((match[1] ?? "").replace(/,/g, ""));
  const unit = (match[2] ?? "").toLowerCase();
  return Number.isFinite(base) ? base * (unit === "k" ? 1e3 : unit === "" ? 1 : 1e6) : undefined;
}

/** A story's parts, as its section labels say: "Cheers Challenge:", "The Solution:", "Results". */
const STORY_PART =
  /^(?:[\p{Lu}][\p{L}\d&.'’-]* )?(?:the )?(?:challenges?|problem|solution|results?|outcomes?|impact|approach)\s*:?$/iu;
/** A section's title: a short line of words, no sentence ("Plastic Bottle Counting", "Invoice Processing"). */
const SECTION_TITLE = /^[\p{Lu}\d][\p{L}\d&'’ -]{2,60}$/u;
/** A paragraph about a client: it says so ("a client", "customers", "case study"), or opens on its name ("Cosine has …"). */
const ABOUT_A_CLIENT =
  /\b(?:clients?|customers?|case study)\b|^(?:The )?(?:\p{Lu}[\p{L}\d&.-]*\s){1,4}(?:in \p{Lu}[\p{L}]+ )?(?:is|are|has|had|was|were|needed|needs|wanted|uses|used|runs|operates|chose)\b/u;

/**
 * Stories a customers page tells in its own text, not on pages of their own (framework 2.10.0). A page laid out as one
 * story (at least two of "Challenge", "Solution", "Results") is one; otherwise each section whose short title is followed
 * by a paragraph of 30 words or more about a client, in the third person, is one ("Plastic Bottle Counting" / "The United Nations in Rustavi
 * is running a project …"). A list of links to stories has no such paragraphs: its stories are counted as links.
 */
function inlineStories(page: { url: string; text: string }): Evidence[] {
  const lines = page.text
    .slice(0, SCORED_TEXT_PER_PAGE)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const parts = new Set(
    lines
      .filter((line) => STORY_PART.test(line))
      .map((line) => line.replace(/\W+$/, "").toLowerCase().split(" ").at(-1)),
  );
  if (parts.size >= 2) return [{ url: page.url, text: `case study told on the page: ${lines[0] ?? page.url}` }];
  const stories: Evidence[] = [];
  const words = (line: string | undefined) => (line === undefined ? 0 : line.split(/\s+/).length);
  lines.forEach((line, index) => {
    const lead = lines[index + 1];
    if (lead === undefined || !SECTION_TITLE.test(line) || words(line) > 8) return;
    // The story's opening paragraph: its lead line and the one after (a story often breaks after its first sentence).
    const after = lines[index + 2];
    const body = words(lead) + (after !== undefined && !SECTION_TITLE.test(after) ? words(after) : 0);
    // About a client, in the third person: "We proudly serve many clients worldwide" is the page's own introduction.
    const opening = lead.split(/(?<=[.!?])\s/)[0] ?? lead;
    if (body < 30 || !ABOUT_A_CLIENT.test(lead) || /\b(?:we|our|us)\b/i.test(opening)) return;
    stories.push({ url: page.url, text: `case study told on the page: ${line}` });
  });
  return stories;
}

/** A link titled as a case study: "… – Case Study", "Case Study: …", "Acme Case Study – Lab Equipment". */
const STORY_TITLE = /^case study\b\s*[:–—-]|[–—-]\s*case study\s*$|^[\w&.' -]{1,40} case study\s*[–—:-]\s*\S/i;

export function customerProof(facts: SiteFacts) {
  const assessor = new Assessor();
  const customerPages = facts.pagesIn("customers");

  const stories = new Map<string, Evidence>();
  for (const { url, title } of customerPages)
    if (isStoryPath(pathOf(url))) stories.set(url, { url, text: `case study: ${title || url}` });
  for (const { url, text } of facts.linksMatching(STORY_LINK)) {
    if (isStoryPath(pathOf(url)) && !stories.has(url)) stories.set(url, { url, text: `case study: ${text}` });
  }
  // A story filed under a prefix ("/case-study-mobile-testing"), on the site's own domain (a landing subdomain counts).
  for (const { url, text } of facts.linksMatching(STORY_PREFIX_LINK)) {
    if (STORY_PREFIX_LINK.test(pathOf(url)) && !stories.has(url) && onOwnDomain(facts, url))
      stories.set(url, { url, text: `case study: ${text.trim() || pathOf(url)}` });
  }
  // A post titled as one, wherever it is filed ("Replacing DIY Exception Logging with Acme – Case Study", "Case Study:
  // Server Expiration Error"): framework 2.9.0.
  for (const { url, text } of facts.linksMatching(STORY_TITLE)) {
    if (STORY_TITLE.test(text) && !stories.has(url) && onOwnDomain(facts, url))
      stories.set(url, { url, text: `case study: ${text.trim()}` });
  }
  // Stories told on a customers page itself, when it links to none of its own.
  for (const page of customerPages) {
    if ([...stories.keys()].some((url) => url !== page.url)) break;
    for (const story of inlineStories(page)) stories.set(`${story.url}#${story.text}`, story);
  }
  // Any story beats a bare customers page (40 floor); three stories is the norm (70), a dozen a proof library (94).
  const [index] = customerPages;
  if (stories.size > 0) {
    assessor.signal(
      2,
      40 + 0.6 * moreIsBetter(stories.size, 3, 12),
      plural(stories.size, "case study", "case studies"),
      [...stories.values()].slice(0, 2),
    );
  } else if (index) {
    assessor.signal(2, 35, "a customers page without individual case studies", [
      { url: index.url, text: "customers page" },
    ]);
  } else {
    assessor.signal(2, undefined, "no customers page or case studies");
  }

  // Quotes signed with a name: a testimonial's sign-off ("— Jane Doe, CTO"), or a name line under a quote.
  const attributions = attributedQuotes(facts, 10);
  const testimonials: Evidence[] = [];
  const signed = new Set<string>();
  for (const evidence of [
    ...facts.mentions(TESTIMONIAL, { limit: 10 }).filter(signsOff),
    ...facts.mentions(TESTIMONIAL_AT, { limit: 10 }),
    ...attributions,
    ...quotesInStories(facts),
  ]) {
    const key = nameKey(evidence.text.replace(/^quote attributed to /, ""));
    if (signed.has(key) || testimonials.length >= 10) continue;
    signed.add(key);
    testimonials.push(evidence);
  }

  const named: Evidence[] = [
    ...facts.mentions(NAMED, { limit: 4 }).filter((mention) => !IDEA_USED_BY.test(mention.text)),
    ...facts.mentions(SELECTED_BY, { limit: 6 }).filter((mention) => !AWARD.test(mention.text)),
    ...facts.mentions(CUSTOMER_BASE, { limit: 4 }).filter((mention) => (customerCount(mention.text) ?? 0) >= 100),
    ...logoStripLabel(facts),
    // A quote signed for a company ("Jane Doe, Globex") is counted once, as a testimonial below: one
    // sentence is not both a wall of named customers and a signed quote.
  ].slice(0, 3);
  const count = named.map((mention) => customerCount(mention.text)).find((value) => value !== undefined);
  // A stated base is worth more the larger it is: a thousand customers is a median claim, a hundred thousand a leading one.
  const claim =
    count === undefined ? 'names customers ("trusted by …")' : `claims ${count.toLocaleString("en-US")} customers`;
  assessor.signal(
    1.5,
    named.length > 0 ? Math.max(65, count === undefined ? 0 : moreIsBetter(count, 1000, 100_000)) : undefined,
    named.length > 0 ? claim : 'no logo wall or customer list ("trusted by …")',
    named.slice(0, 2),
  );

  // At most two measured results per page: one story's five figures are one customer's result, not five.
  const perPage = new Map<string, number>();
  const numbers = facts
    .mentions(QUANTIFIED, { in: ["customers"], limit: 30 })
    .filter((mention) => {
      const seen = perPage.get(mention.url) ?? 0;
      perPage.set(mention.url, seen + 1);
      return seen < 2;
    })
    .slice(0, 10);
  // Two measured results across the stories is typical; six makes the proof quantitative.
  counted(
    assessor,
    1.5,
    numbers.length,
    [2, 6],
    `${plural(numbers.length, "measured result")} in customer stories`,
    "no case studies with numbers",
    numbers.slice(0, 2),
  );

  // Two attributed quotes is common; six named people with roles is a strong wall of proof.
  counted(
    assessor,
    1.5,
    testimonials.length,
    [2, 6],
    `${plural(testimonials.length, "testimonial")} signed with a name`,
    "no testimonials signed with a name and role or company",
    testimonials.slice(0, 2),
  );

  const mentionedRatings: Array<Evidence | Mention> = facts.mentions(RATING, { limit: 2 });
  // A rating badge is a short line ("Average 4.8/5 Rating") that the sentence filter takes for a label.
  const ratings = mentionedRatings.length > 0 ? mentionedRatings : ratingBadges(facts);
  for (const page of facts.pagesIn(...ALL)) {
    const rating = page.jsonLd.find(
      (entity) => entity.type === "AggregateRating" || entity.properties.ratingValue !== undefined,
    );
    const value = rating?.properties.ratingValue;
    if (rating && ratings.length < 2)
      ratings.push({ url: page.url, text: `structured data: ${rating.type}${value ? ` ${value}` : ""}` });
  }
  assessor.signal(
    1,
    ratings.length > 0 ? 80 : undefined,
    ratings.length > 0 ? "review-site ratings shown" : "no review-site ratings",
    ratings,
  );

  const done = assessor.done(
    stories.size === 0
      ? 'Publish case studies with named customers and measured results ("cut onboarding time 40%").'
      : "Add numbers and named, titled quotes to every case study, and show review-site ratings.",
  );
  const body = bodyOfProof(stories.size, count, testimonials.length);
  return body ? { ...done, weighsAs: { cost: "costly" as const, why: body } } : done;
}

/**
 * Framework 2.12.0: the proof a product's first users give (a logo strip, a few signed quotes, a first case study)
 * weighs like docs and community; a body of proof, which takes years to gather, weighs like openings and dated news.
 * The thresholds are the rule's own norms: three case studies (scored 70), a thousand customers claimed (the median
 * claim), six signed testimonials (a strong wall). Returns why it weighs as costly, or undefined.
 */
export function bodyOfProof(stories: number, customers: number | undefined, testimonials: number): string | undefined {
  const what =
    stories >= 3
      ? `${plural(stories, "case study", "case studies")} make`
      : (customers ?? 0) >= 1000
        ? `A stated base of ${(customers ?? 0).toLocaleString("en-US")} customers makes`
        : testimonials >= 6
          ? `${plural(testimonials, "signed testimonial")} make`
          : undefined;
  return what === undefined
    ? undefined
    : `${what} a body of proof, which takes years to gather, so this dimension weighs in the total like openings and dated news.`;
}

export const marketStrategyRules = {
  market_intelligence: marketIntelligence,
  value_proposition: valueProposition,
  target_segments: targetSegments,
  customer_proof: customerProof,
  pricing_packaging: pricingPackaging,
} satisfies RuleSet;
