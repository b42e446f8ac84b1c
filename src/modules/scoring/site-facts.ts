import type { CrawlResult, ExtractedPage, FoundPrice, OutboundKind, OutboundLink } from "../crawl/crawl.types.js";
import { classifyPage, type PageCategory } from "../crawl/page-priority.js";
import { registrableDomain } from "../crawl/url.js";
import {
  LEGAL_PATH,
  pageQuotable,
  pathOf,
  sentenceQuotable,
  traitsOf,
  type SentenceTraits,
} from "./evidence-relevance.js";
import type { DimensionId } from "./scoring.types.js";
import { requiredLiterals, scanSource, WordIndex } from "./word-prefilter.js";

/**
 * What the rules read: the crawl, indexed once. Every answer is ordered (home
 * first, then crawl order; sentences in page order), so the same crawl always
 * yields the same evidence, to the character.
 */
export interface Mention {
  readonly url: string;
  /** The sentence it was found in, trimmed to at most 200 characters. */
  readonly text: string;
  /** A verbatim quote of the page (an ellipsis marks where it was cut), not an observed fact about it. */
  readonly quoted: true;
}

interface IndexedPage {
  readonly page: ExtractedPage;
  readonly category: PageCategory;
  /** Headings and text in one string: one regex pass tells whether a page can match at all. */
  readonly haystack: string;
  sentences?: readonly string[];
  /** Each sentence's traits for the evidence checks, filled as sentences are first tried. */
  traits?: Map<string, SentenceTraits>;
  /** The sentences, a line each: one multiline pass rules out a sentence-anchored pattern for the whole page. */
  joined?: string;
  /** The haystack's words and where each starts: rules out most patterns without a regex pass, and says where the rest can match. */
  words?: WordIndex;
  /** Whether a pattern matches the haystack, once per pattern. */
  matched?: Map<RegExp, boolean>;
}

const MAX_QUOTE = 200;
/**
 * Characters of each page's text the rules read. Product, pricing and trust pages
 * say what matters early; a long docs page or blog post is read up to here, so
 * scoring cost does not grow with page length.
 */
export const SCORED_TEXT_PER_PAGE = 8_000;
/**
 * A privacy policy says its retention and deletion terms past the first 8,000 characters (a third of the
 * way into a 30,000-character policy); only data privacy reads these pages, and a crawl has one or two.
 */
const SCORED_TEXT_PER_PRIVACY_PAGE = 40_000;
const scoredText = (page: ExtractedPage, category: PageCategory): string =>
  page.text.slice(0, category === "privacy" ? SCORED_TEXT_PER_PRIVACY_PAGE : SCORED_TEXT_PER_PAGE);
const DAY_MS = 86_400_000;

/** A section heading that opens a page's account of its own security ("Security Overview", "Data Security"). */
const SECURITY_SECTION =
  /^(?:(?:our |information |data |platform |product )?security(?: overview| practices| measures| policy| statement)?|how we (?:protect|secure) your (?:data|information))$/i;

/** The title of one legal document: a page so named is that document, and its "Security" heading is one of its clauses. */
const ONE_POLICY = /\b(?:privacy|cookies?|terms|conditions|disclaimer|imprint|impressum|eula|agreement)\b/i;

/**
 * The security section of a page that gathers a site's legal documents (`/legal` headed "Legal": a security
 * overview, the privacy policy, the terms), as a page of its own: the text from its heading to the next heading
 * of the same or a higher level, under the page's address (every quote stays a substring of the page). It must be
 * a document, with sections of its own or 150 words: a privacy policy's "Information Security" clause
 * ("we use reasonable safeguards") is not a security page, and a page titled as one policy is not read for one.
 */
