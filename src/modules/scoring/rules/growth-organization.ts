import { lessIsBetter, moreIsBetter } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { registrableDomain } from "../../crawl/url.js";
import { announcedEnd } from "../announced-end.js";
import { pathOf, traitsOf } from "../evidence-relevance.js";
import { brandKeys, nameKey, onOwnDomain, ownCodeHostLinks } from "./code-hosts.js";
import { registrationClosed, signupLinks } from "./product-experience.js";
import { Assessor, plural, present, type Kinds, type RuleSet } from "./rule.js";

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
  // The date a product's end is announced for ("will be phased out by March 31, 2018") is not activity.
  const notice = endNotice(facts);
  const ending = new Set(notice ? datesIn(notice) : []);
  for (const page of facts.pages) {
    if (LEGAL_PAGE.test(new URL(page.url).pathname)) continue;
    const sample = page.dates.length >= 3 ? sampleRowDates(page) : new Set<string>();
    for (const date of page.dates) if (!sample.has(date) && !(page === facts.home && ending.has(date))) kept.add(date);
  }
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
  // A menu's "Blog" may lead anywhere on the site's own domain (text.acme.com): its words say what it is.
  const named = facts
    .linksMatching(BLOG_TEXT)
    .filter((link) => BLOG_TEXT.test(link.text.trim()) && onOwnDomain(facts, link.url) !== undefined);
  const byAddress = facts.linksMatching(BLOG_LINK).filter((link) => {
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
  return [...byAddress, ...named.filter((link) => !byAddress.some((other) => other.url === link.url))];
}
/** A link whose whole text names the blog: "Blog", "News", "Our blog", "Engineering blog". */
const BLOG_TEXT = /^(?:our |the |engineering |company )?(?:blog|news|newsroom)$/i;

const NEWSLETTER = /\b(newsletters?|mailing lists?|subscribe (to|for) (our |the )?(updates|blog|news|newsletter))\b/i;

/**
 * A newsletter sign-up in the home page's footer or menus (boilerplate, which sentences do not read): a line naming
 * it ("Subscribe to Newsletter"), or a "Subscribe" button beside a line about updates ("Follow our updates.").
 */
function footerNewsletter(facts: SiteFacts): Evidence[] {
  for (const block of facts.home.boilerplate) {
    const lines = block.split("\n").map((line) => line.trim());
    // The fullest line that names it ("Subscribe to our newsletter and stay up to date …" before "// Newsletter").
    const named = lines.filter((line) => NEWSLETTER.test(line));
    const fullest = named.find((line) => /\S\s+\S+\s+\S/.test(line)) ?? named[0];
    if (fullest) return [{ url: facts.home.url, text: `newsletter sign-up in the site's footer: "${fullest}"` }];
    const button = lines.find((line) => /^subscribe!?$/i.test(line));
    const about = lines.find((line) => /\b(updates|news|subscribing|subscription)\b/i.test(line));
    if (button && about)
      return [{ url: facts.home.url, text: `newsletter sign-up in the site's footer: "${about}" with "${button}"` }];
  }
  return [];
}

/** The site's own events, webinars or podcast section (/events, /company/webinars …), crawled or linked. */
const EVENTS_PATH =
  /^\/(?:(?:company|about|resources|community|learn)\/)?(?:events?|webinars?|webcasts?|podcasts?|conferences?)(?:[/?#.]|$)/i;
function eventsPage(facts: SiteFacts): Evidence[] {
  const home = new URL(facts.home.url);
  const own = (url: string): URL | undefined => {
    try {
      const address = new URL(url, home);
      // The site's own host or domain: a webinar platform's /webcast/… is another company's page.
      const sameDomain =
        !/^\d+(\.\d+){3}$/.test(home.hostname) &&
        registrableDomain(address.hostname) === registrableDomain(home.hostname);
      return address.host === home.host || sameDomain ? address : undefined;
    } catch {
      return undefined;
    }
  };
  const page = facts.pages.find((candidate) => EVENTS_PATH.test(own(candidate.url)?.pathname ?? ""));
  if (page) return [{ url: page.url, text: `events or webinars page: ${page.title || page.url}` }];
  const link = facts
    .linksMatching(/\/(?:events?|webinars?|webcasts?|podcasts?|conferences?)\b/i)
    .find((candidate) => EVENTS_PATH.test(own(candidate.url)?.pathname ?? ""));
  return link
    ? [
        {
          url: link.url,
          text: `events or webinars page linked${link.text && link.text !== link.url ? `: "${link.text}"` : ""}`,
        },
      ]
    : [];
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

  const newsletter = facts.mentions(NEWSLETTER, { limit: 1 });
  present(
    assessor,
    1,
    newsletter.length > 0
      ? newsletter
      : [...linkTo(facts, /\bnewsletter\b/i, "newsletter"), ...footerNewsletter(facts)].slice(0, 1),
    80,
    "a newsletter",
    "no newsletter",
  );
  const events = facts.mentions(
    /\b(webinars?|podcasts?|virtual events?|live (demos?|sessions?|workshops?)|workshops?|conferences?|summit|hackathons?)\b/i,
    { limit: 1 },
  );
  present(
    assessor,
    1,
    events.length > 0 ? events : eventsPage(facts),
    80,
    "webinars, podcasts or events",
    "no webinars or events",
  );
  const partners = facts.mentions(
    // A channel is a programme too: "Distribution may be via traditional (re)insurance Broking channels", "value-added
    // resellers", "distribution partners" (framework 2.11.0). A message broker is not a channel.
    /\b(partner (program|programme|network|portal)|affiliate (program|programme)|referral (program|programme)|resellers?|become a partner|channel partners?|distribution partners?|value[- ]added distributors?|(distribution|distributed|sold|available) (\w+ ){0,3}(via|through) [^.]{0,40}\b((?<!\b(?:message|event|identity|data|mqtt) )brokers?|broking|resellers?|distributors?|channel partners?))\b/i,
    { limit: 1 },
  );
  present(
    assessor,
    1,
    partners.length > 0
      ? partners
      : // In the address's path or the link's text: "?type=referral" on a sign-up link is tracking, not a programme.
        linkTo(facts, /^[^?#\n]*?\b(affiliates?|referral|become-a-partner|partner-program)\b/i, "partner programme"),
    85,
    "a partner, affiliate or referral programme",
    "no partner or affiliate programme",
  );
  // The funnel is on the home and pricing pages: a post's "when you sign up for a service" is an essay, not a sign-up.
  const selfServe = facts.mentions(
    /\b(sign up|get started (for )?free|start (your )?free|free trial|try (it )?(for )?free|create (an |your )?(free |new |[\w.-]+ )?account)\b/i,
    { in: ["other", "pricing"], limit: 1 },
  );
  // A site that says registration is not open yet has a sign-up button, not a sign-up (framework 2.11.0).
  const closed = registrationClosed(facts);
  present(
    assessor,
    1,
    closed.length > 0 ? [] : selfServe.length > 0 ? selfServe : signupLinks(facts),
    75,
    "a self-serve sign-up",
    closed.length > 0 ? "no self-serve sign-up: registration is not open yet" : "no self-serve sign-up",
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
        // A forum's host or path, or a link named after it ("Forum", "Community Forum", "Community").
        /\/\/(community|forum|discuss)\.|\/(community|forum|forums|discuss)(\/|$)|discourse|^(community )?forums?$|^community$/i,
        /\b(community forums?|join (our|the) community|discussion forum)\b/i,
      ],
      ["Reddit", /reddit\.com\/r\//i, /\br\/\w{1,30} subreddit\b|\bour subreddit\b/i],
      ["Gitter", /\/\/gitter\.im\/[\w-]+/i, /\b(join (us on |our |the )?gitter|gitter (chat|room|channel))\b/i],
      [
        "Telegram",
        /\/\/(t|telegram)\.me\/(?!share\b)[\w+-]+/i,
        /\b(join (us on |our |the )?telegram|telegram (group|channel|community|chat))\b/i,
      ],
      ["Matrix", /\/\/matrix\.to\/#\//i, /\b(join (us on |our |the )?matrix|matrix (room|channel|chat))\b/i],
      ["Zulip", /\/\/[\w-]+\.zulipchat\.com\b/i, /\b(join (us on |our |the )?zulip|zulip (chat|stream|community))\b/i],
      // "Chat on IRC at Freenode/#Brackets" (framework 2.11.0).
      [
        "IRC",
        /^irc:\/\/|\/\/(webchat\.)?(freenode|libera)\.(net|chat)\b/i,
        /\b(irc (channel|chat)|(chat|join us) on irc|#[\w-]+ on (freenode|libera))\b|\birc at \w+/i,
      ],
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
      // … or a standing invitation to contribute ("We accept patches for everything", "Submit your code back to the project").
      /\b(\d[\d,.]*\+?\s+contributors|contributors (from|around|worldwide|on github)|our contributors|github stars|stars on github|pull requests? (from|by) (the )?community|community[- ](built|contributed|maintained|plugins|templates|integrations|extensions)|we (accept|welcome) (all )?(patches|contributions|pull requests)|contributions (are )?(very |always |more than )?welcome|(more than |very |always )?welcome to contribute|members (provide|contribute|make) [^.]{0,30}\bcontributions|how to contribute|submit (your )?(code|patches|pull requests|changes) (back )?(to (the|our) (project|repo|repository)|upstream))\b/i,
      { limit: 1 },
    ),
    80,
    "contributions from the community",
    "no contributions from the community",
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

/** A standard's title ("RFC 4675 RADIUS Attributes for Virtual LAN and Priority Support"), not the company's offer. */
const STANDARD_TITLE = /^(?:RFC|ISO|IEC|IEEE|NIST SP|BS|EN)[\s-]?\d/;
/** A negation just before the words matched ("There is no community support for v1.1.x", "we do not offer phone support"). */
const NEGATED = /\b(?:no|not|never|without|nor|n't|cannot|can't|won't)\s+(?:[\w-]+\s+){0,3}$/i;

/** The first sentence matching `pattern` that offers it: not a standard's title, not negated. */
function affirmed(facts: SiteFacts, pattern: RegExp): Mention[] {
  for (const mention of facts.mentions(pattern, { limit: 6 })) {
    if (STANDARD_TITLE.test(mention.text)) continue;
    const match = pattern.exec(mention.text);
    pattern.lastIndex = 0;
    if (match && NEGATED.test(mention.text.slice(0, match.index))) continue;
    return [mention];
  }
  return [];
}

/**
 * A plan's feature line ("Dedicated Customer Success Manager", "Priority Support") on the pricing or enterprise pages:
 * written in title case, such lines are read as menu labels by sentence checks, so they are read here.
 */
function planFeature(facts: SiteFacts, pattern: RegExp): Mention[] {
  const pages = facts.pages.filter(
    (page) => facts.categoryOf(page.url) === "pricing" || /^\/enterprise(?:[/.?#]|$)/i.test(new URL(page.url).pathname),
  );
  for (const page of pages)
    for (const raw of page.text.slice(0, SCORED_TEXT_PER_PAGE).split("\n")) {
      const line = raw.trim();
      if (line.split(/\s+/).length > 8 || !pattern.test(line) || STANDARD_TITLE.test(line)) continue;
      const match = pattern.exec(line);
      if (match && NEGATED.test(line.slice(0, match.index))) continue;
      return [{ url: page.url, text: line, quoted: true }];
    }
  return [];
}

/** The first sentence that offers it, or else a plan's feature line. */
function offered(facts: SiteFacts, pattern: RegExp): Mention[] {
  const found = affirmed(facts, pattern);
  return found.length > 0 ? found : planFeature(facts, pattern);
}

/** As kindsFound, each kind's first sentence that offers it (affirmed). */
function affirmedKinds(facts: SiteFacts, kinds: Kinds): Array<{ name: string; mention: Mention | Evidence }> {
  return kinds.flatMap(([name, pattern]) => affirmed(facts, pattern).map((mention) => ({ name, mention })));
}

/** The contact page's address: "/contact", "/contact-us", "/contact.html". */
const CONTACT_PAGE = /^\/(?:[\w-]+\/)?contact(?:-us)?(?:\.html?)?\/?(?:[?#]|$)/i;

/** The first line of the home page's text or its footer and menus (boilerplate) that matches `pattern`. */
function homeLine(facts: SiteFacts, pattern: RegExp): string | undefined {
  for (const block of [facts.home.text.slice(0, SCORED_TEXT_PER_PAGE), ...facts.home.boilerplate])
    for (const line of block.split("\n")) if (pattern.test(line.trim())) return line.trim();
  return undefined;
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
      : facts.pages.find(
          (page) =>
            page !== facts.home &&
            FAQ.test(`${new URL(page.url).pathname} ${page.title}`) &&
            // An FAQ page that only says "Coming soon" answers nothing: it asks at least one question.
            /\?(?:\s|$)/.test(page.text),
        );
  const faq =
    helpPage || helpLink.length > 0
      ? []
      : faqPage
        ? [{ url: faqPage.url, text: `FAQ page: ${faqPage.title || faqPage.url}` }]
        : // A sentence that points to the FAQ; a bare "FAQs" heading (a pricing page's section) quotes nothing.
          facts
            .mentions(/\b(frequently asked questions|faqs?)\b/i, { limit: 3 })
            .filter((mention) => !traitsOf(mention.text).fragment)
            .slice(0, 1);
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

  const channels = affirmedKinds(facts, [
    // Ways to reach support, not the general contact line ("email us for general queries", "call sales").
    // "Email & In-App Support" on a plan, "If you have any questions, requests, or need support, please shoot us an
    // email at: hello@effect.ai" (framework 2.11.0).
    [
      "email",
      /\b(support@|help@|email (support|our support|us for support)|contact (our )?support|(priority )?e-?mail (&|and|or) in[- ]app support|(questions|need support|need help)\b[^.]{0,60}\be-?mail\b[^.]{0,20}\b(at|to):? [\w.+-]+@)/i,
    ],
    ["live chat", /\b(live chat|chat with (us|support|our team)|in[- ]app (chat|support))\b/i],
    ["phone", /\b(phone support|support (by|over the) phone|support line|call (our )?support)\b/i],
    ["tickets", /\b(submit a (ticket|request)|support (tickets?|portal|requests?))\b/i],
    ["community support", /\bcommunity (support|forum)\b/i],
    // A users' mailing list for help ("User's List … for anyone running the server"): framework 2.11.0.
    [
      "mailing list",
      /\b(users?'?s? (mailing )?list|support (mailing )?list|mailing list for (help|support|questions))\b/i,
    ],
    // "Ping us on Slack", "ask for help in our Telegram channel": a chat channel offered for help.
    [
      "Slack, Discord or Telegram",
      /\b((ping|message|ask|reach|contact) us (on|in|via|through) (our )?(slack|discord|telegram)|(help|support) (in|on|via) (our )?(slack|discord|telegram))\b/i,
    ],
  ]);
  // A bare support address ("support@acme.com" in the footer, "M: support@acme.tw" on the contact page) is one word,
  // which no sentence check admits: read the home page's lines, then the contact page's (framework 2.10.0).
  if (!channels.some((channel) => channel.name === "email")) {
    const bare = /^(?:(?:e-?mail|mail|m|e)\s*:?\s*)?(?:support|help)@[\w-]+(?:\.[\w-]+)+\b/i;
    const home = homeLine(facts, bare);
    const contact = home
      ? undefined
      : facts.pages
          .filter((page) => CONTACT_PAGE.test(pathOf(page.url)))
          .map((page) => ({
            page,
            line: page.text
              .slice(0, SCORED_TEXT_PER_PAGE)
              .split("\n")
              .map((line) => line.trim())
              .find((line) => bare.test(line)),
          }))
          .find((found) => found.line !== undefined);
    const address = home ?? contact?.line;
    if (address)
      channels.unshift({
        name: "email",
        mention: {
          url: home ? facts.home.url : contact!.page.url,
          text: `support address on the ${home ? "home" : "contact"} page: ${address.match(/(?:support|help)@\S+/i)![0]}`,
        },
      });
  }
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
    offered(
      facts,
      /\b((24\/7|24x7|24\/5|round[- ]the[- ]clock) (\w+ ){0,2}(support|help|assistance|service desk|customer success)|(support|help|customer success)\b[^.]{0,40}\b(24\/7|24x7|24\/5|round[- ]the[- ]clock)|business hours|support hours|(support|average|first|typical) response times?|response times?:? within \d{1,3} (hours?|days?|minutes?)|(respond|reply|replies|answer|get back to you)\w* within)\b/i,
    ),
    85,
    "support hours or response times",
    "no support hours or response times",
  );
  present(
    assessor,
    1.5,
    offered(
      facts,
      /\b(customer success (managers?|team)|dedicated (account|success|support) (managers?|team|engineers?|executives?|representatives?)|dedicated (live |priority |premium )?support\b|onboarding (services?|specialists?|sessions?|assistance|training)|integration support|managed services|(consulting|professional) services|white[- ]glove|implementation (services?|support|team)|technical account managers?)\b/i,
    ),
    85,
    "customer success or onboarding services",
    "no customer success or onboarding services",
  );
  present(
    assessor,
    1,
    offered(
      facts,
      /\b(support sla|priority support|premium support|guaranteed response|first[- ]response times?|response (time )?sla|\d{1,3}[- ]hours? response)\b/i,
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
  [
    "marketing",
    /\b(marketing|marketer|growth|content|brand|seo|demand gen|communications|social media|community (manager|lead|operations?)|developer relations|devrel|(developer )?evangelist|developer advocate)\b/i,
  ],
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
  // A title followed by its responsibilities or requirements is an opening whatever it is called ("Technical Educator",
  // "Community Operation": framework 2.10.0); elsewhere a line must name a role to be one.
  const consider = (url: string, raw: string, opensAnAd = false) => {
    const title = raw.trim().split(/\s+/).join(" ");
    if (
      title.length < 4 ||
      title.length > 90 ||
      title.split(" ").length > 10 ||
      /[.!?:;]$/.test(title) ||
      (!opensAnAd && !ROLE.test(title)) ||
      NOT_A_TITLE.test(title)
    )
      return;
    const key = title.toLowerCase();
    if (openings.has(key)) return;
    const fn = FUNCTIONS.find(([, pattern]) => pattern.test(title))?.[0] ?? "other";
    openings.set(key, { url, title, function: fn });
  };
  for (const page of facts.pagesIn("careers")) {
    for (const heading of page.headings) if (heading.level > 1) consider(page.url, heading.text);
    const lines = page.text.split("\n");
    lines.forEach((line, index) => consider(page.url, line, headsAnAd(lines, index)));
    // The site's menu ("Developer Docs") is on the careers page too: its links are not openings.
    for (const link of [...page.internalLinks, ...page.externalLinks]) if (!link.inNav) consider(page.url, link.text);
  }
  // Small companies list their openings on the about page ("Join us"): read there only with a job ad's shape,
  // a hiring heading and each title followed by its responsibilities or requirements.
  for (const page of facts.pagesIn("about", "other")) {
    if (!HIRING.test(page.text)) continue;
    const lines = page.text.split("\n");
    lines.forEach((line, index) => {
      if (opensAnAd(lines, index)) consider(page.url, line, headsAnAd(lines, index));
    });
  }
  // A card repeats its title with its terms ("Rails Developer" heading, "Rails Developer full-time Taipei, Taiwan"
  // as the link): a title that another opening's title begins with, up to a word boundary, is that opening once.
  const titles = [...openings.keys()];
  return [...openings.values()].filter((opening) => {
    const key = opening.title.toLowerCase();
    return !titles.some(
      (other) => other.length < key.length && key.startsWith(other) && !/[\p{L}\p{N}]/u.test(key[other.length]!),
    );
  });
}

/** A page that says it is hiring. */
const HIRING =
  /\b(join us|join our team|we'?re hiring|we are hiring|open (positions|roles)|job openings|current openings|careers)\b/i;
/** What follows a job title in an ad. */
const JOB_AD_BODY =
  /^(responsibilities|requirements|(minimum |preferred )?qualifications|what you'?ll do|about the role|job description)\b/im;

/** Whether the line at `index` is followed, within two lines, by a job ad's body ("Responsibilities:", "Requirements"). */
function opensAnAd(lines: readonly string[], index: number): boolean {
  return JOB_AD_BODY.test(lines.slice(index + 1, index + 3).join("\n"));
}
/** Whether the very next line is a job ad's body: the line at `index` is the ad's title. */
function headsAnAd(lines: readonly string[], index: number): boolean {
  return JOB_AD_BODY.test(lines[index + 1] ?? "");
}
/** A list item or a call to action, not a job's title ("4. Experience working with blockchain", "Apply Now"). */
const NOT_A_TITLE = /^(?:\d+[.)]|[-•*])\s|^apply\b/i;

/** Applicant-tracking hosts: a careers page that links to one has its openings there. */
export const JOB_BOARD =
  /\/\/([\w-]+\.)*(greenhouse\.io|grnh\.se|lever\.co|ashbyhq\.com|workable\.com|recruitee\.com|personio\.(de|com)|smartrecruiters\.com|bamboohr\.com|teamtailor\.com|welcometothejungle\.com|wellfound\.com|myworkdayjobs\.com|myworkdaysite\.com|breezy\.hr|icims\.com|jobvite\.com|applytojob\.com|jazzhr\.com|taleo\.net|successfactors\.(com|eu)|homerun\.co|join\.com|pinpointhq\.com|freshteam\.com|recruiterbox\.com|jobscore\.com|zohorecruit\.(com|eu)|rippling-ats\.com|jobs\.gem\.com|workatastartup\.com)\b/i;

export function talentOrganization(facts: SiteFacts) {
  const assessor = new Assessor();
  const [careers] = facts.pagesIn("careers");
  const openings = jobOpenings(facts);
  // Job ads on another page (an about page's "Join us") make a careers section there: not "no careers page".
  const section = careers || openings.length === 0 ? undefined : pathOf(openings[0]!.url);
  const [careersLink] =
    careers || section
      ? []
      : facts.linksMatching(/\/(careers|jobs|join-us|hiring)\b|\b(careers|we'?re hiring|join (our|the) team)\b/i);
  assessor.signal(
    1,
    careers || section ? 75 : careersLink ? 55 : undefined,
    careers
      ? "a careers page"
      : section
        ? `a careers section on ${section}`
        : careersLink
          ? "a careers page linked (not crawled)"
          : "no careers page",
    careers
      ? [{ url: careers.url, text: `careers page: ${careers.title || careers.url}` }]
      : section
        ? [{ url: openings[0]!.url, text: `job openings listed on ${section}` }]
        : careersLink
          ? [{ url: careersLink.url, text: `careers page linked as "${careersLink.text}"` }]
          : [],
  );

  const [board] = linkTo(facts, JOB_BOARD, "job board");
  if (openings.length > 0) {
    // Three openings is the median for a company that is hiring; fifteen is a company scaling every function.
    const fact = `${section ?? "careers page"} lists ${plural(openings.length, "opening")}`;
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
    // "Core principles of our business", "a team that values teamwork, inclusivity and integrity", "People & Culture",
    // a section headed "Values", or "We believe in" over its values ("we foster a culture of sharing": framework 2.10.0).
    // Customers or partners "that share our values" are whom the company works with, not how it works.
    facts
      .mentions(
        /\b(our values|core values|(our|core|guiding) principles|our culture|a culture of|(people|life|team) (&|and) culture|(people|team|company) (&|and) values|that values \w+|remote[- ]first|benefits (include|and perks)|perks)\b|^(our |core |company )?values$|^(mission|vision),? (&|and) values$|^what we believe(?: in)?:?$|^we believe in:?$/i,
        { in: ["careers", "about"], limit: 3 },
      )
      .filter(
        (mention) =>
          !/\b(?:organi[sz]ations|companies|customers|clients|partners|brands|businesses) (?:that|who) share our values\b/i.test(
            mention.text,
          ),
      )
      .slice(0, 1),
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
  /\b(co-?founder|founder|ceo|cto|coo|cfo|cmo|cpo|chief [a-z]+ officer|(principal|compliance|operations|investment|underwriting|risk|claims|data protection) officer|managing (director|partner)|general counsel|president|vp|vice president|head of [a-z]+|director|lead engineer|(project|team|tech) lead(er)?|scrum master|product owner|engineer|designer|developer|scientist|researcher|manager)\b/i;
/** Pages that name the people behind the company besides the about pages: contact and team pages ("Compliance Officer Iain Herbert"). */
const PEOPLE_PAGE = /\/(contact|contact-us|team|our-team|people|leadership|management)(\.html?)?\/?$/i;

/**
 * Role words that also name other things ("a trusted partner", "industry analysts", "our consultants"): a person's
 * role only on a title's line ("Operating Partner", "AVP, Global Sales", "Associate Security Analyst").
 */
const TITLE_ROLE =
  /\b(analyst|consultant|marketer|advisor|adviser|partner|associate|(tech|team|design|product|engineering) lead|[ase]vp|evangelist|strategist|architect|administrator|accountant|recruiter|coordinator|specialist|counsel|treasurer|secretary|chairman|chairwoman|chairperson)$|^([ase]vp|vp)\b|\b(analyst|consultant|marketer|advisor|partner|[ase]vp|(tech|team) lead)(,| [-–—|] | at )/i;
/** Words a title's line may have in lower case: everything else in it is capitalised ("Head of Business Development"). */
const TITLE_WORD = "(?:[\\p{Lu}\\d][\\p{L}\\d'’.&/()+-]*|of|and|the|for|at|in|to|&|[-–—|/])";
const TITLE_LINE = new RegExp(`^${TITLE_WORD}(?:[ ,]+${TITLE_WORD}){0,7}$`, "u");
/** Departments joined into a functional title before a name ("Operations and Claims Cheung Ngai Kay"). */
const DEPARTMENT =
  "(?:Operations|Claims|Finance|Sales|Marketing|Underwriting|Compliance|Legal|Engineering|Technology|Administration|Accounts|Accounting|Research|Product|Design|Support|Risk|Investments?|Business Development|Customer (?:Service|Success|Support)|Human Resources|People|Partnerships|Strategy|Communications|IT|HR)";
const FUNCTIONAL_TITLE = new RegExp(
  `^${DEPARTMENT}(?:,? (?:and|&) ${DEPARTMENT})+ (?<name>\\p{Lu}[\\p{Ll}'’-]+(?: \\p{Lu}[\\p{Ll}'’.-]*){1,3})(?=\\s|$)`,
  "u",
);
/** A person's bio, at any length: "Yaroslav is an enterprise developer with …", "Sam is a HubSpot certified … marketer and …". */
const BIO_SUBJECT =
  /^(\p{Lu}\p{Ll}+)(?: (\p{Lu}\p{Ll}+))? (?:is|was|has been|serves as) (?:a|an|the|our|one of (?:the|our)) /u;
const BIO_ROLE =
  /^(?:[^\s,.;:]+ ){0,5}?(?:co-?founder|founder|ceo|cto|coo|cfo|cmo|cpo|chief [a-z]+ officer|president|vice president|vp|head of [a-z]+|director|engineer|designer|developer|programmer|scientist|researcher|manager|analyst|consultant|marketer|advisor|adviser|partner|architect|strategist|specialist|evangelist|accountant|lead)s?(?=[,.;:)]|\s+(?:with|and|at|who|for|in|from|based|since|of|on|by|to)\b|\s*$)/i;
/** "founded … by Denis Lunev", "co-founder Drew Crawford": a person named with the role, at any length. */
const FOUNDED_BY =
  /\b(?:[Cc]o-?)?[Ff]ounded\b[^.]{0,80}?\bby (\p{Lu}\p{Ll}+)(?: \p{Lu}[\p{Ll}'’-]+){1,2}(?: and (\p{Lu}\p{Ll}+)(?: \p{Lu}[\p{Ll}'’-]+){1,2})?/u;
const ROLE_THEN_NAME =
  /\b(?:[Cc]o-?founder|founder|president|chairman|chief executive),? (\p{Lu}\p{Ll}+) \p{Lu}[\p{Ll}'’-]+/u;
/** A sentence's subject that is not a person: pronouns and such, and a company's suffix ("Acme Limited is a …"). */
const NOT_A_PERSON =
  /^(he|she|it|they|this|that|these|those|there|here|which|who|what|where|why|how|everyone|everybody|someone|somebody|nobody|anyone|each|every|our|your|their|his|her|its|one|today|now|nothing|everything|we|you)$/i;
const COMPANY_SUFFIX =
  /^(limited|inc|ltd|llc|llp|plc|gmbh|ag|sa|corp|corporation|company|co|group|labs|technologies|technology|software|systems|solutions|network|networks|studio|studios|partners|capital|ventures|holdings|international|global)$/i;
/** Words that end a functional title's "name" as a heading does ("Sales and Marketing Team Members"). */
const NOT_A_NAME =
  /\b(Team|Teams|Department|Departments|Solutions|Services|Group|Division|Office|Offices|Platform|Tools|Software|Enquiries|Inquiries|Contacts?|Questions|Support|Manager|Director|Officer|Head|Lead|Staff|Members?)\b/;
/** A line that is only a name ("Harshit Agarwal", "Michael Smith Jr"): the person a role line below it names. */
const NAME_LINE = /^(\p{Lu}[\p{L}'’.-]*)(?: \p{Lu}[\p{L}'’.-]*){0,3}$/u;

/** Words that open a title, not a name ("Principal Officer Anthony Egerton", "Chief Financial Officer …"). */
const TITLE_START =
  /^(chief|head|senior|sr|junior|jr|principal|lead|vice|managing|executive|general|deputy|assistant|associate|co-?founder|founder|president|director|manager|global|regional|operations|sales|marketing|product|engineering|technical|tech|software|security|business|customer|compliance|finance|financial|legal|people|project|program|programme|office|creative|frontend|backend|full-stack|data|research|partner|operating)$/i;

/** The first name a role line opens with ("Arran Cudbard-Bell Principal Architect", "Shane Callanan - Frontend Engineer"). */
function leadingName(sentence: string): string | undefined {
  const first = /^(\p{Lu}\p{Ll}+) \p{Lu}/u.exec(sentence)?.[1];
  return first !== undefined && !TITLE_START.test(first) && !PERSON_ROLE.test(first) ? first : undefined;
}

/** The names of the site itself (its brand, the words of its name and home title): a bio's subject is not the company. */
function ownNames(facts: SiteFacts): Set<string> {
  const names = new Set(brandKeys(facts));
  for (const word of `${facts.crawl.companyName} ${facts.home.title}`.toLowerCase().split(/[^\p{L}\d]+/u))
    if (word.length >= 3) names.add(word);
  return names;
}

/** The people a sentence names with their role at any length (bios, "founded by …"): their first names. */
function namedPeople(sentence: string, own: ReadonlySet<string>): string[] {
  const person = (first: string | undefined, second?: string) =>
    first !== undefined &&
    !NOT_A_PERSON.test(first) &&
    !own.has(first.toLowerCase()) &&
    (second === undefined || (!COMPANY_SUFFIX.test(second) && !own.has(second.toLowerCase())));
  const bio = BIO_SUBJECT.exec(sentence);
  if (bio && person(bio[1], bio[2]) && BIO_ROLE.test(sentence.slice(bio[0].length))) return [bio[1]!];
  const founded = FOUNDED_BY.exec(sentence);
  if (founded) return [founded[1], founded[2]].filter((name): name is string => name !== undefined && person(name));
  const titled = ROLE_THEN_NAME.exec(sentence);
  if (titled && person(titled[1])) return [titled[1]!];
  return [];
}

/** A sentence of its own line that names a role: "Founder & CEO" under a name, "Operating Partner", "Compliance Officer Iain Herbert". */
function roleLine(sentence: string): boolean {
  if (sentence.length > 120) return false;
  if (PERSON_ROLE.test(sentence)) return true;
  const name = FUNCTIONAL_TITLE.exec(sentence)?.groups?.name;
  if (name !== undefined && !NOT_A_NAME.test(name)) return true;
  return !/[.!?]$/.test(sentence) && TITLE_LINE.test(sentence) && TITLE_ROLE.test(sentence);
}

/** How many people the site shows: pages per person, or (on about and team pages) people named with a role. */
function teamShown(
  facts: SiteFacts,
  openings: readonly Opening[],
): { count: number; fact: string; evidence: Array<{ url: string; text: string; quoted?: true }> } {
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
  // Each person once: a role line with the line above it (two "Prod-Dev Engineer"s under two names are two people,
  // the same card on two pages is one), a person named in a sentence by first name ("founded by Denis Lunev",
  // "Denis is an e-commerce consultant").
  const people = new Map<string, { url: string; text: string; quoted: true }>();
  const firstNames = new Set<string>();
  // "Alex" in a bio is the "Alexander Clouter" of the card above it.
  const known = (name: string) => {
    const lower = name.toLowerCase();
    for (const first of firstNames)
      if (
        first === lower ||
        (Math.min(first.length, lower.length) >= 3 && (first.startsWith(lower) || lower.startsWith(first)))
      )
        return true;
    return false;
  };
  const own = ownNames(facts);
  const pages = facts
    .pagesIn("about", "other")
    .filter((page) => facts.categoryOf(page.url) === "about" || PEOPLE_PAGE.test(new URL(page.url).pathname));
  for (const page of pages) {
    let previous = "";
    // A team grid's cards whose role is a function alone ("Core dev", "Finance", "HR"): counted once the page shows it
    // is a grid, with two or more cards whose role line reads as a role on its own ("Founder & CEO", "Designer").
    const functionCards: Array<[string, { url: string; text: string; quoted: true }]> = [];
    let gridCards = 0;
    for (const rawLine of page.text.slice(0, SCORED_TEXT_PER_PAGE).split("\n")) {
      const line = rawLine.trim();
      if (line.length === 0) continue;
      for (const part of line.split(/(?<=[.!?])\s+(?=[A-Z0-9"“])/)) {
        const sentence = part.trim();
        // "HR" is a card's role; other lines this short say nothing.
        if ((sentence.length < 3 && sentence !== "HR") || people.size >= 60) continue;
        const evidence = { url: page.url, text: quoteOf(sentence), quoted: true as const };
        const named = namedPeople(sentence, own);
        if (named.length > 0) {
          for (const name of named) {
            if (known(name)) continue;
            firstNames.add(name.toLowerCase());
            people.set(`name:${name.toLowerCase()}`, evidence);
          }
        } else if (roleLine(sentence) && !openingTitles.has(titleKey(sentence))) {
          // "He has been a contributor …", "Arran is … Director of RM-RF Ltd.": the person the card already named.
          const subject = /^(\p{Lu}\p{Ll}+)\b/u.exec(sentence)?.[1];
          if (subject !== undefined && (/^(he|she|his|her|they|their|him)$/i.test(subject) || known(subject))) continue;
          const key = `${previous}\n${sentence}`;
          if (people.has(key)) continue;
          people.set(key, evidence);
          if (cardName(previous, own)) gridCards++;
          const name = leadingName(sentence) ?? NAME_LINE.exec(previous)?.[1];
          if (name !== undefined) firstNames.add(name.toLowerCase());
        } else if (FUNCTION_ROLE.test(sentence) && cardName(previous, own)) {
          functionCards.push([`${previous}\n${sentence}`, evidence]);
        }
      }
      previous = line;
    }
    if (gridCards >= 2)
      for (const [key, evidence] of functionCards) {
        if (people.size >= 60) break;
        if (people.has(key)) continue;
        people.set(key, evidence);
        firstNames.add(key.split(" ")[0]!.toLowerCase());
      }
  }
  let listed = 0;
  for (const page of pages) {
    for (const [name, evidence] of roster(page, own)) {
      if (known(name) || people.size >= 60) continue;
      firstNames.add(name.toLowerCase());
      people.set(`name:${name.toLowerCase()}`, evidence);
      listed++;
    }
  }
  const roles = [...people.values()];
  if (members.size >= roles.length && members.size > 0) {
    const fact = `${plural(members.size, "team member page")}`;
    return { count: members.size, fact, evidence: [{ url: [...members.values()][0]!, text: fact }] };
  }
  if (roles.length > 0)
    return {
      count: roles.length,
      // A roster names people without their roles: the fact says so.
      fact: `${plural(roles.length, "person", "people")} named ${listed > 0 ? "on a team list or with a role" : "with a role"}`,
      evidence: roles.slice(0, 2),
    };
  return { count: 0, fact: "", evidence: [] };
}

/**
 * A card's role line that names a function only ("Core dev", "Biz dev", "Communications", "Finance", "HR"): a role
 * under a person's name in a team grid, though alone it could be a menu's label.
 */
const FUNCTION_ROLE =
  /^(?:(?:core|senior|sr\.?|junior|jr\.?|lead|staff|biz|business|product|software|web|mobile|front-?end|back-?end|full-?stack|platform|research)\s+){0,2}(?:devs?|dev ?ops|communications|comms|finance|accounting|hr|human resources|people ops|marketing|sales|operations|ops|support|design|legal|research|engineering|community|content|growth|qa|admin|administration|partnerships|business development|recruiting|talent)$/i;

/** The line above a card's role: a person's name only ("Demián Brener", "Juan Bautista Carpanelli"), not the site's own words. */
function cardName(line: string, own: ReadonlySet<string>): boolean {
  return (
    NAME_ONLY.test(line) &&
    !NOT_IN_A_NAME.test(line) &&
    !line
      .toLowerCase()
      .split(" ")
      .some((word) => own.has(word))
  );
}

/** A heading that introduces the people of the company: "Our Team", "Meet the team", "Leadership". */
const TEAM_HEADING = /^(?:(?:our|the|meet (?:the|our)) )?(?:team|leadership|founders|people)$/i;
/** A line that is only a person's name: two or three capitalised words ("Adair Houle", "Gerard L. Pennefather"). */
const NAME_ONLY = /^\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}\.)?(?: \p{Lu}[\p{Ll}'’-]+){1,2}$/u;
/** Words of a menu or a section, not of a name ("Support Home", "About Mover"). */
const NOT_IN_A_NAME =
  /\b(?:team|about|support|home|contact|company|blog|careers|jobs|pricing|plans?|products?|services?|legal|privacy|terms|community|news|features|login|sign|docs|help|more|read|learn|our|the|and)\b/i;

/**
 * A roster: three or more lines that are only a person's name, right under a team heading (one line of
 * introduction may come between): "Our Team", then "Adair Houle", "Eric Warnke", "Gezim Hoxha" … Each is a
 * person the company shows, though no role is written beside them. Yields the first name and its line.
 */
function* roster(
  page: { url: string; text: string },
  own: ReadonlySet<string>,
): Generator<[string, { url: string; text: string; quoted: true }]> {
  const lines = page.text
    .slice(0, SCORED_TEXT_PER_PAGE)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const isName = (line: string) => cardName(line, own);
  for (let heading = 0; heading < lines.length; heading++) {
    if (!TEAM_HEADING.test(lines[heading]!)) continue;
    let start = heading + 1;
    if (start < lines.length && !isName(lines[start]!)) start++;
    let end = start;
    while (end < lines.length && end - start < 60 && isName(lines[end]!)) end++;
    if (end - start < 3) continue;
    for (const line of lines.slice(start, end))
      yield [line.split(" ")[0]!, { url: page.url, text: line, quoted: true }];
  }
}

/** A sentence as a quote: at most 200 characters, an ellipsis where it was cut (as SiteFacts.mentions quotes). */
function quoteOf(sentence: string): string {
  return sentence.length <= 200 ? sentence : `${sentence.slice(0, 199).trimEnd()}…`;
}

export function companyMomentum(facts: SiteFacts) {
  const assessor = new Assessor();
  const newsPages = { in: ["blog", "about", "other"] } as const;

  // The company's own news: a post's title or heading, or a sentence in its own voice ("we", "our", its name).
  // "One great partnership with the right person" and a blog post's aside are not announcements.
  const announcements = facts
    .mentions(
      /\b(announc(es|ed|ing|ement)|launch(es|ed|ing)|introducing|now available|generally available|partners? with|partnership with|acquires|acquired|joins forces|expands? (in)?to|(wins?|won|raises|secures|receives) (a |an |the )?[\w' -]{0,30}\b(funding|grant|award|prize|round|investment|contract))\b/i,
      { ...newsPages, limit: 30 },
    )
    // A heading, or a sentence that opens with its news in the company's voice ("We are launching …", "Acme partners with …").
    .filter(
      (mention) => facts.isHeading(mention) || (facts.speaksForItself(mention.text) && NEWS_OPENING.test(mention.text)),
    )
    .concat(headlines(facts))
    // The product's announced end ("Adobe will end support for Brackets … Through Adobe's partnership with Microsoft,
    // we encourage users to migrate …") is not news of a company in motion.
    .filter(
      (mention, index, all) =>
        !inEndNotice(facts, mention) && all.findIndex((other) => other.text === mention.text) === index,
    )
    .slice(0, 8);
  // Dated news posts are announcements too, whatever verbs their titles use: a post whose address carries its date, or
  // a date on the blog's pages (a post list, as growth_distribution counts them). Momentum is the last year's: older
  // posts are the track record read below (framework 2.9.0).
  const today = facts.now.toISOString().slice(0, 10);
  const dated = facts.postsIn("blog").filter((post) => post.date <= today);
  const posts = dated.filter((post) => facts.daysSince(post.date) <= 365);
  // A dated page on the blog is the company's news when it names the company or opens in its voice ("Our security",
  // framework 2.12.0): "What is CRM? A Complete Guide" and "Customer Loyalty", which never say whose blog they are on,
  // are articles (growth_distribution counts them), not news of a company in motion.
  const brands = brandKeys(facts);
  const namesCompany = (text: string) => {
    if (facts.speaksForItself(text.slice(0, 300))) return true;
    const words = nameKey(text.slice(0, SCORED_TEXT_PER_PAGE));
    return brands.some((brand) => words.includes(brand));
  };
  const articles = new Set<string>();
  const pageDates = facts.pagesIn("blog").flatMap((page) => {
    const shown = page.dates.filter((date) => date <= today);
    if (shown.length === 0 || namesCompany(page.text)) return shown;
    for (const date of shown) articles.add(date);
    return [];
  });
  const blogDates = [...new Set([...pageDates, ...dated.map((post) => post.date)])].sort().reverse();
  const listed = blogDates.filter((date) => facts.daysSince(date) <= 365);
  const news = Math.max(announcements.length, posts.length, listed.length);
  // Two announcements visible is the median; six (launches, partnerships, expansion) is a company in motion.
  if (news === 0) {
    const [older] = blogDates;
    const recentArticles = [...articles].filter((date) => facts.daysSince(date) <= 365).length;
    assessor.signal(
      1.5,
      undefined,
      recentArticles > 0
        ? `no news in the last year: ${plural(recentArticles, "dated article")} on the blog, none naming the company`
        : older === undefined
          ? "no news or announcements"
          : `no news in the last year (newest dated post ${older})`,
    );
  } else if (announcements.length >= Math.max(posts.length, listed.length)) {
    assessor.signal(
      1.5,
      moreIsBetter(news, 2, 6),
      `${plural(news, "announcement")} (launches, partnerships)`,
      announcements.slice(0, 2),
    );
  } else if (posts.length >= listed.length) {
    const said = `${plural(news, "dated news post")} in the last year`;
    assessor.signal(1.5, moreIsBetter(news, 2, 6), said, [
      { url: posts[0]!.url, text: `${said}, e.g. ${posts[0]!.date}` },
    ]);
  } else {
    const said = `${plural(news, "post")} dated in the last year on the blog`;
    const [blog] = facts.pagesIn("blog");
    assessor.signal(1.5, moreIsBetter(news, 2, 6), said, [
      { url: pageWithDate(facts, listed[0]!, blog?.url ?? facts.home.url), text: `${said}, newest ${listed[0]}` },
    ]);
  }

  const funding = facts.mentions(
    /\b(raised (a |an )?[$€£\d]|raises [$€£\d]|series [a-e]\b|seed (round|funding)|pre[- ]seed|funding round|backed by (?:(?:leading|top|world-class|great) )?(?:investors|vcs?\b|venture|angels?)|backed by [\w&.' -]{1,40} (?:ventures|capital|partners)\b|(?:backed|supported|funded) by [\w&.,' -]{1,60}\b(?:vcs|investors|venture capital(?:ists)?)\b|(?:wins?|won|receive[sd]?|awarded|secure[sd]?) (?:a |an |the )?[\w' -]{0,40}\b(?:grant|funding)\b|investors? (include|including|like)|(?:an? )?(?:associate|subsidiary|affiliate|portfolio company|member company) of (?:the )?[\w&.,' -]{0,60}?\b(?:group|holdings?)\b|(?:taking|takes|took|wins?|won|awarded|receive[sd]?) (?:home )?(?:[A-Z]{3} ?|[$€£])\d[\d.,]*\s?(?:k|m|million|billion)?\b[^.\n]{0,30}\b(?:prize money|start-?up funds?|seed funds?)|y ?combinator|yc [swfx]\d{2}|sequoia|andreessen|a16z|accel|index ventures|lightspeed|general catalyst|khosla|greylock|kleiner)\b/i,
    { limit: 1 },
  );
  // An amount in a currency's sign or its code ("$4M", "TWD 5 million").
  const withAmount = funding.some(
    (mention) =>
      /[$€£]\s?\d[\d.,]*\s?(m|mm|million|bn|billion)\b/i.test(mention.text) ||
      /\b[A-Z]{3} ?\d[\d.,]*\s?(?:m|mm|million|bn|billion)\b/.test(mention.text),
  );
  present(
    assessor,
    1.5,
    funding,
    withAmount ? 95 : 85,
    withAmount ? "funding named with an amount" : "funding or investors named",
    "no funding or investors named",
  );

  // The company's own base or growth: not "sites with fewer than 100,000 users", "sites under 10,000 users" (a size, not a
  // claim) or "an issue affecting 25,000 users". One qualifier may come between ("10,000 subscription customers"); a name may
  // not ("87 million Facebook users" are another company's).
  const growth = facts
    .mentions(
      /(\b(\d{1,3}(,\d{3})+|\d{3,}|\d+(\.\d+)?\s?(k|m|million|billion))\+?\s{1,3}(?:(?:active|paying|paid|subscription|subscribing|enterprise|happy|satisfied|registered|monthly|daily|weekly|global|loyal|business|corporate|retail|unique|premium|trusted)\s)?(customers|users|teams|companies|businesses|developers|organi[sz]ations|brands|merchants|creators)\b|\b\d{1,4}x (growth|revenue|arr)\b|\bgrew (by )?\d{1,4}%|\b(arr|revenue) (grew|doubled|tripled)\b)/i,
      { limit: 15 },
    )
    .filter(
      (mention) =>
        !/\b(less|fewer) than\b|\b(under|below|up to|at most) \d|\baffect(ing|ed|s)\b|\bof (the|their|its) (sites|users|customers)\b|\bfortune \d{2,4}\b/i.test(
          mention.text,
        ),
    )
    .slice(0, 5);
  // What the company's product already carries, in its own voice, is its scale: "We process over 2 billion files
  // per month", "$1.5+ Billion in digital assets powered by our contracts" (framework 2.10.0).
  const figures = [...growth, ...scaleFigures(facts)].slice(0, 5);
  // One growth figure is the median; three ("10,000 customers", "3x ARR") is a confident growth story.
  assessor.signal(
    1,
    figures.length > 0 ? moreIsBetter(figures.length, 1, 3) : undefined,
    figures.length > 0 ? `${plural(figures.length, "growth or scale figure")} stated` : "no growth or scale figures",
    figures.slice(0, 2),
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

/**
 * A news headline among the headings of the home, blog and about pages, in title case as headlines are written
 * ("Acme Launches Bionic Report Explainer", "Introducing Acme Cloud"): sentences in title case are read as menu
 * labels, so these are found here. A call to action ("Partner With Us", "Launch Faster") has no subject and is not news.
 */
const HEADLINE =
  /^(?:[\w.&'’-]+\s+){1,6}?(?:announces|launches|introduces|unveils|acquires|partners with|joins forces with|expands (?:in)?to)\b|^introducing\s+\S/i;
function headlines(facts: SiteFacts): Mention[] {
  const found: Mention[] = [];
  for (const page of [facts.home, ...facts.pagesIn("blog", "about")])
    for (const heading of page.headings) {
      const text = heading.text.trim();
      if (text.length <= 120 && HEADLINE.test(text)) found.push({ url: page.url, text, quoted: true });
    }
  return found;
}

/** A figure of some size: "2 billion", "1.5 million", "$600+ Million", "8,000,000", "250K". */
const LARGE_FIGURE = String.raw`(?:(?:[$€£]\s?)?(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\+?\s?(?:[kKmMbB]|mm|MM|bn|BN|[Mm]illion|MILLION|[Bb]illion|BILLION|[Tt]rillion)\b)\+?|(?:[Tt]ens|[Hh]undreds) of (?:thousands|millions|billions))`;
/** What a product does with a volume: the verbs of scale. */
const SCALE_VERBS =
  "process|handle|transfer|serve|power|secure|protect|safeguard|manage|perform|scan|deliver|send|move|sync|analy[sz]e|monitor|track|store|host|route";
/** The same verbs, done: "raised through our …", "sent with Acme". */
const SCALE_DONE =
  "processed|handled|transferred|served|powered|secured|protected|safeguarded|performed|scanned|delivered|sent|moved|synced|analy[sz]ed|monitored|tracked|stored|hosted|routed|raised|managed|run|completed|indexed";
/**
 * The company's own volume: "we now transfer an average of 1.5 million files a day", "Qualys performs over 6 billion
 * scans every year" (a subject, then a verb of scale, then the figure; "you can send up to 10,000 emails" is a
 * plan's limit, and "if we process 1 million …" a supposition).
 */
const WE_HANDLE_VOLUME = new RegExp(
  String.raw`(?<!\b(?:if|when|once|until|can|could|would|will|should)\s)\b([Ww]e|(\p{Lu}[\p{L}\d.&-]*))\s+(?:now\s+|currently\s+|already\s+|collectively\s+|together\s+)?(?:${SCALE_VERBS})(?:es|s|ed|d)?\s+(?:over\s+|more than\s+|about\s+|around\s+|nearly\s+|almost\s+|an average of\s+|on average\s+)?${LARGE_FIGURE}`,
  "u",
);
/** A figure the product carries: "$600+ Million raised through our audited systems", "2M+ emails sent with Acme". */
const VOLUME_THROUGH_US = new RegExp(
  String.raw`${LARGE_FIGURE}\s+(?:in\s+)?(?:[\p{L}-]+\s+){0,4}?(?:${SCALE_DONE})\s+(?:by|through|with|on|via|using)\s+(?:our\b|us\b|(\p{Lu}[\p{L}\d.&-]*))`,
  "u",
);
/**
 * A stat the site states of itself: a line that is only a figure, its noun and what was done ("Over 120,000,000 events
 * processed" under "General Exceptionless Stats"), or one in a sentence in the company's voice ("With nearly 8 million
 * tasks completed, we know our business").
 */
const STAT = new RegExp(String.raw`${LARGE_FIGURE}\s+(?:[\p{L}-]+\s+){1,3}?(?:${SCALE_DONE})\b`, "u");
const STAT_LINE = new RegExp(String.raw`^(?:over |more than |nearly |almost |about )?${STAT.source}\W*$`, "iu");
/** "Trusted to manage $430m+ of revenue", "trusted with over $2 billion": what customers put in the product's hands. */
const TRUSTED_WITH = new RegExp(
  String.raw`\btrusted (?:to (?:manage|secure|protect|process|handle|move|run)|with) (?:over |more than )?${LARGE_FIGURE}`,
  "iu",
);
/** A live counter: a number over a caption that says it keeps counting ("7449074931" / "— FILES AND COUNTING —"). */
const COUNTER_NUMBER = /^\d{1,3}(?:,\d{3})+\+?$|^\d{4,}\+?$/;
const AND_COUNTING = /^\W*(?:[\p{L}-]+\s+){1,3}and counting\W*$/iu;
/** A line that is only a figure ("$1.5+ Billion", "8,000,000+"): its caption is the next line. */
const FIGURE_LINE = new RegExp(String.raw`^${LARGE_FIGURE}$`, "u");

/**
 * The volumes the company says its product carries (figures the growth pattern's nouns miss). Pricing and docs pages
 * are left out, but for a live counter: "3,000,000 errors per month" there is a plan's allowance, and a counter never
 * is. A figure whose caption sits on the next line ("$1.5+ Billion" over "in digital assets powered by our contracts")
 * is read with it, and given as the two lines joined, not as a quote.
 */
function scaleFigures(facts: SiteFacts): Array<Evidence | Mention> {
  const own = ownNames(facts);
  // "We …" is the company; a capitalised subject only when it is the company's own name ("Qualys performs …").
  const ours = (subject: string | undefined) => subject === undefined || own.has(subject.toLowerCase());
  const pages = ["other", "about", "customers", "blog"] as const;
  const found: Array<Evidence | Mention> = [
    ...facts
      .mentions(WE_HANDLE_VOLUME, { in: pages, limit: 3 })
      .filter((m) => ours(WE_HANDLE_VOLUME.exec(m.text)?.[2])),
    ...facts
      .mentions(VOLUME_THROUGH_US, { in: pages, limit: 3 })
      .filter((m) => ours(VOLUME_THROUGH_US.exec(m.text)?.[1])),
    ...facts
      .mentions(STAT, { in: pages, limit: 5 })
      .filter((m) => STAT_LINE.test(m.text) || facts.speaksForItself(m.text))
      .filter((m) => !/\b(?:up to|per (?:month|year) on|plan|limit)\b/i.test(m.text)),
  ].filter((item, index, all) => all.findIndex((other) => other.text === item.text) === index);
  // The same pages the mentions above can quote for this dimension: the home page, about, customers and blog pages;
  // a live counter on any page but docs (a counter is never a plan's limit).
  const pricing = new Set(facts.pagesIn("pricing"));
  for (const page of [facts.home, ...facts.pagesIn("about", "customers", "blog"), ...pricing]) {
    if (found.length >= 3) break;
    const lines = page.text
      .slice(0, SCORED_TEXT_PER_PAGE)
      .split("\n")
      .map((line) => line.trim());
    lines.forEach((line, index) => {
      // A badge line in title case ("Trusted To Manage $430m+ of Revenue") reads as a menu label to the sentence filter.
      if (!pricing.has(page) && TRUSTED_WITH.test(line) && !found.some((item) => item.text === line))
        found.push({ url: page.url, text: line, quoted: true });
      const next = lines[index + 1];
      if (next === undefined || next.length > 200) return;
      const text = `${line} ${next}`;
      const counter = COUNTER_NUMBER.test(line) && AND_COUNTING.test(next);
      const through = !pricing.has(page) && FIGURE_LINE.test(line) ? VOLUME_THROUGH_US.exec(text) : null;
      if ((counter || (through && ours(through[1]))) && !found.some((item) => item.text === text))
        found.push({ url: page.url, text });
    });
  }
  return found.slice(0, 3);
}

/** The paragraph of the home page that announces the product's end ("… will be phased out by March 31, 2018 …"), if any. */
function endNotice(facts: SiteFacts): string | undefined {
  const end = announcedEnd(facts.crawl);
  if (!end) return undefined;
  return facts.home.text.split("\n").find((line) => line.includes(end.text)) ?? end.text;
}

function inEndNotice(facts: SiteFacts, mention: { url: string; text: string }): boolean {
  if (mention.url !== facts.home.url) return false;
  const notice = endNotice(facts);
  return notice !== undefined && notice.includes(mention.text.replace(/…$/, ""));
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?";

/** The dates (YYYY-MM-DD) written in a text: "2018-03-31", "March 31, 2018", "31 March 2018". */
function datesIn(text: string): string[] {
  const dates: string[] = [];
  const iso = (year: string, month: number, day: string) =>
    `${year}-${String(month).padStart(2, "0")}-${day.padStart(2, "0")}`;
  for (const match of text.matchAll(/\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b/g))
    dates.push(`${match[1]}-${match[2]}-${match[3]}`);
  for (const match of text.matchAll(new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?,? ((?:19|20)\\d\\d)\\b`, "gi")))
    dates.push(iso(match[3]!, MONTHS.indexOf(match[1]!.toLowerCase()) + 1, match[2]!));
  for (const match of text.matchAll(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? ${MONTH},? ((?:19|20)\\d\\d)\\b`, "gi")))
    dates.push(iso(match[3]!, MONTHS.indexOf(match[2]!.toLowerCase()) + 1, match[1]!));
  return dates;
}

/**
 * Dates that are a table's sample data: each opens a row whose other cells repeat row after row ("2016-05-02",
 * "Tom", "No. 189, Grove St" three times or more). News, releases and posts differ row by row.
 */
function sampleRowDates(page: { text: string }): Set<string> {
  const rows = new Map<string, string[]>();
  const lines = page.text.slice(0, SCORED_TEXT_PER_PAGE).split("\n");
  lines.forEach((line, index) => {
    const match = /^\s*((?:19|20)\d\d-\d\d-\d\d)\b\s*(.*)$/.exec(line);
    if (!match) return;
    // The row's other cells: the rest of its line (three words or more), or the two lines below it. A news list's
    // "2025-04-01", "Artificial Intelligence" repeats a category, not the whole row: its titles differ.
    const rest = match[2]!.trim()
      ? match[2]!.trim()
      : `${lines[index + 1]?.trim() ?? ""}\n${lines[index + 2]?.trim() ?? ""}`;
    if (rest.split(/\s+/).filter((word) => word.length > 0).length < 3) return;
    const dates = rows.get(rest) ?? [];
    dates.push(match[1]!);
    rows.set(rest, dates);
  });
  const sample = new Set<string>();
  for (const dates of rows.values()) if (dates.length >= 3) for (const date of dates) sample.add(date);
  return sample;
}

/** News told in its first words: the announcement verb within the sentence's first eight words. */
const NEWS_OPENING =
  /^\W*(?:\S+\s+){0,7}?(?:announc|launch|introduc|now available|generally available|partner|acquir|joins forces|expand|wins |won |raises |secures |receives )/i;

const FOUNDED =
  /\b(?:founded|established|started|launched|incorporated|in business since|since)\s+(?:in\s+)?(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+)?((?:19|20)\d{2})\b|(?:©|\(c\)|copyright)\s*((?:19|20)\d{2})\s*[-–]\s*(?:19|20)\d{2}/i;

/**
 * The company counting its own years, in its own voice: "we've been … for over five years", "the team … has been
 * delivering … for more than 5 years", "Acme has been … for 12 years" (its own name; "Kunal has been with Acme for two
 * years" is a person's).
 */
const YEARS_IN_BUSINESS =
  /(?:\b[Ww]e(?:['’]ve| have)|\b(?:[Tt]he|[Oo]ur) (?:team|company)\b[^.;]{0,80}? has|(?<![\p{L}\d])(\p{Lu}[\p{L}\d.&-]*) has) been\b[^.;]{0,60}?\bfor (?:over |more than |almost |nearly )?(\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)\+? years\b/u;
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
};

/** A sentence about a person: "Tomáš has …", "He has been a contributor since 2007" (not "We have …", "Acme has …"). */
function personVoice(facts: SiteFacts, text: string): boolean {
  if (/\b(?:he|she|his|her|him)\b/i.test(text)) return true;
  const subject = /^(\p{Lu}\p{Ll}+)(?: (\p{Lu}\p{Ll}+))? (?:has|had|was|is|joined|worked)\b/u.exec(text);
  if (!subject || NOT_A_PERSON.test(subject[1]!)) return false;
  const own = ownNames(facts);
  return !own.has(subject[1]!.toLowerCase()) && !(subject[2] && COMPANY_SUFFIX.test(subject[2]));
}

/** The longest history the site states: a founding year (or a © range), or the span of its dated content. */
function trackRecord(
  facts: SiteFacts,
  crawlYear: number,
): { years: number; fact: string; evidence: Evidence } | undefined {
  let best: { years: number; fact: string; evidence: Evidence } | undefined;
  // "since 2003" and "started in 2015" date the company only in its own voice: "Tomáš has IT experience since 2003"
  // is a person's career, "Cardano … started in 2015" another project's history.
  const founding = facts.mentions(FOUNDED, { limit: 5 }).find((mention) => {
    const keyword = FOUNDED.exec(mention.text)?.[0].toLowerCase() ?? "";
    // "Launched in 2011, Bitcasa offers …" on a partner's announcement is the partner's launch.
    if (!/^(since|started|launched)\b/.test(keyword)) return true;
    return facts.speaksForItself(mention.text) && !personVoice(facts, mention.text);
  });
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
  // A © range in the home page's footer ("Copyright © 2009 - 2016 Mirumee Software") dates the site's first year, as a
  // founding year in the text does (framework 2.11.0).
  const since = best ? undefined : facts.copyrightSince();
  if (since !== undefined && since < crawlYear) {
    const fact = `founded or active since ${since} (the home page's copyright range)`;
    best = { years: crawlYear - since, fact, evidence: { url: facts.home.url, text: fact } };
  }
  // "We've been in the security space for over five years now": the company's own count of its years.
  for (const mention of facts.mentions(YEARS_IN_BUSINESS, { limit: 3 })) {
    const match = YEARS_IN_BUSINESS.exec(mention.text);
    // "TeamT5 has been delivering …" counts when the subject is the company's own name; "Kunal has been with Qualys" does not.
    const subject = match?.[1];
    if (subject !== undefined && !ownNames(facts).has(subject.toLowerCase())) continue;
    if (personVoice(facts, mention.text)) continue;
    const count = match?.[2]?.toLowerCase();
    const years = count === undefined ? NaN : (NUMBER_WORDS[count] ?? Number(count));
    if (!(years > 0 && years < 200) || (best && best.years >= years)) continue;
    const fact = `in business for ${match![0].match(/(?:over|more than|almost|nearly)\s+/i)?.[0] ?? ""}${plural(years, "year")} (in its own words)`;
    best = { years, fact, evidence: { url: mention.url, text: mention.text, quoted: true } };
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
