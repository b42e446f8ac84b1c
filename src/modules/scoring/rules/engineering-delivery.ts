import type { ExtractedPage } from "../../crawl/crawl.types.js";
import type { PageCategory } from "../../crawl/page-priority.js";
import { lessIsBetter, moreIsBetter } from "../curves.js";
import type { DimensionAssessment, Evidence } from "../scoring.types.js";
import { ownOpenSource } from "../site-profile.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { brandKeys, nameKey, onOwnDomain, ownCodeHostLinks, ownOutbound } from "./code-hosts.js";
import { apiReferenceLinks, REFERENCE_HEADING, referencePages } from "./product-experience.js";
import { Assessor, counted, plural, type RuleSet } from "./rule.js";

/**
 * Engineering & Delivery: what the outside can see of how the product is built
 * and run — how often and how recently it ships, what its architecture is known
 * for, how openly it is operated, and how well it is documented. Recency is
 * always judged against the crawl time (facts.now), never the wall clock.
 */

const DEV_PAGES = { in: ["docs", "api_reference"] } as const;

type Kinds = ReadonlyArray<readonly [string, RegExp]>;
const combined = new WeakMap<Kinds, RegExp>();

/** The first sentence naming each kind, in `kinds` order: one pass with all kinds as one alternation, then sorted locally. */
function kindsFound(
  facts: SiteFacts,
  kinds: Kinds,
  options: { in?: readonly PageCategory[] } = {},
): Map<string, Mention> {
  let any = combined.get(kinds);
  if (!any) combined.set(kinds, (any = new RegExp(kinds.map(([, pattern]) => `(?:${pattern.source})`).join("|"), "i")));
  const sentences = facts.mentions(any, { ...options, limit: 200 });
  const found = new Map<string, Mention>();
  for (const [kind, pattern] of kinds) {
    const mention = sentences.find((sentence) => pattern.test(sentence.text));
    if (mention) found.set(kind, mention);
  }
  return found;
}

// ---------------------------------------------------------------- delivery_velocity