function securitySection(page: ExtractedPage): ExtractedPage | undefined {
  if (!LEGAL_PATH.test(pathOf(page.url))) return undefined;
  const h1 = page.headings.find((heading) => heading.level === 1)?.text ?? page.title;
  if (ONE_POLICY.test(h1)) return undefined;
  const at = page.headings.findIndex((heading) => heading.level >= 2 && SECURITY_SECTION.test(heading.text.trim()));
  if (at === -1) return undefined;
  const heading = page.headings[at]!;
  const lines = page.text.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading.text.trim());
  if (start === -1) return undefined;
  const next = page.headings.slice(at + 1).find((other) => other.level <= heading.level);
  const end = next ? lines.findIndex((line, index) => index > start && line.trim() === next.text.trim()) : -1;
  const text = lines.slice(start, end === -1 ? undefined : end).join("\n");
  const headings = page.headings.slice(at, next ? page.headings.indexOf(next) : undefined);
  if (headings.length < 3 && text.split(/\s+/).length < 150) return undefined;
  return { ...page, title: heading.text.trim(), headings, text };
}

export class SiteFacts {
  readonly home: ExtractedPage;
  /** The crawl's start time: recency is judged against it, never the wall clock. */
  readonly now: Date;
  private readonly indexed: readonly IndexedPage[];
  /**
   * What is computed once per crawl and read by every rule. One object, shared by the views that
   * about() and securityPages() make (Object.create): a view assigning `this.x` would keep the answer
   * to itself, and 27 dimension views rebuilt the link index 27 times.
   */
  private readonly memo: {
    links?: ReadonlyArray<{ url: string; text: string }>;
    linkLines?: { urls: string; texts: string; urlWords: WordIndex; textWords: WordIndex };
    posts?: ReadonlyArray<{ url: string; date: string; category: PageCategory }>;
    front?: ExtractedPage;
  } = {};
  /** linksMatching's answers, once per pattern. */
  private readonly linkMatches = new Map<RegExp, ReadonlyArray<{ url: string; text: string }>>();

  constructor(readonly crawl: CrawlResult) {
    const [home] = crawl.pages;
    if (!home) throw new Error("a crawl always has its home page");
    this.home = home;
    this.now = new Date(crawl.crawledAt);
    const entry = (page: ExtractedPage, category: PageCategory): IndexedPage => ({
      page,
      category,
      haystack: `${page.headings.map((heading) => heading.text).join("\n")}\n${scoredText(page, category)}`,
    });
    this.indexed = crawl.pages.flatMap((page, index) => {
      const category =
        index === 0
          ? "other"
          : classifyPage(page.url, page.title, page.headings.find((heading) => heading.level === 1)?.text);
      // A legal page's "Security Overview" section is the site's security page, though it shares an address with
      // the terms and the privacy policy: it is read as one, and the rest of the page stays legal text.
      const section = index === 0 ? undefined : securitySection(page);
      return section ? [entry(page, category), entry(section, "security")] : [entry(page, category)];
    });
  }

  /**
   * The caller's free-text context as a one-page "site", so the same rules can read
   * it; the scorer marks whatever it yields as self-reported.
   */
  static fromContext(context: string, crawledAt: string): SiteFacts {
    const page: ExtractedPage = {
      url: "context:self-reported",
      status: 200,
      title: "",
      metaDescription: "",
      openGraph: {},
      jsonLd: [],
      canonical: undefined,
      lang: undefined,
      headings: [],
      text: context,
      boilerplate: [],
      internalLinks: [],
      externalLinks: [],
      dates: [],
      prices: [],
      trustHeaders: { hsts: false, csp: false, xFrameOptions: false, xContentTypeOptions: false },
      metaRefresh: undefined,
    };
    return new SiteFacts({
      url: page.url,
      crawledAt,
      companyName: "",
      pages: [page],
      crawledPages: [page.url],
      outboundLinks: [],
      crawlStats: {
        pagesAnalyzed: 1,
        contentLength: context.length,
        failures: [],
        durationMs: 0,
        partial: false,
        pagesPlanned: 1,
        robotsTxt: "absent",
        sitemapUrls: 0,
        securityTxt: false,
        skippedByRobots: 0,
      },
    });
  }

  get pages(): readonly ExtractedPage[] {
    return this.crawl.pages;
  }

  /**
   * The page that states what the site offers: the home page, unless the home page says nothing of its
   * own (no headline and under 25 words: a blog template's empty list, a bare menu). Then it is the page
   * a reader clicks through to: the fullest page read that is not legal text, about, contact, careers,
   * pricing, docs or a post; or still the home page when there is none.
   */
  get front(): ExtractedPage {
    return (this.memo.front ??= this.findFront());
  }

