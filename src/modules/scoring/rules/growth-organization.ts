import { lessIsBetter, moreIsBetter } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import type { SiteFacts } from "../site-facts.js";
import { registrableDomain } from "../../crawl/url.js";
import { ownCodeHostLinks } from "./code-hosts.js";
import { Assessor, kindsFound, plural, present, type Kinds, type RuleSet } from "./rule.js";

/**
 * Growth & Organization: how the company reaches its market (content cadence,
 * programmes, a self-serve way in), the community around it, how customers are
 * supported, the team it is hiring, and signs that the company is moving.
 */

/** The first link (on any page, or among outbound links) whose URL or text matches, as evidence. */
function linkTo(facts: SiteFacts, pattern: RegExp, label: string): Evidence[] {
  const [link] = facts.linksMatching(pattern);
  if (link)
    return [{ url: link.url, text: `${label} linked${link.text && link.text !== link.url ? `: "${link.text}"` : ""}` }];
  const outbound = facts.outbound().find((candidate) => pattern.test(candidate.url));
  return outbound ? [{ url: outbound.url, text: `${label} linked from ${outbound.foundOn}` }] : [];
}

/** The page that carries `date`, for evidence of a dated fact. */
function pageWithDate(facts: SiteFacts, date: string, fallback: string): string {
  return facts.pageWithDate(date) ?? fallback;
}

/** Legal pages (terms, privacy, policies, cookies …): their "last updated" date is a formality, not news or history. */
const LEGAL_PAGE =
  /\/(terms|tos|privacy|policies|policy|legal|cookies?|eula|aup|dmca|imprint|impressum|disclaimer|gdpr|dpa)([-_./]|$)/i;

/**
 * The site's dates (newest first) without those seen only on legal pages: a terms
 * page "updated 2013-08-01" says nothing about whether the company is moving.
 * Dated post addresses and dates on any other page count as before.
 */
function datesBeyondLegal(facts: SiteFacts): string[] {
  const kept = new Set<string>();
  for (const page of facts.pages)
    if (!LEGAL_PAGE.test(new URL(page.url).pathname)) for (const date of page.dates) kept.add(date);
  for (const post of facts.postsIn(
    "blog",
    "changelog",
    "about",
    "customers",
    "other",
    "docs",
    "careers",
    "security",
    "integrations",
    "pricing",
    "status",
    "api_reference",
  ))
    kept.add(post.date);
  return facts.dates().filter((date) => kept.has(date));
}

