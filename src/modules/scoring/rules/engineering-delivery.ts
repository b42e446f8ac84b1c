import type { PageCategory } from "../../crawl/page-priority.js";
import { lessIsBetter, moreIsBetter } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import { ownOpenSource } from "../site-profile.js";
import type { Mention, SiteFacts } from "../site-facts.js";
import { ownCodeHostLinks, ownOutbound } from "./code-hosts.js";
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

const CHANGELOG_LINK =
  /\/(?:changelog|change-log|release-notes|releases|whats-new|product-updates)(?:[/?#]|$)|^https?:\/\/changelog\./i;

export function deliveryVelocity(facts: SiteFacts) {
  const assessor = new Assessor();
  const changelog = facts.pagesIn("changelog");
  const [link] = facts.linksMatching(CHANGELOG_LINK);

  if (changelog.length === 0) {
    // A link proves a changelog exists, but its cadence could not be read.
    assessor.signal(
      1,
      link ? 55 : undefined,
      link ? "a changelog is linked but was not crawled" : "no changelog or release notes found",
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
  if (age > 365) {
    assessor.penalty(1, `newest changelog entry is over a year old (${newest})`, [
      { url, text: `newest changelog entry ${newest}` },
    ]);
  }

  return assessor.done(
    age > 90
      ? "Ship and log something now: the changelog has gone quiet."
      : "Keep a weekly cadence of dated changelog entries.",
  );
}

// ---------------------------------------------------------------- architecture_systems

// Writing about the company's own system: "how we scaled", "our architecture", "under the hood". A product's feature
// ("write business logic in microservices") or a support page's "questions about the architecture" is not it.
const ENGINEERING =
  /\b(?:engineering blog|how we (?:built|scaled|migrated|rebuilt|designed|run|ship)|our (?:\w+ )?(?:architecture|infrastructure|stack|platform is built)|under the hood|(?:we|our) [^.]{0,40}\b(?:distributed systems?|sharding|event[- ]driven|microservices|zero[- ]downtime|(?:scalable|resilient|decentralized) architecture)|(?:designed|built) (?:for|with) (?:high availability|scale|scalability))\b/i;
const ENGINEERING_LINK = /\/(?:engineering|eng|tech)(?:-blog)?(?:\/|$)|^https?:\/\/(?:engineering|eng|tech)\./i;
const SCALE =
  /\bmulti[- ]region\b|\b\d+\+? (?:regions|data ?cent(?:er|re)s|availability zones|edge locations|points of presence|pops)\b|\b(?:regional failover|deploy(?:ed)? (?:in|to) (?:any|multiple) regions?|availability zones?|auto-?scal\w*|horizontal(?:ly)? scal\w*|global (?:edge )?network|edge network|petabytes?|billions? of (?:events|requests|rows|records))\b/i;
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

  const scale = facts.mentions(SCALE, { limit: 5 });
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
// Practices the company runs: "backups are created every day", not "forget about backups" or "deleted from backup systems".
const PRACTICES =
  /\b(?:disaster recovery (?:plan|site|tests?|procedures?)|business continuity (?:plan|tests?)|(?:automatic|automated|daily|hourly|nightly|regular|encrypted|off-?site|incremental) backups|backups (?:are|is) (?:created|taken|made|run|kept|stored|performed|encrypted)|backed up (?:daily|hourly|every|continuously)|point[- ]in[- ]time recovery|(?:automatic|automated) failover|failover (?:to|between|across)|redundan(?:t|cy) (?:across|in|between)|\brto\b|\brpo\b|chaos engineering|24\/7 monitoring|monitored 24\/7|(?:designed|built) for high availability)\b/i;

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

  const [figure] = facts.mentions(UPTIME_FIGURE, { limit: 1 });
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
const GUIDES =
  /\b(?:guides?|tutorials?|quick ?start|getting started|how[- ]to|walkthrough|step[- ]by[- ]step|cookbook|recipes?)\b/i;
const GUIDE_LINK = /\/(?:guides?|tutorials?|quick-?start|getting-started|how-to|cookbook|recipes)(?:[/?#]|$)/i;
const DOC_TOOLS: ReadonlyArray<readonly [string, RegExp]> = [
  ["search", /\bsearch (?:the )?(?:docs|documentation)\b|\bsearch\.{3}|\bctrl\s?\+?\s?k\b|⌘\s?k\b/i],
  ["versioning", /\b(?:api version|versions? \d|v\d+(?:\.\d+)*)\b/i],
  ["feedback", /\b(?:was this (?:page )?helpful|edit (?:this page )?on github|suggest (?:an )?edits?)\b/i],
];
// Code, not prose: "import your data" is a sentence, "import { Client } from" and "import Foundation" at a line's start are code.
const CODE =
  /\bcurl\s+(?:-\w|https?:)|\b(?:npm|yarn|pnpm) (?:install|add|i)\b|\bpip install\b|\bimport \{|\bimport [\w*]+(?: as \w+)? from ['"]|^import [A-Z]\w*;?$|\bconst \w+ = |\brequire\(['"]|\bfrom [\w.]+ import\b|^#import\b/im;

export function documentationQuality(facts: SiteFacts) {
  const assessor = new Assessor();

  const docs = facts.pagesIn("docs", "api_reference");
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

  const reference = facts.pagesIn("api_reference");
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

  const guides = facts.pagesMentioning(GUIDES, DEV_PAGES) + facts.linksMatching(GUIDE_LINK).length;
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
    ...facts
      .linksMatching(GUIDE_LINK)
      .map((link) => ({ url: link.url, text: `guide linked: ${link.text || link.url}` })),
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

  const code = facts.mentions(CODE, { ...DEV_PAGES, limit: 8 });
  // Two code samples is the least a docs site shows; eight is example-rich.
  counted(
    assessor,
    0.75,
    code.length,
    [2, 8],
    `${plural(code.length, "code sample")} in the docs`,
    "no code samples in the docs",
    code
      .slice(0, 1)
      .map((mention) => ({ url: mention.url, text: `${plural(code.length, "code sample")} in the docs` })),
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