  /**
   * The home page, or the page that stands in for it when the home page has no words of its own (framework 2.11.0):
   * what a home page may evidence, its stand-in may too ("Distribution may be via … Broking channels" on /structured).
   */
  private isFrontPage(page: ExtractedPage): boolean {
    return page === this.home || (this.home.text.trim() === "" && page === this.front);
  }

  private findFront(): ExtractedPage {
    const { home } = this;
    // 25 words or more, counted no further than the 25th.
    if (home.headings.some((heading) => heading.level === 1) || /^\s*(?:\S+\s+){24}\S/.test(home.text)) return home;
    let best: ExtractedPage | undefined;
    for (const entry of this.indexed) {
      if (entry.page === home || entry.category !== "other") continue;
      const path = pathOf(entry.page.url);
      if (
        LEGAL_PATH.test(path) ||
        /\/(?:contact|contact-us|team|jobs|login|sign-?in|sign-?up|search|tags?|categories)(?=[/.?#]|$)/i.test(path)
      )
        continue;
      if (!best || entry.page.text.length > best.text.length) best = entry.page;
    }
    return best ?? home;
  }

  /** Set on the view `about(dimension)` answers: mentions keep only sentences that can evidence it. */
  private scope: DimensionId | undefined;

  /**
   * These facts as one dimension's rules read them: the same pages and caches, but
   * `mentions` skips sentences that cannot evidence the dimension (evidence-relevance.ts),
   * so a rule neither quotes nor counts a privacy policy's "sign up" as onboarding.
   */
  about(dimension: DimensionId): SiteFacts {
    const view = Object.create(this) as SiteFacts;
    view.scope = dimension;
    return view;
  }

  /** Whether a sentence is one of its page's headings (or its title): how a post or a section names itself. */
  isHeading(mention: { readonly url: string; readonly text: string }): boolean {
    const page = this.indexed.find((entry) => entry.page.url === mention.url)?.page;
    if (!page) return false;
    const text = mention.text.replace(/…$/, "");
    return (
      page.title.startsWith(text) ||
      page.headings.some((heading) => heading.text.startsWith(text) || text.startsWith(heading.text))
    );
  }

  /** Whether a sentence speaks for the company: "we", "our", "us", or its name. */
  speaksForItself(text: string): boolean {
    if (/\b(we|we'?re|we'?ve|our|us)\b/i.test(text)) return true;
    const brand =
      this.crawl.companyName
        .trim()
        .toLowerCase()
        .split(/[\s.,]+/)[0] ?? "";
    return brand.length >= 3 && text.toLowerCase().includes(brand);
  }

  /** The category of a crawled page (the home page is "other"); undefined for an address not crawled. */
  categoryOf(url: string): PageCategory | undefined {
    return this.indexed.find((entry) => entry.page.url === url)?.category;
  }

  /** These facts with only the security and trust pages: what a site says of its own security programme. */
  securityPages(): SiteFacts {
    const view = Object.create(this) as SiteFacts;
    view.only = "security";
    return view;
  }

  /** Set on the view securityPages() answers: mentions read only pages of this category. */
  private only: PageCategory | undefined;

  /** Pages of these categories (the home page is "other"). */
  pagesIn(...categories: PageCategory[]): ExtractedPage[] {
    return this.indexed.filter((entry) => categories.includes(entry.category)).map((entry) => entry.page);
  }

  hasPage(category: PageCategory): boolean {
    return this.indexed.some((entry) => entry.category === category);
  }

  /** Sentences matching `pattern` across the site (or only `in` those categories), deduplicated, in page order. */
  mentions(pattern: RegExp, options: { in?: readonly PageCategory[]; limit?: number } = {}): Mention[] {
    const limit = options.limit ?? 5;
    const found: Mention[] = [];
    const seen = new Set<string>();
    for (const entry of this.indexed) {
      if (options.in && !options.in.includes(entry.category)) continue;
      if (this.only !== undefined && entry.category !== this.only) continue;
      // A page none of whose sentences can evidence the dimension (a privacy policy for onboarding) is not read.
      const { scope } = this;
      if (
        scope !== undefined &&
        !pageQuotable(scope, { url: entry.page.url, category: entry.category, home: this.isFrontPage(entry.page) })
      )
        continue;
      // Most patterns match few pages: one pass over the page rules it out before any sentence is tried.
      // (Not for patterns with "^": anchored to a sentence's start, they cannot be tried on the whole page.)
      if (anchored(pattern) ? !this.linesMatch(entry, pattern) : !this.haystackMatches(entry, pattern)) continue;
      for (const sentence of this.sentencesOf(entry)) {
        if (!test(pattern, sentence) || seen.has(sentence)) continue;
        if (scope !== undefined && !sentenceQuotable(scope, this.traitsOf(entry, sentence), entry.category)) continue;
        seen.add(sentence);
        found.push({ url: entry.page.url, text: quote(sentence), quoted: true });
        if (found.length >= limit) return found;
      }
    }
    return found;
  }

  /** How many pages mention `pattern` anywhere in their text, title or headings. */
  pagesMentioning(pattern: RegExp, options: { in?: readonly PageCategory[] } = {}): number {
    let count = 0;
    for (const entry of this.indexed) {
      if (options.in && !options.in.includes(entry.category)) continue;
      const { page } = entry;
      if (test(pattern, page.title) || this.haystackMatches(entry, pattern)) count += 1;
    }
    return count;
  }

  /** Links (internal and external, from any page) whose URL or text matches, deduplicated by URL, in page order. */
  linksMatching(pattern: RegExp): Array<{ url: string; text: string }> {
    let found = this.linkMatches.get(pattern);
    if (!found) {
      found = this.findLinks(pattern);
      this.linkMatches.set(pattern, found);
    }
    return [...found];
  }

  private findLinks(pattern: RegExp): ReadonlyArray<{ url: string; text: string }> {
    const found = new Map<string, { url: string; text: string }>();
    // Text every match contains, looked for in all addresses and link texts at once, rules most patterns out;
    const literals = requiredLiterals(pattern);
    if (
      literals !== null &&
      !this.joinedLinks().urlWords.mayContain(literals) &&
      !this.joinedLinks().textWords.mayContain(literals)
    )
      return [];
    // then one pass over all addresses and all link texts (a line each).
    const lines = perLine(pattern);
    if (!test(lines, this.joinedLinks().urls) && !test(lines, this.joinedLinks().texts)) return [];
    for (const link of this.uniqueLinks()) {
      if (!found.has(link.url) && (test(pattern, link.url) || test(pattern, link.text))) found.set(link.url, link);
    }
    return [...found.values()];
  }

  /**
   * False when `pattern` cannot match the page's headings or scored text (a cheap
   * word check); true when it may. Skipping on false never changes a result.
   */
  mayMention(page: ExtractedPage, pattern: RegExp): boolean {
    const entry = this.indexed.find((candidate) => candidate.page === page);
    return !entry || this.wordsOf(entry).mayStart(pattern);
  }

  private joinedLinks(): { urls: string; texts: string; urlWords: WordIndex; textWords: WordIndex } {
    if (!this.memo.linkLines) {
      const urls = this.uniqueLinks()
        .map((link) => link.url)
        .join("\n");
      const texts = this.uniqueLinks()
        .map((link) => link.text)
        .join("\n");
      this.memo.linkLines = { urls, texts, urlWords: new WordIndex(urls), textWords: new WordIndex(texts) };
    }
    return this.memo.linkLines;
  }

  /** Every (URL, text) pair once, in page order: menus repeat the same links on every page. */
  private uniqueLinks(): ReadonlyArray<{ url: string; text: string }> {
    if (!this.memo.links) {
      // By URL, then by text: no key string is built per link. (Keyed by "URL\ntext" where
      // a URL has a line break, so that two pairs that spell the same key stay one link.)
      const lineBreak = this.indexed.some(
        ({ page }) =>
          page.internalLinks.some((link) => link.url.includes("\n")) ||
          page.externalLinks.some((link) => link.url.includes("\n")),
      );
      const distinct = new Map<string, Set<string>>();
      const links: Array<{ url: string; text: string }> = [];
      const add = (link: { readonly url: string; readonly text: string }) => {
        if (lineBreak) return addByKey(link);
        let texts = distinct.get(link.url);
        if (!texts) distinct.set(link.url, (texts = new Set()));
        if (texts.has(link.text)) return;
        texts.add(link.text);
        links.push({ url: link.url, text: link.text });
      };
      const keys = new Set<string>();
      const addByKey = (link: { readonly url: string; readonly text: string }) => {
        const key = `${link.url}\n${link.text}`;
        if (keys.has(key)) return;
        keys.add(key);
        links.push({ url: link.url, text: link.text });
      };
      for (const { page } of this.indexed) {
        for (const link of page.internalLinks) add(link);
        for (const link of page.externalLinks) add(link);
      }
      this.memo.links = links;
    }
    return this.memo.links;
  }

  /** Prices found, with the page they are on, in page order. */
  prices(options: { in?: readonly PageCategory[] } = {}): Array<FoundPrice & { url: string }> {
    return this.indexed
      .filter((entry) => !options.in || options.in.includes(entry.category))
      .flatMap((entry) => entry.page.prices.map((price) => ({ ...price, url: entry.page.url })));
  }

  /** Whether any page (of these categories) shows a price: `prices(options).length > 0` without listing them. */
  hasPrices(options: { in?: readonly PageCategory[] } = {}): boolean {
    return this.indexed.some(
      (entry) => (!options.in || options.in.includes(entry.category)) && entry.page.prices.length > 0,
    );
  }

  /**
   * Dates found (YYYY-MM-DD), newest first, not after the crawl: those in pages'
   * text, and those in the addresses of dated posts (`/2020/05/27/…`) whether the
   * post was crawled or only linked: a news index lists more posts than a crawl reads.
   */
  dates(options: { in?: readonly PageCategory[] } = {}): string[] {
    const today = this.now.toISOString().slice(0, 10);
    const all = new Set<string>();
    for (const entry of this.indexed) {
      if (options.in && !options.in.includes(entry.category)) continue;
      for (const date of entry.page.dates) if (date <= today) all.add(date);
    }
    for (const post of this.datedPosts()) {
      if (options.in && !options.in.includes(post.category)) continue;
      if (post.date <= today) all.add(post.date);
    }
    return [...all].sort().reverse();
  }

  /** The page a date was seen on (or the dated post it is the address of). */
  pageWithDate(date: string): string | undefined {
    return (
      this.pages.find((page) => page.dates.includes(date))?.url ??
      this.datedPosts().find((post) => post.date === date)?.url
    );
  }

  /** Dated posts (addresses with a full date in their path) of these categories, crawled or linked. */
  postsIn(...categories: PageCategory[]): Array<{ url: string; date: string }> {
    return this.datedPosts()
      .filter((post) => categories.includes(post.category))
      .map(({ url, date }) => ({ url, date }));
  }

  /**
   * The site's own addresses with a full date in their path, each once, in page order: its pages and links, and links
   * to its own subdomains ("blog.qualys.com/product-tech/2024/05/17/…": framework 2.11.0).
   */
  private datedPosts(): ReadonlyArray<{ url: string; date: string; category: PageCategory }> {
    if (!this.memo.posts) {
      const found = new Map<string, { url: string; date: string; category: PageCategory }>();
      const add = (url: string, text: string) => {
        if (found.has(url)) return;
        const date = dateInPath(url);
        if (date) found.set(url, { url, date, category: classifyPage(url, text) });
      };
      const site = registrableDomain(new URL(this.home.url).hostname);
      const ownSubdomain = (url: string) => {
        try {
          const host = new URL(url).hostname;
          return host.endsWith(`.${site}`) && registrableDomain(host) === site;
        } catch {
          return false;
        }
      };
      for (const { page } of this.indexed) {
        add(page.url, page.title);
        for (const link of page.internalLinks) add(link.url, link.text);
        for (const link of page.externalLinks)
          if (dateInPath(link.url) && ownSubdomain(link.url)) add(link.url, link.text);
      }
      this.memo.posts = [...found.values()];
    }
    return this.memo.posts;
  }

  daysSince(isoDate: string): number {
    return Math.max(0, Math.floor((this.now.getTime() - Date.parse(`${isoDate}T00:00:00Z`)) / DAY_MS));
  }

  outbound(kind?: OutboundKind): OutboundLink[] {
    return this.crawl.outboundLinks.filter((link) => kind === undefined || link.kind === kind);
  }

  get securityTxt(): boolean {
    return this.crawl.crawlStats.securityTxt;
  }

  /**
   * The © year in the home page's footer, if it states one: "© 2024", "© 2019–2024 Acme", "© Acme 2024".
   * A year after the crawl is not the site's: a script wrote the reader's clock ("© {new Date().getFullYear()}").
   */
  /** The first year of a © range on the home page ("Copyright © 2009 - 2016 Mirumee Software" is 2009), if it states one. */
  copyrightSince(): number | undefined {
    for (const block of [...this.home.boilerplate, this.home.text]) {
      const match = /(?:©|\(c\)|copyright)\s*(?:[^\d\n©]{1,40}?\s)?((?:19|20)\d{2})\s*[-–]\s*(?:19|20)\d{2}\b/i.exec(
        block,
      );
      if (match && Number(match[1]) <= this.now.getUTCFullYear()) return Number(match[1]);
    }
    return undefined;
  }

  copyrightYear(): number | undefined {
    for (const block of [...this.home.boilerplate, this.home.text]) {
      const match = /(?:©|\(c\)|copyright)\s*(?:[^\d\n©]{1,40}?\s)?(?:\d{4}\s*[-–]\s*)?((?:19|20)\d{2})\b/i.exec(block);
      if (match && Number(match[1]) <= this.now.getUTCFullYear()) return Number(match[1]);
    }
    // A footer line of the company's legal name and a year, without the sign ("Caffeine Computing Inc. • 2017"):
    // framework 2.10.0.
    for (const block of this.home.boilerplate) {
      for (const line of block.split("\n")) {
        const match = LEGAL_NAME_AND_YEAR.exec(line.trim());
        const year = Number(match?.[1] ?? match?.[2]);
        if (match && year <= this.now.getUTCFullYear()) return year;
      }
    }
    return undefined;
  }

  private wordsOf(entry: IndexedPage): WordIndex {
    entry.words ??= new WordIndex(entry.haystack);
    return entry.words;
  }

  /**
   * `pattern.test(entry.haystack)`, answered once per page and pattern. A pattern
   * whose every match starts at a word (see matchStarts) is tried only where such a
   * word starts, with a sticky copy: the regex engine's own attempts at every other
   * offset would fail, so the answer is the same.
   */
  private haystackMatches(entry: IndexedPage, pattern: RegExp): boolean {
    entry.matched ??= new Map();
    let matched = entry.matched.get(pattern);
    if (matched === undefined) {
      matched = this.wordsOf(entry).test(pattern);
      entry.matched.set(pattern, matched);
    }
    return matched;
  }

  /** Whether a sentence-anchored pattern matches some sentence's line of the page; a page without the words it needs is ruled out first. */
  private linesMatch(entry: IndexedPage, pattern: RegExp): boolean {
    // (Each sentence is a piece of the haystack, so what the haystack lacks, no sentence has.)
    if (!this.wordsOf(entry).satisfies(pattern)) return false;
    const literals = requiredLiterals(pattern);
    if (literals !== null && !this.wordsOf(entry).mayContain(literals)) return false;
    return test(perLine(pattern), this.joinedSentencesOf(entry));
  }

  private joinedSentencesOf(entry: IndexedPage): string {
    entry.joined ??= this.sentencesOf(entry).join("\n");
    return entry.joined;
  }

  /** A sentence's traits for the evidence checks, once per sentence and page (27 dimensions read the same sentences). */
  private traitsOf(entry: IndexedPage, sentence: string): SentenceTraits {
    entry.traits ??= new Map();
    let traits = entry.traits.get(sentence);
    if (!traits) {
      traits = traitsOf(sentence);
      entry.traits.set(sentence, traits);
    }
    return traits;
  }

  private sentencesOf(entry: IndexedPage): readonly string[] {
    entry.sentences ??= splitSentences(entry.page, entry.category);
    return entry.sentences;
  }
}

function splitSentences(page: ExtractedPage, category: PageCategory): string[] {
  const sentences: string[] = [];
  for (const heading of page.headings) sentences.push(heading.text);
  for (const line of scoredText(page, category).split("\n")) {
    // Not after a middle initial: "Chief Financial Officer Gerard L. Pennefather" is one sentence.
    for (const sentence of line.split(/(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z0-9"“])/)) {
      const trimmed = sentence.trim();
      if (trimmed.length >= 3) sentences.push(trimmed);
    }
  }
  return sentences;
}

const multilineCopies = new WeakMap<RegExp, RegExp>();
/**
 * The pattern with `^` and `$` matching at each line: tried once on many short
 * strings joined by newlines, it finds a match wherever one of them has one
 * (`.` never crosses a newline; a match that spans two lines is only a false
 * alarm, checked string by string after).
 */
function perLine(pattern: RegExp): RegExp {
  let copy = multilineCopies.get(pattern);
  if (!copy) {
    if (pattern.multiline) {
      copy = pattern;
    } else {
      // Shared by every object of the same source and flags (a regex literal in a function is a new object per call).
      const key = `${pattern.flags}/${pattern.source}`;
      copy = multilineBySource.get(key);
      if (!copy) {
        if (multilineBySource.size >= 10_000) multilineBySource.clear();
        multilineBySource.set(key, (copy = new RegExp(pattern.source, `${pattern.flags.replace(/[gy]/g, "")}m`)));
      }
    }
    multilineCopies.set(pattern, copy);
  }
  return copy;
}
const multilineBySource = new Map<string, RegExp>();

/**
 * Whether the pattern is anchored to a sentence's start or end (`^` or `$` outside a
 * character class): it cannot be tried on a whole page, only sentence by sentence.
 */
function anchored(pattern: RegExp): boolean {
  let cached = anchoredPatterns.get(pattern);
  if (cached === undefined) {
    cached = pattern.multiline || hasAnchor(pattern.source);
    anchoredPatterns.set(pattern, cached);
  }
  return cached;
}
const anchoredPatterns = new WeakMap<RegExp, boolean>();

function hasAnchor(source: string): boolean {
  return scanSource(source, (char) => char === "^" || char === "$") >= 0;
}

function test(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** `/2020/05/27/title` or `/2020-05-27-title` in an address's path: a dated post. */
function dateInPath(url: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = /\/((?:19|20)\d{2})[/-](0[1-9]|1[0-2])[/-](0[1-9]|[12]\d|3[01])(?:[/-]|\.html?$|$)/.exec(path);
  if (!match) return undefined;
  const date = `${match[1]}-${match[2]}-${match[3]}`;
  return Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ? undefined : date;
}

/** A company's legal name and a year, alone on a line: "Caffeine Computing Inc. • 2017", "2019 Acme GmbH". */
const LEGAL_SUFFIX = String.raw`(?:Inc\.?|LLC|L\.L\.C\.|Ltd\.?|Limited|GmbH|Corp\.?|Corporation|Pte\.? Ltd\.?|S\.?A\.?S?\.?|B\.?V\.?|AG|AB|Oy|S\.?r\.?l\.?|SL|Pty\.? Ltd\.?)`;
const LEGAL_NAME_AND_YEAR = new RegExp(
  String.raw`^(?:\p{Lu}[\p{L}\d&.'’-]*,? ){1,4}${LEGAL_SUFFIX}\s*[•·|,–—-]?\s*((?:19|20)\d{2})$|^((?:19|20)\d{2})\s*[•·|,–—-]?\s*(?:\p{Lu}[\p{L}\d&.'’-]*,? ){1,4}${LEGAL_SUFFIX}$`,
  "u",
);

function quote(sentence: string): string {
  return sentence.length <= MAX_QUOTE ? sentence : `${sentence.slice(0, MAX_QUOTE - 1).trimEnd()}…`;
}