/** A blog or newsroom address: a blog. or news. host, a /blog or /news section, or a publishing platform's page. */
const BLOG_LINK =
  /^https?:\/\/(?:blog|blogs|news|newsroom|engineering)\.|^https?:\/\/[^/]+\/(?:blog|blogs|news|newsroom)\/?(?:[?#]|$)|^https?:\/\/(?:[\w-]+\.)?(?:medium\.com|substack\.com|ghost\.io|hashnode\.dev)\//i;

/**
 * The site's own blog when no page of it was crawled: a blog host or section of the site's own
 * domain or brand (blog.acme.com, acme.com/blog), or the brand's page on a publishing platform
 * (medium.com/acme, acme.substack.com). Another company's blog is not the site's.
 */
function blogLinks(facts: SiteFacts): Array<{ url: string; text: string }> {
  const home = new URL(facts.home.url);
  const brand = /[a-z][a-z\d-]{2,}/.exec(facts.crawl.companyName.toLowerCase())?.[0];
  return facts.linksMatching(BLOG_LINK).filter((link) => {
    let address: URL;
    try {
      address = new URL(link.url, home);
    } catch {
      return false;
    }
    if (/(?:^|\.)(?:medium\.com|substack\.com|ghost\.io|hashnode\.dev)$/i.test(address.hostname))
      // The brand's own publication (acme.substack.com, medium.com/@acme), not a post that mentions it.
      return (
        brand !== undefined &&
        `${address.hostname.split(".")[0]} ${address.pathname.split("/")[1] ?? ""}`.toLowerCase().includes(brand)
      );
    return address.host === home.host || (brand !== undefined && ownDomain(facts, address.hostname, home.hostname));
  });
}

export function growthDistribution(facts: SiteFacts) {
  const assessor = new Assessor();
  const [blog] = facts.pagesIn("blog");
  const dates = facts.dates({ in: ["blog"] });
  const [linked] = blog ? [] : blogLinks(facts);
  if (!blog && linked) {
    // Like docs or a help centre kept on another host: the blog exists, but its cadence could not be read.
    assessor
      .signal(2, 25, "a blog linked but not crawled", [
        {
          url: linked.url,
          text: `blog linked (not crawled)${linked.text && linked.text !== linked.url ? `: "${linked.text}"` : ""}`,
        },
      ])
      .signal(1, undefined, "no dated posts seen");
  } else if (!blog) {
    assessor
      .signal(2, undefined, "no blog or news page found")
      .signal(1, undefined, "no content published over the last year");
  } else if (dates.length === 0) {
    assessor
      .signal(2, 20, "blog found, but its posts carry no dates", [{ url: blog.url, text: "blog: no dated posts" }])
      .signal(1, undefined, "no dated posts over the last year");
  } else {
    const url = pageWithDate(facts, dates[0]!, blog.url);
    const last90 = dates.filter((date) => facts.daysSince(date) <= 90).length;
    const last365 = dates.filter((date) => facts.daysSince(date) <= 365).length;
    // Distinct post dates: about monthly (3 a quarter) is the median, weekly-ish (8) the top decile; an index page lists ~10.
    const quarter = `blog: ${plural(last90, "post")} dated in the last 90 days`;
    assessor.signal(2, moreIsBetter(last90, 3, 8), quarter, [{ url, text: `${quarter} (newest ${dates[0]})` }]);
    // Over a year: 6 dated posts visible is the median, 20 the top decile (bounded by what one index page shows).
    const year = `blog: ${plural(last365, "post")} dated in the last 365 days`;
    assessor.signal(1, moreIsBetter(last365, 6, 20), year, [{ url, text: year }]);
  }

  const newsletter = facts.mentions(
    /\b(newsletter|mailing list|subscribe (to|for) (our |the )?(updates|blog|news|newsletter))\b/i,
    { limit: 1 },
  );
  present(
    assessor,
    1,
    newsletter.length > 0 ? newsletter : linkTo(facts, /\bnewsletter\b/i, "newsletter"),
    80,
    "a newsletter",
    "no newsletter",
  );
  present(
    assessor,
    1,
    facts.mentions(
      /\b(webinars?|podcasts?|virtual events?|live (demos?|sessions?|workshops?)|workshops?|conferences?|summit)\b/i,
      { limit: 1 },
    ),
    80,
    "webinars, podcasts or events",
    "no webinars or events",
  );
  const partners = facts.mentions(
    /\b(partner (program|programme|network|portal)|affiliate (program|programme)|referral (program|programme)|resellers?|become a partner)\b/i,
    { limit: 1 },
  );
  present(
    assessor,
    1,
    partners.length > 0
      ? partners
      : linkTo(facts, /\b(affiliates?|referral|become-a-partner|partner-program)\b/i, "partner programme"),
    85,
    "a partner, affiliate or referral programme",
    "no partner or affiliate programme",
  );
  // The funnel is on the home and pricing pages: a post's "when you sign up for a service" is an essay, not a sign-up.
  const selfServe = facts.mentions(
    /\b(sign up|get started (for )?free|start (your )?free|free trial|try (it )?(for )?free|create (an |your )?(free )?account)\b/i,
    { in: ["other", "pricing"], limit: 1 },
  );
  present(
    assessor,
    1,
    selfServe.length > 0 ? selfServe : linkTo(facts, /\/(signup|sign-up|register|get-started|start)\b/i, "sign-up"),
    75,
    "a self-serve sign-up",
    "no self-serve sign-up",
  );

  return assessor.done(
    !blog || dates.length === 0
      ? "Publish dated posts on a blog or news page, at least monthly."
      : "Keep a steady cadence and add distribution beyond the blog: newsletter, webinars, a partner programme.",
  );
}

export function communityEcosystem(facts: SiteFacts) {
  const assessor = new Assessor();
  const channels = (
    [
      ["Discord", /discord\.(gg|com\/invite)\//i, /\b(join (us on |our |the )?discord|discord (server|community))\b/i],
      [
        "Slack community",
        /join\.slack\.com|\bslack community\b/i,
        /\b(slack community|community slack|join (us on |our |the )?slack)\b/i,
      ],
      [
        "forum",
        /\/\/(community|forum|discuss)\.|\/(community|forum|forums|discuss)(\/|$)|discourse/i,
        /\b(community forums?|join (our|the) community|discussion forum)\b/i,
      ],
      ["Reddit", /reddit\.com\/r\//i, /\br\/\w{1,30} subreddit\b|\bour subreddit\b/i],
    ] as const
  ).flatMap(([name, link, words]) => {
    const found = linkTo(facts, link, name);
    const evidence = found.length > 0 ? found : facts.mentions(words, { limit: 1 });
    return evidence.length > 0 ? [{ name, evidence: evidence[0]! }] : [];
  });
  // One channel (a Discord or a forum) is the median among sites with a community; three is an ecosystem.
  assessor.signal(
    2.5,
    channels.length > 0 ? moreIsBetter(channels.length, 1, 3) : undefined,
    channels.length > 0
      ? `community channels: ${channels.map((channel) => channel.name).join(", ")}`
      : "no community forum, Discord or Slack",
    channels.map((channel) => channel.evidence),
  );

  const github = ownCodeHostLinks(facts);
  // A single organisation link already counts (0.6 median puts one link at ~66); three repositories linked is the top decile.
  assessor.signal(
    1.5,
    github.length > 0 ? moreIsBetter(github.length, 0.6, 3) : undefined,
    github.length > 0 ? `GitHub presence: ${plural(github.length, "link")}` : "no GitHub presence",
    github.slice(0, 1).map((url) => ({ url, text: `GitHub linked: ${url}` })),
  );

  // Events for the product's users ("user group" in a product that segments users is a feature, not a community).
  present(
    assessor,
    1,
    facts.mentions(
      /\b(meetups?|(local|regional|our|a|the) user groups? (meet|in|near|across)|join (a|our|the) user group|champions? program(me)?|ambassadors?( program(me)?)?|community (events?|calls?|days?)|hackathons?)\b/i,
      { limit: 1 },
    ),
    80,
    "community events, user groups or champions",
    "no community events or user groups",
  );
  // People building with or on the product; that a product is open source is not itself a community.
  present(
    assessor,
    1,
    facts.mentions(
      /\b(\d[\d,.]*\+?\s+contributors|contributors (from|around|worldwide|on github)|our contributors|github stars|stars on github|pull requests? (from|by) (the )?community|community[- ](built|contributed|maintained|plugins|templates|integrations|extensions))\b/i,
      { limit: 1 },
    ),
    80,
    "open source or community contributions",
    "no open source or community contributions",
  );
  present(
    assessor,
    0.75,
    facts.mentions(
      /\b(\d[\d,.]{0,15}\s?k?\+?\s{1,3}(community )?(members|developers|contributors|builders|makers)|community of (over |more than )?\d[\d,.]{0,15}\s?k?\+?)/i,
      { limit: 1 },
    ),
    90,
    "community size stated",
    "no community size stated",
  );

  return assessor.done(
    channels.length === 0
      ? "Give users a place to meet: a forum, Discord or Slack community linked from the site."
      : "Grow the community beyond a channel: events, champions, open-source contributions.",
  );
}

/** Words, hosts and top-level paths that name a help centre; an FAQ page is an FAQ, not a help centre. */
const HELP_CENTRE =
  /\b(help[- ]?cent(er|re)|knowledge[- ]base|support cent(er|re)|support home)\b|\/\/(help|support|kb)\.|\/(help|support|kb)(\/|$)/i;
const HELP_WORDS = /\b(help[- ]?cent(er|re)|knowledge[- ]base|support cent(er|re)|support home)\b/i;
/** Only the first path segment names a section: "/docs/modules/help/Handlers.html" is a page of docs, not a help centre. */
const HELP_PATH = /^\/(help|support|kb|knowledge-?base|help-?cent(er|re)|support-?cent(er|re))(\/|$)/i;
const HELP_HOST = /^(help|support|kb)\./i;
const FAQ = /\/faqs?(\/|\.html?|$)|\bFAQs?\b|\bfrequently asked questions\b/i;

/**
 * Whether an address (with its title or link text) is the site's own help centre: a help or support
 * host of the site's own domain or brand (help.acme.com, not a partner's help.okta.com), a top-level
 * /help or /support section, or a page or link named "help centre", "knowledge base" on the site.
 */
function helpCentre(facts: SiteFacts, url: string, label: string): boolean {
  let address: URL;
  try {
    address = new URL(url, facts.home.url);
  } catch {
    return false;
  }
  const home = new URL(facts.home.url);
  const own = address.host === home.host || ownDomain(facts, address.hostname, home.hostname);
  if (!own) return false;
  return HELP_HOST.test(address.hostname) || HELP_PATH.test(address.pathname) || HELP_WORDS.test(label);
}

/**
 * A host of the site's own domain (help.acme.com beside acme.com) or named after its brand (acme.zendesk.com).
 * When the brand is unknown (no company name of three letters or more), a help host is taken as the site's own.
 */
function ownDomain(facts: SiteFacts, host: string, homeHost: string): boolean {
  // The crawler's registrable domain (the public suffix list: acme.co.uk, acme.com.au), as the crawl's own scope uses.
  if (!/^\d+(\.\d+){3}$/.test(homeHost) && registrableDomain(host) === registrableDomain(homeHost)) return true;
  const brand = /[a-z][a-z\d-]{2,}/.exec(facts.crawl.companyName.toLowerCase())?.[0];
  return brand === undefined || host.toLowerCase().includes(brand);
}

export function customerSuccess(facts: SiteFacts) {
  const assessor = new Assessor();
  const helpPage = facts
    .pagesIn("docs", "other")
    .find((page) => page !== facts.home && helpCentre(facts, page.url, page.title));
  const [link] = helpPage
    ? []
    : facts.linksMatching(HELP_CENTRE).filter((candidate) => helpCentre(facts, candidate.url, candidate.text));
  const helpLink = link
    ? [{ url: link.url, text: `help centre linked${link.text && link.text !== link.url ? `: "${link.text}"` : ""}` }]
    : [];
  // An FAQ page (/faq, "FAQ" in its title) answers a few questions: it is an FAQ, not a help centre.
  const faqPage =
    helpPage || helpLink.length > 0
      ? undefined
      : facts.pages.find((page) => page !== facts.home && FAQ.test(`${new URL(page.url).pathname} ${page.title}`));
  const faq =
    helpPage || helpLink.length > 0
      ? []
      : faqPage
        ? [{ url: faqPage.url, text: `FAQ page: ${faqPage.title || faqPage.url}` }]
        : facts.mentions(/\b(frequently asked questions|faqs?)\b/i, { limit: 1 });
  assessor.signal(
    2,
    helpPage ? 85 : helpLink.length > 0 ? 65 : faq.length > 0 ? 45 : undefined,
    helpPage
      ? "a help centre"
      : helpLink.length > 0
        ? "a help centre linked (not crawled)"
        : faq.length > 0
          ? "an FAQ, but no help centre"
          : "no help centre",
    helpPage ? [{ url: helpPage.url, text: `help centre: ${helpPage.title || helpPage.url}` }] : [...helpLink, ...faq],
  );

  const channels = kindsFound(facts, [
    // Ways to reach support, not the general contact line ("email us for general queries", "call sales").
    ["email", /\b(support@|email (support|our support|us for support)|contact (our )?support)\b/i],
    ["live chat", /\b(live chat|chat with (us|support|our team)|in[- ]app chat)\b/i],
    ["phone", /\b(phone support|support (by|over the) phone|support line|call (our )?support)\b/i],
    ["tickets", /\b(submit a (ticket|request)|support (tickets?|portal|requests?))\b/i],
    ["community support", /\bcommunity (support|forum)\b/i],
  ]);
  // Most sites offer one or two ways to reach support (1.5 is the median); four is the top decile.
  assessor.signal(
    1.5,
    channels.length > 0 ? moreIsBetter(channels.length, 1.5, 4) : undefined,
    channels.length > 1
      ? `support channels: ${channels.map((channel) => channel.name).join(", ")}`
      : channels.length === 1
        ? `only one support channel (${channels[0]!.name})`
        : "no support channels stated",
    channels.slice(0, 2).map((channel) => channel.mention),
  );

  // Hours and response times of support: "24/7" alone is how a product runs ("a 24x7 scalable workforce"), not support.
  present(
    assessor,
    1,
    facts.mentions(
      /\b((24\/7|24x7|24\/5|round[- ]the[- ]clock) (\w+ ){0,2}(support|help|assistance|service desk|customer success)|(support|help|customer success)\b[^.]{0,40}\b(24\/7|24x7|24\/5|round[- ]the[- ]clock)|business hours|support hours|(support|average|first|typical) response times?|(respond|reply|replies|answer|get back to you)\w* within)\b/i,
      { limit: 1 },
    ),
    85,
    "support hours or response times",
    "no support hours or response times",
  );
  present(
    assessor,
    1.5,
    facts.mentions(
      /\b(customer success (managers?|team)|dedicated (account|success|support) (managers?|team|engineers?)|onboarding (services?|specialists?|sessions?|assistance)|white[- ]glove|implementation (services?|support|team)|technical account managers?)\b/i,
      { limit: 1 },
    ),
    85,
    "customer success or onboarding services",
    "no customer success or onboarding services",
  );
  present(
    assessor,
    1,
    facts.mentions(
      /\b(support sla|priority support|premium support|guaranteed response|first[- ]response times?|response (time )?sla|\d{1,3}[- ]hours? response)\b/i,
      { limit: 1 },
    ),
    85,
    "a support SLA or priority support",
    "no support SLA",
  );

  return assessor.done(
    !helpPage && helpLink.length === 0
      ? "Publish a help centre and say how to reach support and how fast it answers."
      : "Commit to support: stated hours and response times, a support SLA, customer success for larger accounts.",
  );
}

/** One job opening found on a careers page: the title as written and its function. */
export interface Opening {
  readonly url: string;
  readonly title: string;
  readonly function: string;
}

/** Words that make a short line read like a job title. */
const ROLE =
  /\b(engineer|developer|development|designer|manager|executive|head of|director|specialist|analyst|scientist|architect|recruiter|representative|coordinator|consultant|intern|writer|marketer|advocate|administrator|associate|officer|vp|counsel|accountant|researcher|sre|strategist|(tech|team|design|engineering) lead)\b/i;

/** First match wins, so "Product Marketing Manager" is marketing and "Customer Support Engineer" is support. */
const FUNCTIONS: Kinds = [
  ["marketing", /\b(marketing|marketer|growth|content|brand|seo|demand gen|communications|social media)\b/i],
  ["design", /\b(designer|design|ux|ui|user research(er)?)\b/i],
  ["product", /\b(product (manager|owner|lead|director)|head of product|vp,? product|product management)\b/i],
  ["data", /\b(data|machine learning|ml|ai|research scientist|researcher|scientist|analytics)\b/i],
  [
    "sales",
    /\b(sales|account executive|account manager|business development|sdr|bdr|solutions (engineer|consultant)|partnerships?|revenue)\b/i,
  ],
  ["support", /\b(support|customer success|success manager|customer experience|implementation|onboarding)\b/i],
  ["people", /\b(recruit(er|ing)|talent|people|hr|human resources)\b/i],
  ["operations", /\b(finance|accountant|controller|legal|counsel|operations|office manager|compliance)\b/i],
  ["engineering", /\b(engineer|engineering|developer|sre|devops|architect|programmer|qa)\b/i],
];

/**
 * Openings on the careers pages: short headings, lines and link texts that read
 * like job titles (a role word, at most 10 words, not a sentence ending in "."),
 * deduplicated by title. Shared with the anti-pattern "careers page without openings".
 */
export function jobOpenings(facts: SiteFacts): Opening[] {
  const openings = new Map<string, Opening>();
  const consider = (url: string, raw: string) => {
    const title = raw.trim().split(/\s+/).join(" ");
    if (
      title.length < 4 ||
      title.length > 90 ||
      title.split(" ").length > 10 ||
      /[.!?]$/.test(title) ||
      !ROLE.test(title)
    )
      return;
    const key = title.toLowerCase();
    if (openings.has(key)) return;
    const fn = FUNCTIONS.find(([, pattern]) => pattern.test(title))?.[0] ?? "other";
    openings.set(key, { url, title, function: fn });
  };
  for (const page of facts.pagesIn("careers")) {
    for (const heading of page.headings) if (heading.level > 1) consider(page.url, heading.text);
    for (const line of page.text.split("\n")) consider(page.url, line);
    for (const link of [...page.internalLinks, ...page.externalLinks]) consider(page.url, link.text);
  }
  // Small companies list their openings on the about page ("Join us"): read there only with a job ad's shape,
  // a hiring heading and each title followed by its responsibilities or requirements.
  for (const page of facts.pagesIn("about", "other")) {
    if (!HIRING.test(page.text)) continue;
    const lines = page.text.split("\n");
    lines.forEach((line, index) => {
      if (JOB_AD_BODY.test(lines.slice(index + 1, index + 3).join("\n"))) consider(page.url, line);
    });
  }
  return [...openings.values()];
}

/** A page that says it is hiring. */
const HIRING =
  /\b(join us|join our team|we'?re hiring|we are hiring|open (positions|roles)|job openings|current openings|careers)\b/i;
/** What follows a job title in an ad. */
const JOB_AD_BODY =
  /^(responsibilities|requirements|(minimum |preferred )?qualifications|what you'?ll do|about the role|job description)\b/im;

/** Applicant-tracking hosts: a careers page that links to one has its openings there. */
export const JOB_BOARD =
  /\/\/([\w-]+\.)*(greenhouse\.io|grnh\.se|lever\.co|ashbyhq\.com|workable\.com|recruitee\.com|personio\.(de|com)|smartrecruiters\.com|bamboohr\.com|teamtailor\.com|welcometothejungle\.com|wellfound\.com)\b/i;

export function talentOrganization(facts: SiteFacts) {
  const assessor = new Assessor();
  const [careers] = facts.pagesIn("careers");
  const [careersLink] = careers
    ? []
    : facts.linksMatching(/\/(careers|jobs|join-us|hiring)\b|\b(careers|we'?re hiring|join (our|the) team)\b/i);
  assessor.signal(
    1,
    careers ? 75 : careersLink ? 55 : undefined,
    careers ? "a careers page" : careersLink ? "a careers page linked (not crawled)" : "no careers page",
    careers
      ? [{ url: careers.url, text: `careers page: ${careers.title || careers.url}` }]
      : careersLink
        ? [{ url: careersLink.url, text: `careers page linked as "${careersLink.text}"` }]
        : [],
  );

  const openings = jobOpenings(facts);
  const [board] = linkTo(facts, JOB_BOARD, "job board");
  if (openings.length > 0) {
    // Three openings is the median for a company that is hiring; fifteen is a company scaling every function.
    const fact = `careers page lists ${plural(openings.length, "opening")}`;
    assessor.signal(2, moreIsBetter(openings.length, 3, 15), fact, [
      { url: openings[0]!.url, text: `${fact}, e.g. "${openings[0]!.title}"` },
    ]);
    const functions = [...new Set(openings.map((opening) => opening.function).filter((fn) => fn !== "other"))];
    // Openings in two functions is the median; five functions (engineering, sales, marketing, design, product) is broad growth.
    const spread = `openings in ${plural(functions.length, "function")}${functions.length > 0 ? `: ${functions.join(", ")}` : ""}`;
    assessor.signal(1.5, functions.length > 0 ? moreIsBetter(functions.length, 2, 5) : undefined, spread, [
      { url: openings[0]!.url, text: spread },
    ]);
  } else if (board) {
    assessor
      .signal(2, 55, "openings hosted on a job board (not crawled)", [board])
      .signal(1.5, undefined, "openings by function not visible");
  } else if (careers) {
    assessor
      .signal(2, 10, "careers page lists no openings", [
        { url: careers.url, text: "careers page without any job opening" },
      ])
      .signal(1.5, undefined, "no openings by function");
  } else {
    assessor.signal(2, undefined, "no job openings found").signal(1.5, undefined, "no openings by function");
  }

  const [about] = facts.pagesIn("about");
  assessor.signal(
    1,
    about ? 75 : undefined,
    about ? "an about or team page" : "no about or team page",
    about ? [{ url: about.url, text: `about page: ${about.title || about.url}` }] : [],
  );

  // The team the site shows: a page per person (/team/jane, /staff_members/dao.html), or people named with their role.
  const team = teamShown(facts, openings);
  // Five people is the median team a product site shows; twenty-five is a company with departments.
  assessor.signal(
    1.5,
    team.count > 0 ? moreIsBetter(team.count, 5, 25) : undefined,
    team.count > 0 ? team.fact : "no team shown",
    team.evidence,
  );
  present(
    assessor,
    0.75,
    facts.mentions(/\b(our values|core values|our culture|remote[- ]first|benefits (include|and perks)|perks)\b/i, {
      in: ["careers", "about"],
      limit: 1,
    }),
    80,
    "values, culture or benefits described",
    "no values or culture described",
  );

  return assessor.done(
    openings.length === 0
      ? "List current openings on the careers page, each with its title and team."
      : "Show the team behind the openings: an about page, values, and roles across functions.",
  );
}

const MEMBER_PAGE = /\/(team|our-team|people|staff|staff[-_]members|leadership|founders)\/[^/?#]+?(\.html?)?\/?$/i;
const PERSON_ROLE =
  /\b(co-?founder|founder|ceo|cto|coo|cfo|cmo|cpo|chief [a-z]+ officer|(principal|compliance|operations|investment|underwriting|risk|claims|data protection) officer|managing (director|partner)|general counsel|president|vp|vice president|head of [a-z]+|director|lead engineer|engineer|designer|developer|scientist|researcher|manager)\b/i;
/** Pages that name the people behind the company besides the about pages: contact and team pages ("Compliance Officer Iain Herbert"). */
const PEOPLE_PAGE = /\/(contact|contact-us|team|our-team|people|leadership|management)(\.html?)?\/?$/i;

/** How many people the site shows: pages per person, or (on about and team pages) people named with a role. */
function teamShown(
  facts: SiteFacts,
  openings: readonly Opening[],
): { count: number; fact: string; evidence: Array<{ url: string; text: string }> } {
  // An opening's title listed on the about page ("Quantitative Developer") is a role to fill, not a person.
  const titleKey = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  const openingTitles = new Set(openings.map((opening) => titleKey(opening.title)));
  const members = new Map<string, string>();
  for (const link of facts.linksMatching(MEMBER_PAGE)) members.set(link.url.replace(/(\.html?|\/)$/i, ""), link.url);
  for (const page of facts.pagesIn("about"))
    if (MEMBER_PAGE.test(new URL(page.url).pathname)) members.set(page.url.replace(/(\.html?|\/)$/i, ""), page.url);
  const roles = facts
    .mentions(PERSON_ROLE, { in: ["about", "other"], limit: 60 })
    .filter(
      (mention) =>
        mention.text.length <= 120 &&
        !openingTitles.has(titleKey(mention.text)) &&
        (facts.categoryOf(mention.url) === "about" || PEOPLE_PAGE.test(new URL(mention.url).pathname)),
    )
    .slice(0, 40);
  if (members.size >= roles.length && members.size > 0) {
    const fact = `${plural(members.size, "team member page")}`;
    return { count: members.size, fact, evidence: [{ url: [...members.values()][0]!, text: fact }] };
  }
  if (roles.length > 0)
    return {
      count: roles.length,
      fact: `${plural(roles.length, "person", "people")} named with a role`,
      evidence: roles.slice(0, 2),
    };
  return { count: 0, fact: "", evidence: [] };
}

export function companyMomentum(facts: SiteFacts) {
  const assessor = new Assessor();
  const newsPages = { in: ["blog", "about", "other"] } as const;

  // The company's own news: a post's title or heading, or a sentence in its own voice ("we", "our", its name).
  // "One great partnership with the right person" and a blog post's aside are not announcements.
  const announcements = facts
    .mentions(
      /\b(announc(es|ed|ing|ement)|launch(es|ed)|introducing|now available|generally available|partners? with|partnership with|acquires|acquired|joins forces|expands? (in)?to)\b/i,
      { ...newsPages, limit: 30 },
    )
    // A heading, or a sentence that opens with its news in the company's voice ("We are launching …", "Acme partners with …").
    .filter(
      (mention) => facts.isHeading(mention) || (facts.speaksForItself(mention.text) && NEWS_OPENING.test(mention.text)),
    )
    .slice(0, 8);
  // Dated news posts are announcements too, whatever verbs their titles use.
  const posts = facts.postsIn("blog").filter((post) => post.date <= facts.now.toISOString().slice(0, 10));
  const news = Math.max(announcements.length, posts.length);
  // Two announcements visible is the median; six (launches, partnerships, expansion) is a company in motion.
  const said =
    announcements.length >= posts.length
      ? `${plural(announcements.length, "announcement")} (launches, partnerships)`
      : `${plural(posts.length, "dated news post")}`;
  assessor.signal(
    1.5,
    news > 0 ? moreIsBetter(news, 2, 6) : undefined,
    news > 0 ? said : "no news or announcements",
    announcements.length >= posts.length
      ? announcements.slice(0, 2)
      : [{ url: posts[0]!.url, text: `${said}, e.g. ${posts[0]!.date}` }],
  );

  const funding = facts.mentions(
    /\b(raised (a |an )?[$€£\d]|raises [$€£\d]|series [a-e]\b|seed (round|funding)|pre[- ]seed|funding round|backed by (?:(?:leading|top|world-class|great) )?(?:investors|vcs?\b|venture|angels?)|backed by [\w&.' -]{1,40} (?:ventures|capital|partners)\b|investors? (include|including|like)|y ?combinator|yc [swfx]\d{2}|sequoia|andreessen|a16z|accel|index ventures|lightspeed|general catalyst|khosla|greylock|kleiner)\b/i,
    { limit: 1 },
  );
  const withAmount = funding.some((mention) => /[$€£]\s?\d[\d.,]*\s?(m|mm|million|bn|billion)\b/i.test(mention.text));
  present(
    assessor,
    1.5,
    funding,
    withAmount ? 95 : 85,
    withAmount ? "funding named with an amount" : "funding or investors named",
    "no funding or investors named",
  );

  // The company's own base or growth: not "sites with fewer than 100,000 users", "sites under 10,000 users" (a size, not a
  // claim) or "an issue affecting 25,000 users".
  const growth = facts
    .mentions(
      /(\b(\d{1,3}(,\d{3})+|\d{3,}|\d+(\.\d+)?\s?(k|m|million|billion))\+?\s{1,3}(customers|users|teams|companies|businesses|developers|organi[sz]ations|brands|merchants|creators)\b|\b\d{1,4}x (growth|revenue|arr)\b|\bgrew (by )?\d{1,4}%|\b(arr|revenue) (grew|doubled|tripled)\b)/i,
      { limit: 15 },
    )
    .filter(
      (mention) =>
        !/\b(less|fewer) than\b|\b(under|below|up to|at most) \d|\baffect(ing|ed|s)\b|\bof (the|their|its) (sites|users|customers)\b|\bfortune \d{2,4}\b/i.test(
          mention.text,
        ),
    )
    .slice(0, 5);
  // One growth figure is the median; three ("10,000 customers", "3x ARR") is a confident growth story.
  assessor.signal(
    1,
    growth.length > 0 ? moreIsBetter(growth.length, 1, 3) : undefined,
    growth.length > 0 ? `${plural(growth.length, "growth figure")} stated` : "no growth figures",
    growth.slice(0, 2),
  );

  const [newest] = datesBeyondLegal(facts);
  if (newest) {
    const days = facts.daysSince(newest);
    // Three weeks since the newest dated item scores 90; five months is the median; a year old falls below 25.
    const fact = `newest dated content ${newest} (${plural(days, "day")} before the crawl)`;
    assessor.signal(2, lessIsBetter(days, 21, 150), fact, [
      { url: pageWithDate(facts, newest, facts.home.url), text: fact },
    ]);
  } else {
    assessor.signal(2, undefined, "no dated content");
  }

  const crawlYear = facts.now.getUTCFullYear();
  // A track record: years since the founding the site states, or years its dated content spans.
  // Three years is the median of product sites; twelve is an institution.
  const record = trackRecord(facts, crawlYear);
  if (record) assessor.signal(2, moreIsBetter(record.years, 3, 12), record.fact, [record.evidence]);
  else assessor.signal(2, undefined, "no founding year or dated history");

  const year = facts.copyrightYear();
  if (year === undefined) {
    assessor.signal(1, undefined, "no copyright year on the home page");
  } else if (year >= crawlYear - 1) {
    // Last year's © is common in January and mildly stale later; this year's is the expectation, not a feat.
    const fact = `© ${year} on the home page${year >= crawlYear ? " (current)" : " (last year)"}`;
    assessor.signal(1, year >= crawlYear ? 75 : 50, fact, [{ url: facts.home.url, text: fact }]);
  } else {
    const fact = `© ${year} on the home page, ${plural(crawlYear - year, "year")} before the crawl`;
    assessor.penalty(1.5, `stale copyright year: ${fact}`, [{ url: facts.home.url, text: fact }]);
  }

  return assessor.done(
    !newest || facts.daysSince(newest) > 150
      ? "Publish dated news regularly: launches, partnerships and milestones."
      : "Name the milestones behind the momentum: funding, investors, customer and revenue growth.",
  );
}

/** News told in its first words: the announcement verb within the sentence's first eight words. */
const NEWS_OPENING =
  /^\W*(?:\S+\s+){0,7}?(?:announc|launch|introduc|now available|generally available|partner|acquir|joins forces|expand)/i;

const FOUNDED =
  /\b(?:founded|established|started|launched|incorporated|in business since|since)\s+(?:in\s+)?((?:19|20)\d{2})\b|(?:©|\(c\)|copyright)\s*((?:19|20)\d{2})\s*[-–]\s*(?:19|20)\d{2}/i;

/** The longest history the site states: a founding year (or a © range), or the span of its dated content. */
function trackRecord(
  facts: SiteFacts,
  crawlYear: number,
): { years: number; fact: string; evidence: { url: string; text: string } } | undefined {
  let best: { years: number; fact: string; evidence: { url: string; text: string } } | undefined;
  const [founding] = facts.mentions(FOUNDED, { limit: 1 });
  if (founding) {
    const match = FOUNDED.exec(founding.text);
    const year = Number(match?.[1] ?? match?.[2]);
    // The year is the observed fact; the sentence around it ("Headquartered in Dublin, …") is a company profile, not news.
    if (year >= 1900 && year <= crawlYear)
      best = {
        years: crawlYear - year,
        fact: `founded or active since ${year}`,
        evidence: { url: founding.url, text: `founded or active since ${year}` },
      };
  }
  const dates = datesBeyondLegal(facts);
  const newest = dates[0];
  const oldest = dates.at(-1);
  if (newest && oldest) {
    const years = (Date.parse(newest) - Date.parse(oldest)) / (365.25 * 86_400_000);
    if (years >= 1 && (!best || years > best.years)) {
      const fact = `dated content spans ${Math.floor(years)} years (${oldest.slice(0, 4)}–${newest.slice(0, 4)})`;
      best = { years, fact, evidence: { url: pageWithDate(facts, oldest, facts.home.url), text: fact } };
    }
  }
  return best && best.years > 0 ? best : undefined;
}

export const growthOrganizationRules = {
  growth_distribution: growthDistribution,
  community_ecosystem: communityEcosystem,
  customer_success: customerSuccess,
  talent_organization: talentOrganization,
  company_momentum: companyMomentum,
} satisfies RuleSet;