/** A changelog or the list of releases; a link to one tagged release or its download (".../releases/tag/v1.01") is not a history. */
const CHANGELOG_LINK =
  /\/(?:changelog|change-log|release-notes|releases(?!\/(?:tag|download)\/)|whats-new|product-updates)(?:[/?#]|$)|^https?:\/\/changelog\./i;

/**
 * A post titled as a release: a "v" version ("genezio v0.7", "Acme v2.0.1 Shipped"), the site's own name
 * with a version ("Acme 4.0 is Here"), or the words ("New Release", "1.3 Released", "Release Notes",
 * "What's new"). Another product's version ("Upgrading to .NET 5.0") or a verb ("X and Y Release a
 * Joint Report") is not the site's release.
 */
const RELEASE_WORDS =
  /\b(?:release notes?|new releases?|released|what'?s new|product updates?|now available|(?:is|are) now live)\b|\bv\d+\.\d+|^announcing (?:the |a |our )?(?:new )?(?:[\w.-]+ ){0,4}(?:support|feature|integration|api|sdk|plugin|extension|app)\b/i;
const VERSIONED = /(?<![\w.-])([\w.-]+) v?\d+\.\d+(?:\.\d+)?\b/gi;

/** A launch in a newsroom's words: "Introducing FIM 4.0 …", "Qualys Unveils TotalCloud 2.0" (the company its subject). */
const LAUNCH_TITLE = /^(?:introducing|unveiling)\s+\S|^([\w.-]+)\s+(?:unveils|launches|introduces)\b/i;

function releaseTitled(title: string, brands: readonly string[]): boolean {
  if (RELEASE_WORDS.test(title)) return true;
  const launch = LAUNCH_TITLE.exec(title.trim());
  if (launch && (launch[1] === undefined || brands.includes(nameKey(launch[1])))) return true;
  for (const [, name] of title.matchAll(VERSIONED)) {
    const named = nameKey(name!);
    if (brands.some((brand) => named === brand || named.startsWith(brand))) return true;
  }
  return false;
}

/** A page with nothing to read (a script-rendered list the crawl saw empty): found, but its entries were not read. */
function readable(page: ExtractedPage): boolean {
  return (
    page.headings.length > 0 ||
    page.dates.length > 0 ||
    /\b[a-z]{2,}\W+[a-z]{2,}\W+[a-z]{2,}/i.test(page.text.slice(0, 2_000))
  );
}

/**
 * Release announcements among the posts, newest first: a post (crawled or linked, its date in its
 * address) or a crawled blog post showing one date, either titled as a release. They are the
 * changelog of a site that keeps none.
 */
function releasePosts(facts: SiteFacts): Array<{ url: string; date: string; title: string }> {
  const today = facts.now.toISOString().slice(0, 10);
  const brands = brandKeys(facts);
  const releaseTitle = (page: ExtractedPage | undefined) => {
    if (!page) return undefined;
    const h1 = page.headings.find((heading) => heading.level === 1)?.text;
    return [page.title, h1].find((title): title is string => title !== undefined && releaseTitled(title, brands));
  };
  const crawled = new Map(facts.pages.map((page) => [page.url, page]));
  const found = new Map<string, { url: string; date: string; title: string }>();
  const posts = facts.postsIn("blog", "other");
  if (posts.length > 0) {
    const linked = new Map<string, string>();
    const urls = new Set(posts.map((post) => post.url));
    // Every title RELEASE_WORDS or a version can name: "Announcing Google Cloud Storage Support" too (framework 2.11.0).
    for (const link of facts.linksMatching(
      /\d\.\d|\brelease|\bwhat'?s new\b|\bproduct updates?\b|\bnow (?:available|live)\b|^announcing\b|^introducing\b|\b(?:unveils|launches|introduces)\b/i,
    )) {
      if (urls.has(link.url) && !linked.has(link.url) && releaseTitled(link.text, brands))
        linked.set(link.url, link.text);
    }
    for (const post of posts) {
      const title = releaseTitle(crawled.get(post.url)) ?? linked.get(post.url);
      if (title !== undefined && post.date <= today) found.set(post.url, { ...post, title });
    }
  }
  // A page showing several dates is a list of posts; one date is the post's own.
  for (const page of facts.pagesIn("blog")) {
    const [date] = page.dates;
    if (found.has(page.url) || page.dates.length !== 1 || date === undefined || date > today) continue;
    const title = releaseTitle(page);
    if (title !== undefined) found.set(page.url, { url: page.url, date, title });
  }
  return [...found.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

export function deliveryVelocity(facts: SiteFacts) {
  const assessor = new Assessor();
  // A changelog page the crawl saw empty is known to exist, not read: like a link to it.
  const found = facts.pagesIn("changelog");
  const changelog = found.filter(readable);
  const [link] = [
    ...found.filter((page) => !readable(page)).map((page) => ({ url: page.url, text: page.title || page.url })),
    ...facts.linksMatching(CHANGELOG_LINK),
  ];

  if (changelog.length === 0) {
    const releases = releasePosts(facts);
    if (releases.length > 0) return releaseCadence(facts, assessor, releases);
    const launches = roadmapLaunches(facts);
    if (launches.length >= 2) return releaseCadence(facts, assessor, launches, ROADMAP_WORDS);
    // A link proves a changelog exists, but its cadence could not be read.
    assessor.signal(
      1,
      link ? 55 : undefined,
      link ? "a changelog is linked but its entries were not read" : "no changelog or release notes found",
      link ? [{ url: link.url, text: `changelog link: ${link.text}` }] : [],
    );
    assessor.signal(2, undefined, "no dated changelog entries to measure cadence");
    assessor.signal(2, undefined, "no dated changelog entries to measure recency");
    return assessor.done("Publish a dated changelog or release notes, and ship an entry every week or two.");
  }

  const dates = facts.dates({ in: ["changelog"] }); // newest first, none after the crawl
  const [newest] = dates;
  // Quote the changelog page that carries the newest entry.
  const url = changelog.find((page) => newest !== undefined && page.dates.includes(newest))?.url ?? changelog[0]!.url;
  const title = changelog.find((page) => page.url === url)?.title;
  assessor.signal(1, 80, "a changelog or release notes page", [{ url, text: `changelog: ${title || url}` }]);

  if (newest === undefined) {
    assessor.signal(2, 15, "changelog shows no dated entries", [{ url, text: "changelog without dates" }]);
    assessor.signal(2, undefined, "no dated changelog entries to measure recency");
    return assessor.done("Date every changelog entry so customers (and this score) can see the cadence.");
  }

  const recent = dates.filter((date) => facts.daysSince(date) <= 90).length;
  // Four entries a quarter (about every three weeks) is a typical cadence; twelve (weekly) is a fast shipper.
  assessor.signal(
    2,
    moreIsBetter(recent, 4, 12),
    recent > 0
      ? `changelog: ${plural(recent, "entry", "entries")} in the last 90 days`
      : "changelog: no entries in the last 90 days",
    [{ url, text: `changelog: ${plural(recent, "entry", "entries")} in the last 90 days` }],
  );

  const age = facts.daysSince(newest);
  // A newest entry a week old is what weekly shippers show (90); a month and a half is middling (50).
  assessor.signal(2, lessIsBetter(age, 7, 45), `newest changelog entry ${plural(age, "day")} old (${newest})`, [
    { url, text: `newest changelog entry ${newest}, ${plural(age, "day")} before the crawl` },
  ]);
  const months = history(assessor, facts, "changelog", url, dates);
  if (age > 365) {
    assessor.penalty(1, `newest changelog entry is over a year old (${newest})`, [
      { url, text: `newest changelog entry ${newest}` },
    ]);
  }

  return weighedByRecord(
    months,
    recent,
    assessor.done(
      age > 90
        ? "Ship and log something now: the changelog has gone quiet."
        : "Keep a weekly cadence of dated changelog entries.",
    ),
  );
}

/**
 * How long the site has kept shipping in the open: the span from its oldest dated entry to its newest, in months. The
 * cadence of the last quarter is what a launch week shows too; years of dated entries are what make delivery
 * evidence costly to show (framework/dimensions.ts). A year is typical of a product past launch (50), three
 * years of an established one (90).
 */
function history(assessor: Assessor, facts: SiteFacts, kind: string, url: string, dates: readonly string[]): number {
  const sorted = [...dates].sort();
  const [oldest] = sorted;
  const newest = sorted.at(-1);
  if (oldest === undefined || newest === undefined) return 0;
  const months = Math.round((facts.daysSince(oldest) - facts.daysSince(newest)) / 30.44);
  assessor.signal(
    2,
    moreIsBetter(months, 12, 36),
    `${kind}: ${plural(months, "month")} of dated entries (${oldest} to ${newest})`,
    [{ url, text: `${kind}: dated entries from ${oldest} to ${newest}` }],
  );
  return months;
}

/** Below a year of dated entries, delivery evidence is a launch's cadence, not a record (framework 2.9.0). */
export const DELIVERY_RECORD_MONTHS = 12;

/**
 * Framework 2.9.0: delivery weighs as costly evidence because years of dated entries take years to show. A reading
 * resting on under a year of them (a fresh product's first releases, a changelog begun last spring) is what a launch
 * shows too, and weighs like documentation and community.
 */
function weighedByRecord(months: number, recent: number, done: DimensionAssessment): DimensionAssessment {
  // Only a burst earns the lighter weight: a short record with nothing in the last quarter (one release post, a year old)
  // reads low, and at the lighter weight that low reading would lift the total above a site showing nothing at all.
  // It keeps the costly weight an absent record has, so a little more evidence never weighs less (framework 2.10.0).
  if (months >= DELIVERY_RECORD_MONTHS || recent === 0) return done;
  const why = `Its dated entries span ${plural(months, "month")}, under the year that makes a delivery record costly to show, so this dimension weighs in the total like documentation and community.`;
  return { ...done, weighsAs: { cost: "moderate", why } };
}

/** How a cadence reading names what it read: release posts on the blog, or launches marked on a dated roadmap. */
interface CadenceWords {
  /** The first signal's fact, given the count. */
  readonly found: (count: number) => string;
  /** "release posts": the kind, for its cadence and history. */
  readonly kind: string;
  /** "release post": one of them. */
  readonly item: string;
}
const POST_WORDS: CadenceWords = {
  found: (count) => `release announcements among the posts (${plural(count, "dated post")})`,
  kind: "release posts",
  item: "release post",
};
const ROADMAP_WORDS: CadenceWords = {
  found: (count) => `launches marked on a dated roadmap (${plural(count, "milestone")})`,
  kind: "roadmap launches",
  item: "roadmap launch",
};

/** Delivery read from release posts (a site without a changelog page that announces its releases on the blog), or from a roadmap's dated launches. */
function releaseCadence(
  facts: SiteFacts,
  assessor: Assessor,
  releases: ReadonlyArray<{ url: string; date: string; title: string }>,
  words: CadenceWords = POST_WORDS,
) {
  const [newest] = releases as [{ url: string; date: string; title: string }];
  // Release posts are a changelog kept less often and less completely than a changelog page (80).
  assessor.signal(1, 70, words.found(releases.length), [{ url: newest.url, text: `${words.item}: ${newest.title}` }]);
  const recent = releases.filter((release) => facts.daysSince(release.date) <= 90).length;
  assessor.signal(
    2,
    moreIsBetter(recent, 4, 12),
    recent > 0
      ? `${words.kind}: ${plural(recent, "release", "releases")} in the last 90 days`
      : `${words.kind}: no releases in the last 90 days`,
    [{ url: newest.url, text: `${words.kind}: ${plural(recent, "release", "releases")} in the last 90 days` }],
  );
  const age = facts.daysSince(newest.date);
  assessor.signal(2, lessIsBetter(age, 7, 45), `newest ${words.item} ${plural(age, "day")} old (${newest.date})`, [
    { url: newest.url, text: `newest ${words.item} ${newest.date}, ${plural(age, "day")} before the crawl` },
  ]);
  const months = history(
    assessor,
    facts,
    words.kind,
    newest.url,
    releases.map((release) => release.date),
  );
  if (age > 365) {
    assessor.penalty(1, `newest ${words.item} is over a year old (${newest.date})`, [
      { url: newest.url, text: `newest ${words.item} ${newest.date}` },
    ]);
  }
  return weighedByRecord(
    months,
    recent,
    assessor.done(
      age > 90
        ? `Ship and announce something now, and keep a dated changelog beside the ${words.kind}.`
        : `Keep a dated changelog beside the ${words.kind}, with an entry for every release.`,
    ),
  );
}

/** A roadmap's period on a line of its own: "2019-07", "2020-Q1", "Q3 2021", "2020 Q2". */
const ROADMAP_PERIOD =
  /^((?:19|20)\d\d)[-./](0[1-9]|1[0-2])$|^((?:19|20)\d\d)[- ]?Q([1-4])$|^Q([1-4])[- ]((?:19|20)\d\d)$/;
/** A milestone's status on its own line, saying it shipped. */
const ROADMAP_DONE = /^(?:launched|released|shipped|live|delivered|completed|done)\W*$/i;

/**
 * Launches a roadmap marks by period (framework 2.10.0): "2019-07" over "Launched", as darwinia's home page lists its
 * testnets. A period counts when the line after it says the milestone shipped; its date is the period's first day, and
 * periods after the crawl are plans, not launches.
 */
function roadmapLaunches(facts: SiteFacts): Array<{ url: string; date: string; title: string }> {
  const today = facts.now.toISOString().slice(0, 10);
  const found = new Map<string, { url: string; date: string; title: string }>();
  for (const page of [facts.home, ...facts.pagesIn("other", "about", "blog")]) {
    const lines = page.text
      .slice(0, SCORED_TEXT_PER_PAGE)
      .split("\n")
      .map((line) => line.trim());
    lines.forEach((line, index) => {
      const period = ROADMAP_PERIOD.exec(line);
      if (!period || !ROADMAP_DONE.test(lines[index + 1] ?? "")) return;
      const year = period[1] ?? period[3] ?? period[6]!;
      const month = period[2] ?? String((Number(period[4] ?? period[5]) - 1) * 3 + 1).padStart(2, "0");
      const date = `${year}-${month}-01`;
      if (date <= today && !found.has(date))
        found.set(date, { url: page.url, date, title: `${line} ${lines[index + 1]}` });
    });
  }
  return [...found.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

// ---------------------------------------------------------------- architecture_systems

// Writing about the company's own system: "how we scaled", "our architecture", "under the hood". A product's feature
// ("write business logic in microservices") or a support page's "questions about the architecture" is not it.
// "Our infrastructure provider" names a vendor, not the system.
// Framework 2.11.0: "Designed for high availability, scalability …" in a product's pitch is marketing, not writing about
// the system (it must be said as "we"/"our"); "our digital infrastructure as a commons" and "uses Amazon EC2 … for our
// server infrastructure" (a vendor list, read as the stack below) are not write-ups; a tech blog, a technical deep
// dive and a system's inner workings are.
const ENGINEERING =
  /\b(?:engineering blog|(?<!\b(?:personal|your|own) )tech(?:nical)? blog|technical deep[- ]dive|inner workings|how we (?:built|scaled|migrated|rebuilt|designed|run|ship)|(?<!\bfor )our (?:(?!digital\b|server\b)\w+ )?(?:architecture|infrastructure|stack|platform is built)(?! (?:providers?|partners?|vendors?|suppliers?|as a commons)\b)|under the hood|(?:we|our) [^.]{0,40}\b(?:distributed systems?|sharding|event[- ]driven|microservices|zero[- ]downtime|(?:scalable|resilient|decentralized) architecture|network topology|\d[- ]tier (?:architecture|network|topology))|(?:we|our \w+) (?:\w+ )?(?:designed|built) (?:it |them )?(?:for|with) (?:high availability|scale|scalability))\b/i;
const ENGINEERING_LINK = /\/(?:engineering|eng|tech)(?:-blog)?(?:\/|$)|^https?:\/\/(?:engineering|eng|tech)\./i;
const SCALE =
  /\bmulti[- ]region\b|\b\d+\+? (?:regions|data ?cent(?:er|re)s|availability zones|edge locations|points of presence|pops)\b|\b(?:regional failover|deploy(?:ed)? (?:in|to) (?:any|multiple) regions?|availability zones?|auto-?scal\w*|horizontal(?:ly)? scal\w*|global (?:edge )?network|edge network|petabytes?|terabytes? of|billions? of (?:events|requests|rows|records)|scalable architecture)\b/i;
const CUSTOMERS_SCALE = /\b(?:auto-?scal\w*|scal(?:e|es|ing)) (?:up |out )?(?:your|their)\b/i;
const PERFORMANCE =
  /\b\d[\d,.]{0,15}\s?(?:ms|milliseconds|µs|μs|microseconds)\b|\bp(?:50|90|95|99)\b|\b\d[\d,.]{0,15}\s?(?:k|m|b|million|billion)?\+?\s?(?:requests|events|queries|messages|transactions|calls|writes|reads|rows)\s?(?:per|\/|a|each)\s?(?:second|sec|s|minute|min|day)\b|\b(?:rps|qps|tps|sub-?millisecond)\b/i;
const NOT_PRICING: readonly PageCategory[] = [
  "docs",
  "api_reference",
  "changelog",
  "security",
  "privacy",
  "careers",
  "customers",
  "integrations",
  "status",
  "blog",
  "about",
  "other",
];
const OPEN_SOURCE = /\bopen[- ]sourced?\b|\b(?:apache(?: license)? 2\.0|mit licen[sc]e|agpl|source[- ]available)\b/i;
const STACK: ReadonlyArray<readonly [string, RegExp]> = [
  ["Kubernetes", /\b(?:kubernetes|k8s)\b/i],
  ["Docker", /\bdocker\b/i],
  ["Terraform", /\bterraform\b/i],
  ["Kafka", /\bkafka\b/i],
  ["PostgreSQL", /\bpostgres(?:ql)?\b/i],
  ["Redis", /\bredis\b/i],
  ["ClickHouse", /\bclickhouse\b/i],
  ["Elasticsearch", /\belasticsearch\b/i],
  ["Rust", /\brust\b/i],
  ["Go", /\bgolang\b/i],
  ["gRPC", /\bgrpc\b/i],
  ["WebAssembly", /\b(?:webassembly|wasm)\b/i],
  // Where it runs, said as such ("hosted on Google Cloud Platform", "backed by Amazon AWS", "runs on the cutting-edge
  // Heroku computing service", "builds upon the Twilio communication framework": 2.10.0; "Acme uses Amazon EC2,
  // Rackspace and Azure … for our server infrastructure": framework 2.9.0); a list of providers alone, or a product
  // that deploys to them ("protects runtimes deployed on AWS"), says nothing of the host.
  ...(
    [
      ["AWS", "Amazon (?:Web Services|AWS|EC2|Lambda|S3)|AWS"],
      ["Google Cloud", "Google Cloud(?: Platform)?|GCP"],
      ["Azure", "(?:Microsoft )?Azure"],
      ["Cloudflare", "Cloudflare"],
      ["DigitalOcean", "DigitalOcean"],
      ["Heroku", "Heroku"],
      ["Twilio", "Twilio"],
    ] as const
  ).map(
    ([name, provider]) =>
      [
        name,
        new RegExp(
          `\\b(?:hosted|runs?|running|(?:is|are|been) deployed|backed|built|builds?) (?:up)?(?:on|by|in) (?:the )?(?:(?!(?:your|their|any|every|customers?|clients?)\\b)[\\w-]+ ){0,2}?(?:${provider})\\b|\\buses? [^.]{0,80}?\\b(?:${provider})\\b[^.]{0,120}? for (?:our|its) (?:own )?(?:\\w+ )?infrastructure\\b`,
          "i",
        ),
      ] as const,
  ),
];

export function architectureSystems(facts: SiteFacts) {
  const assessor = new Assessor();

  const writing =
    facts.pagesMentioning(ENGINEERING, { in: ["blog", "docs", "about", "other"] }) +
    facts.linksMatching(ENGINEERING_LINK).length;
  // One architecture write-up is already above the norm; four is an engineering blog with a habit.
  counted(
    assessor,
    2,
    writing,
    [1, 4],
    `engineering or architecture writing (${plural(writing, "page or link", "pages or links")})`,
    "no engineering blog or architecture write-ups",
    facts.mentions(ENGINEERING, { limit: 2 }),
  );

  // How the company's own system runs, not what it does for the customer's ("deploy and auto-scale your application").
  // A question ("If HubSpot operate with 2 availability zones, then what about DepositFix?") claims nothing.
  const scale = facts
    .mentions(SCALE, { limit: 5 })
    .filter((mention) => !CUSTOMERS_SCALE.test(mention.text) && !/\?\s*$|^if\b/i.test(mention.text.trim()));
  // One concrete scale claim (multi-region, autoscaling) is typical of a scaled product; three is a designed-for-scale story.
  counted(
    assessor,
    1.5,
    scale.length,
    [1, 3],
    "regions or scalability described",
    "no regions or scalability described",
    scale.slice(0, 2),
  );

  // A plan's quota ("3,000 events per month" on the pricing page) is not a throughput figure.
  const performance = facts.mentions(PERFORMANCE, { in: NOT_PRICING, limit: 5 });
  // Published latency or throughput figures are rare: one is good, four is a performance culture.
  counted(
    assessor,
    1.5,
    performance.length,
    [1, 4],
    `${plural(performance.length, "latency or throughput figure")}`,
    "no latency or throughput figures",
    performance.slice(0, 2),
  );

  const own = new Set(ownCodeHostLinks(facts));
  const repos = facts.outbound("github").filter((repo) => own.has(repo.url));
  // The product's own code opened, not "open source intelligence" or another project the page mentions.
  const oss = facts
    .mentions(OPEN_SOURCE, { limit: 8 })
    .filter((mention) => ownOpenSource(mention.text))
    .slice(0, 1);
  const openness = repos.length + oss.length;
  // A GitHub link or an open-source claim is a start; five repositories or more is an open-source practice.
  const repoEvidence = repos.slice(0, 1).map((repo) => ({ url: repo.foundOn, text: `links to ${repo.url}` }));
  counted(
    assessor,
    1,
    openness,
    [1, 5],
    `open-source presence (${plural(repos.length, "GitHub link")}${oss.length > 0 ? ", open-source components" : ""})`,
    "no open-source components or GitHub presence",
    [...repoEvidence, ...oss],
  );

  const stack = kindsFound(facts, STACK);
  // Naming two pieces of the stack is typical of an engineering-led site; six is an open architecture.
  counted(
    assessor,
    1,
    stack.size,
    [2, 6],
    `stack named: ${[...stack.keys()].join(", ")}`,
    "no infrastructure or stack named",
    [...stack.values()].slice(0, 1),
  );

  return assessor.done(
    writing === 0
      ? "Write about the architecture: how the system is built, scaled and kept fast, with figures."
      : "Publish latency and throughput figures and the regions the product runs in.",
  );
}

// ---------------------------------------------------------------- reliability_operations

const UPTIME_FIGURE =
  /\b(9\d(?:\.\d+)?)\s?%\s?(?:uptime|availability|sla|service availability)|\b(?:uptime|availability|sla)\b[^.]{0,40}?\b(9\d(?:\.\d+)?)\s?%/i;
// An uptime SLA, not a support-response one ("first reply within 4 hours" belongs to customer success).
const SLA =
  /\b(?:(?:uptime|availability) (?:sla|guarantee|commitment)|sla (?:of|for) (?:uptime|availability)|guaranteed (?:uptime|availability)|service level agreement)\b/i;
const INCIDENTS =
  /\b(?:post-?mortems?|incident (?:reports?|history|reviews?|updates?)|root cause analys[ie]s|rca|past incidents|resolved incidents?|on-?call (?:engineers?|rotation|team))\b/i;
// Practices the company runs: "backups are created every day", not "forget about backups" or "deleted from backup systems";
// "designed for high availability" is a design claim (architecture's scalability), not a practice run.
const PRACTICES =
  /\b(?:disaster recovery (?:plan|site|tests?|procedures?)|business continuity (?:plan|tests?)|(?:automatic|automated|daily|hourly|nightly|regular|encrypted|off-?site) backups|backups (?:are|is) (?:\w+ly )?(?:created|taken|made|run|kept|stored|performed|encrypted)|backed up (?:daily|hourly|every|continuously)|point[- ]in[- ]time recovery|(?:automatic|automated) failover|failover (?:to|between|across)|redundan(?:t|cy) (?:across|in|between)|\brto\b|\brpo\b|chaos engineering|24\/7 monitoring|monitored 24\/7)\b/i;

export function reliabilityOperations(facts: SiteFacts) {
  const assessor = new Assessor();

  const [outbound] = ownOutbound(facts, "status_page");
  const [statusPage] = facts.pagesIn("status");
  const [statusLink] = facts.linksMatching(/\/status\/?$/i);
  const status: Evidence | undefined = outbound
    ? { url: outbound.foundOn, text: `links to status page ${outbound.url}` }
    : statusPage
      ? { url: statusPage.url, text: `status page: ${statusPage.title || statusPage.url}` }
      : statusLink
        ? { url: statusLink.url, text: `status page linked: ${statusLink.text}` }
        : undefined;
  assessor.signal(
    2,
    status ? 85 : undefined,
    status ? "a public status page" : "no public status page",
    status ? [status] : [],
  );

  // "Our providers average 99.98% uptime" is the hosting's figure, not the product's.
  const [figure] = facts
    .mentions(UPTIME_FIGURE, { limit: 5 })
    .filter((mention) => !/\b(?:providers?|vendors?|suppliers?|partners?|carriers?)\b/i.test(mention.text));
  const [sla] = facts.mentions(SLA, { limit: 1 });
  const match = figure && UPTIME_FIGURE.exec(figure.text);
  const percent = match ? Number(match[1] ?? match[2]) : undefined;
  // Downtime allowed: 0.1% (99.9) is the common SLA (75); 0.01% (99.99) is top tier (95).
  const uptimeScore =
    percent !== undefined ? 50 + 0.5 * lessIsBetter(100 - percent, 0.01, 0.1) : figure || sla ? 65 : undefined;
  assessor.signal(
    1.5,
    uptimeScore,
    percent !== undefined
      ? `uptime stated: ${percent}%`
      : figure || sla
        ? "an SLA without a stated uptime figure"
        : "no uptime SLA or figure",
    [figure ?? sla].filter((item): item is Mention => item !== undefined),
  );

  const incidents = facts.mentions(INCIDENTS, { limit: 8 });
  const statusDates = facts.dates({ in: ["status"] });
  const history = incidents.length + statusDates.length;
  // Two incident write-ups or dated incidents is an open operator; eight is a full public history.
  const dated =
    statusPage && statusDates.length > 0
      ? [{ url: statusPage.url, text: `status page lists ${plural(statusDates.length, "dated incident")}` }]
      : [];
  counted(
    assessor,
    1.5,
    history,
    [2, 8],
    `incident history (${plural(history, "incident report or dated incident", "incident reports or dated incidents")})`,
    "no incident history or post-mortems",
    [...incidents.slice(0, 2), ...dated],
  );

  const practices = facts.mentions(PRACTICES, { limit: 5 });
  // One stated practice (backups, failover) is common; three is a described operating model.
  counted(
    assessor,
    1,
    practices.length,
    [1, 3],
    "operational practices described (backups, failover, DR)",
    "no operational practices described",
    practices.slice(0, 2),
  );

  return assessor.done(
    status === undefined
      ? "Publish a public status page with incident history, and state an uptime SLA."
      : "State an uptime SLA with a figure and publish post-mortems for incidents.",
  );
}

// ---------------------------------------------------------------- documentation_quality

const DOCS_LINK = /\/(?:docs|documentation|developers?)(?:[/?#]|$)|^https?:\/\/(?:docs|developers?)\./i;
// A page that walks through numbered steps is a guide whatever it is called: "go through simple four steps" (2.11.0).
const GUIDES =
  /\b(?:guides?|tutorials?|quick ?start|getting started|how[- ]to|walkthrough|step[- ]by[- ]step|cookbook|recipes?|(?:simple|easy|few|following|these) (?:\w+ )?steps)\b/i;
const GUIDE_LINK = /\/(?:guides?|tutorials?|quick-?start|getting-started|how-to|cookbook|recipes)(?:[/?#]|$)/i;
const DOC_TOOLS: ReadonlyArray<readonly [string, RegExp]> = [
  ["search", /\bsearch (?:the )?(?:docs|documentation)\b|\bsearch\.{3}|\bctrl\s?\+?\s?k\b|⌘\s?k\b/i],
  // The docs' own versions, not the generator's ("Generated by jazzy v0.7.3", "Powered by … 2.1").
  [
    "versioning",
    /\bapi version\b|(?<!\b(?:generated|powered|built|made) (?:by|with)\b[^.\n]{0,40})\b(?:versions? \d|v\d+(?:\.\d+)*)\b/i,
  ],
  ["feedback", /\b(?:was this (?:page )?helpful|edit (?:this page )?on github|suggest (?:an )?edits?)\b/i],
];
// Code, not prose: "import your data" is a sentence, "import { Client } from" and "import Foundation" at a line's start are
// code; so are an install command, markup ("<el-button type=…>"), a declaration ("var menu = …", "function f(") and a line
// that is one method call ("Client.start()").
const CODE =
  /\bcurl\s+(?:-\w|https?:)|\b(?:npm|yarn|pnpm) (?:install|add|i)\b|\bpip install\b|\bbrew (?:install|tap)\b|\bimport \{|\bimport [\w*]+(?: as \w+)? from ['"]|^import [A-Z]\w*;?$|\bconst \w+ = |\brequire\(['"]|\bfrom [\w.]+ import\b|^#import\b|<\/?[a-z][a-z0-9]*-[a-z0-9-]*[\s/>]|<[a-z][a-z0-9]*\s+[\w:@.-]+=["']|^\s*(?:var|let)\s+[\w$]+\s*[=;,]|^\s*function\b\s*[\w$]*\s*\(|^[a-z_$][\w$]*(?:\.[a-z_$][\w$]*)+\([^\n]*\)[;\s]*$/im;
/** A PowerShell command on a line of its own ("Connect-MsolService", "Install-Module MSOnline"): case matters, so "Set-up" is prose. */
const CMDLET =
  /^\s*(?:(?:Install|Import|Set|Get|New|Add|Remove|Connect|Update|Enable|Disable|Invoke|Start|Stop)-[A-Z][a-z]+[A-Z]\w*|(?:Install|Import)-Module)\b/;
/** Code samples counted: past this many the docs are example-rich, and no page is read further. */
const CODE_SAMPLES_ENOUGH = 8;

/** Code samples on a page: runs of code lines in its text, each run one sample. */
function codeSamples(page: ExtractedPage, limit: number): number {
  let samples = 0;
  let inCode = false;
  for (const line of page.text.slice(0, SCORED_TEXT_PER_PAGE).split("\n")) {
    const code = CODE.test(line) || CMDLET.test(line);
    if (code && !inCode && ++samples >= limit) return samples;
    inCode = code;
  }
  return samples;
}

/**
 * Documentation pages: those under the docs (or API reference), and a page elsewhere that reads as
 * reference: a section naming a component's attributes, methods or events, with code ("/component/button").
 */
function docsPages(facts: SiteFacts): ExtractedPage[] {
  const reference = facts
    .pagesIn("other")
    .filter(
      (page) =>
        page !== facts.home &&
        page.headings.some((heading) => heading.level > 1 && REFERENCE_HEADING.test(heading.text.trim())) &&
        codeSamples(page, 1) > 0,
    );
  return [...facts.pagesIn("docs", "api_reference"), ...reference];
}

export function documentationQuality(facts: SiteFacts) {
  const assessor = new Assessor();

  const docs = docsPages(facts);
  const [docsLink] = facts.linksMatching(DOCS_LINK);
  const [docsHost] = ownOutbound(facts, "docs_host");
  // A crawl reads ~25 pages: three docs pages among them is typical, twelve means the docs are deep.
  assessor.signal(
    2,
    docs.length > 0 ? moreIsBetter(docs.length, 3, 12) : docsLink || docsHost ? 40 : undefined,
    docs.length > 0
      ? `${plural(docs.length, "documentation page")}`
      : docsLink || docsHost
        ? "documentation linked but not crawled"
        : "no documentation",
    docs.length > 0
      ? [
          {
            url: docs[0]!.url,
            text: `docs: ${plural(docs.length, "page")} crawled, e.g. ${docs[0]!.title || docs[0]!.url}`,
          },
        ]
      : docsLink
        ? [{ url: docsLink.url, text: `docs link: ${docsLink.text}` }]
        : docsHost
          ? [{ url: docsHost.foundOn, text: `docs hosted at ${docsHost.url}` }]
          : [],
  );

  const reference = referencePages(facts);
  const [referenceLink] = reference.length > 0 ? [] : apiReferenceLinks(facts);
  if (referenceLink) {
    // The site's own reference linked but not read (a PDF, an API host): it exists, its quality is unseen.
    assessor.signal(1.5, 55, "an API reference linked (not crawled)", [
      { url: referenceLink.url, text: `API reference link: ${referenceLink.text}` },
    ]);
  } else {
    // One API reference page is typical; four means the reference is broken down by resource.
    counted(
      assessor,
      1.5,
      reference.length,
      [1, 4],
      `API reference (${plural(reference.length, "page")})`,
      "no API reference",
      reference.slice(0, 1).map((page) => ({ url: page.url, text: `API reference: ${page.title || page.url}` })),
    );
  }

  // Another vendor's guide ("Create an Identity Provider in Okta" on developer.okta.com) is not the site's documentation.
  const brands = brandKeys(facts);
  const guideLinks = facts
    .linksMatching(GUIDE_LINK)
    .filter((link) => onOwnDomain(facts, link.url) !== undefined || ownCodeHostPath(link.url, brands));
  const guides = facts.pagesMentioning(GUIDES, DEV_PAGES) + guideLinks.length;
  // Two guides is a start; eight guides and tutorials covers the main jobs. The evidence names the guides (a page
  // titled as one, or a link to one), not a sentence that happens to say "how to".
  const guideEvidence: Evidence[] = [
    ...facts
      .pagesIn("docs", "api_reference")
      .filter(
        (page) =>
          GUIDES.test(page.title) || page.headings.some((heading) => heading.level === 1 && GUIDES.test(heading.text)),
      )
      .map((page) => ({ url: page.url, text: `guide: ${page.title || page.headings[0]?.text || page.url}` })),
    ...guideLinks.map((link) => ({ url: link.url, text: `guide linked: ${link.text || link.url}` })),
  ].slice(0, 2);
  counted(
    assessor,
    1.5,
    guides,
    [2, 8],
    `guides and tutorials (${plural(guides, "page or link", "pages or links")})`,
    "no guides, tutorials or quickstart",
    guideEvidence,
  );

  const tools = kindsFound(facts, DOC_TOOLS, DEV_PAGES);
  // One of search, versioning or page feedback is common; all three is a maintained docs product.
  counted(
    assessor,
    0.75,
    tools.size,
    [1, 3],
    `docs tooling: ${[...tools.keys()].join(", ")}`,
    "no docs search, versioning or feedback",
    [...tools.entries()].slice(0, 1).map(([name, mention]) => ({ url: mention.url, text: `docs tooling: ${name}` })),
  );

  // Read from the pages' text, not their quotable sentences: a code line is never quoted as a claim.
  let code = 0;
  let firstWithCode: string | undefined;
  for (const page of docs) {
    const samples = codeSamples(page, CODE_SAMPLES_ENOUGH - code);
    if (samples > 0) firstWithCode ??= page.url;
    code += samples;
    if (code >= CODE_SAMPLES_ENOUGH) break;
  }
  // Two code samples is the least a docs site shows; eight is example-rich.
  counted(
    assessor,
    0.75,
    code,
    [2, CODE_SAMPLES_ENOUGH],
    `${code >= CODE_SAMPLES_ENOUGH ? `${code} or more code samples` : plural(code, "code sample")} in the docs`,
    "no code samples in the docs",
    firstWithCode === undefined ? [] : [{ url: firstWithCode, text: `${plural(code, "code sample")} in the docs` }],
  );

  const [updated] = facts.dates(DEV_PAGES);
  if (updated === undefined) {
    assessor.signal(0.5, undefined, "no last-updated dates in the docs");
  } else {
    const age = facts.daysSince(updated);
    // Docs touched within a month are maintained (90); half a year without an update is middling (50).
    const where = docs.find((page) => page.dates.includes(updated))?.url ?? docs[0]?.url ?? facts.home.url;
    assessor.signal(0.5, lessIsBetter(age, 30, 180), `docs updated ${plural(age, "day")} before the crawl`, [
      { url: where, text: `newest docs date ${updated}` },
    ]);
  }

  return assessor.done(
    docs.length === 0
      ? "Publish public documentation: a getting-started guide, an API reference and code samples."
      : "Add guides and tutorials for the main jobs, with runnable code samples and search.",
  );
}

export const engineeringDeliveryRules = {
  delivery_velocity: deliveryVelocity,
  architecture_systems: architectureSystems,
  reliability_operations: reliabilityOperations,
  documentation_quality: documentationQuality,
} satisfies RuleSet;

/** A page in a repository of the site's own organisation on a code host ("github.com/Genez-io/genezio-examples/…"). */
function ownCodeHostPath(url: string, brands: readonly string[]): boolean {
  const match = /^https?:\/\/(?:www\.)?(?:github|gitlab)\.com\/([^/?#]+)/i.exec(url);
  const org = match?.[1]?.toLowerCase().replace(/[^a-z0-9]/g, "");
  return org !== undefined && org.length >= 3 && brands.some((brand) => org.includes(brand) || brand.includes(org));
}
