import type { ExtractedPage } from "../../crawl/crawl.types.js";
import { classifyOutbound, type PageCategory } from "../../crawl/page-priority.js";
import { registrableDomain } from "../../crawl/url.js";
import { moreIsBetter, weighted } from "../curves.js";
import type { Evidence } from "../scoring.types.js";
import { SCORED_TEXT_PER_PAGE, type Mention, type SiteFacts } from "../site-facts.js";
import { brandKeys, onOwnDomain } from "./code-hosts.js";
import { freeWayIn } from "./pricing-packaging.js";
import { Assessor, counted, plural, type RuleSet } from "./rule.js";

/**
 * Product Experience: what the site shows of the product itself — how it looks
 * and how carefully it is built, how fast a newcomer gets in, how real its AI is,
 * what it connects to, and what developers can build on it.
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
const DEV_PAGES = { in: ["docs", "api_reference"] } as const;

type Kinds<T extends unknown[] = []> = ReadonlyArray<readonly [string, RegExp, ...T]>;
const combined = new WeakMap<Kinds<unknown[]>, RegExp>();

/**
 * The first sentence naming each kind, keyed by kind, in `kinds` order; `keep` filters sentences. One pass over the
 * site with all kinds as one alternation (a scan per kind costs several times as much), then sentences sorted locally.
 */
function kindsFound<T extends unknown[]>(
  facts: SiteFacts,
  kinds: Kinds<T>,
  keep: (kind: Kinds<T>[number], mention: Mention) => boolean = () => true,
) {
  let any = combined.get(kinds);
  if (!any) combined.set(kinds, (any = new RegExp(kinds.map(([, pattern]) => `(?:${pattern.source})`).join("|"), "i")));
  const sentences = facts.mentions(any, { limit: 200 });
  const found = new Map<string, Mention>();
  for (const kind of kinds) {
    const mention = sentences.find((sentence) => kind[1].test(sentence.text) && keep(kind, sentence));
    if (mention) found.set(kind[0], mention);
  }
  return found;
}
const kindList = (found: ReadonlyMap<string, Mention>): string => [...found.keys()].join(", ");
const asList = (mention: Mention | undefined): Mention[] => (mention ? [mention] : []);

// ---------------------------------------------------------------- experience_design

const MEDIA =
  /\b(?:(?:product |app |see |view )screenshots?|screenshots? of (?:the |our )?(?:product|app|dashboard)|product tour|watch (?:the |a |our )?(?:demo|video)|demo video|video (?:walkthrough|tour|demo)|see (?:it|\w+) in action|take a (?:quick )?tour|interactive demo)\b/i;
/** A video itself, not a channel or profile (youtube.com/channel/…, /@name, vimeo.com/acme): a watch or embed address. */
const VIDEO_HOST =
  /^https?:\/\/(?:(?:www\.|m\.)?youtube(?:-nocookie)?\.com\/(?:watch\?|embed\/[\w-]|shorts\/[\w-]|v\/[\w-])|youtu\.be\/[\w-]|(?:www\.)?vimeo\.com\/\d+(?:[/?#]|$)|player\.vimeo\.com\/video\/\d|(?:www\.)?loom\.com\/(?:share|embed)\/\w|[\w-]+\.wistia\.com\/medias\/\w|(?:[\w-]+\.)?vidyard\.com\/watch\/\w)/i;
/** A video link's text that makes it press coverage: "featured on …", "interview", "on national television". */
const PRESS_VIDEO =
  /\b(?:featured? (?:on|in)|interview(?:ed|s)?|television|tv (?:show|news|interview)|news (?:report|segment)|podcast)\b/i;
/** A section or page that shows the product: a heading "Screenshots" or "Screencasts". */
const SHOWCASE_HEADING = /^(?:product |app )?(?:screenshots|screencasts)$/i;
/** Screenshots themselves: images under /screenshots/, or a screenshots page. */
const SCREENSHOT_LINK = /\/screenshots?(?:\/[^/?#]+|\.html?)(?:[?#]|$)|\/screenshots\/?(?:[?#]|$)/i;
const A11Y: Kinds = [
  ["standard", /\b(?:wcag|vpat|section 508|en 301 549)\b/i],
  ["statement", /\baccessibility (?:statement|conformance|commitment|policy)\b|\bcommitted to accessibility\b/i],
  ["mention", /\b(?:accessibility|screen readers?|keyboard navigation|a11y)\b/i],
];
const CRAFT: Kinds = [
  ["design system", /\bdesign system\b/i],
  ["UI kit", /\b(?:ui kit|component library|figma (?:kit|file|community|plugin))\b/i],
  ["dark mode", /\bdark (?:mode|theme)\b/i],
  ["keyboard shortcuts", /\b(?:keyboard shortcuts|command palette|command menu)\b/i],
  ["localisation", /\b(?:available in \d+ languages|\d+ languages supported|locali[sz]ed (?:in|into))\b/i],
];

export function experienceDesign(facts: SiteFacts) {
  const assessor = new Assessor();

  const media = facts.mentions(MEDIA, { limit: 5 });
  // A video of the product, not press coverage of the company ("feature on National Television", an interview).
  const videos = facts.linksMatching(VIDEO_HOST).filter((link) => !PRESS_VIDEO.test(link.text));
  // A page (or its section) headed "Screenshots" or "Screencasts", and screenshot images or pages of the site's own.
  const showcases: Evidence[] = [];
  for (const page of facts.pagesIn(...ALL)) {
    const heading = [page.title, ...page.headings.map((h) => h.text)].find((text) =>
      SHOWCASE_HEADING.test(text.trim()),
    );
    if (heading) showcases.push({ url: page.url, text: `section: ${heading.trim()}` });
  }
  const [screenshot] = facts
    .linksMatching(SCREENSHOT_LINK)
    .filter((link) => SCREENSHOT_LINK.test(link.url) && onOwnDomain(facts, link.url));
  if (screenshot)
    showcases.push({ url: screenshot.url, text: `screenshot: ${screenshot.text.trim() || screenshot.url}` });
  const shown = media.length + videos.length + showcases.length;
  // A screenshot or a demo video is the norm for a product site; four (tour, video, screenshots…) shows it off well.
  counted(
    assessor,
    2,
    shown,
    [1, 4],
    `shows the product (${plural(shown, "screenshot, tour or video", "screenshots, tours or videos")})`,
    "no screenshots, product tour or demo video",
    [
      ...media.slice(0, 2),
      ...videos.slice(0, 1).map((link) => ({ url: link.url, text: `video: ${link.text}` })),
      ...showcases.slice(0, 1),
    ],
  );

  const a11yFound = kindsFound(facts, A11Y);
  const [standard, any] = [asList(a11yFound.get("standard")), asList(a11yFound.get("mention"))];
  const page = facts
    .linksMatching(/\/accessibility(?:[/-]|$)/i)
    .map((link) => ({ url: link.url, text: `accessibility page: ${link.text}` }));
  const statement = [...asList(a11yFound.get("statement")), ...page];
  // A named standard is a commitment that can be checked; a statement is a promise; a passing mention is a hint.
  const a11y = standard.length > 0 ? 90 : statement.length > 0 ? 75 : any.length > 0 ? 55 : undefined;
  const a11yFact =
    a11y === 90
      ? "names an accessibility standard (WCAG/VPAT/508)"
      : a11y !== undefined
        ? "mentions accessibility"
        : "no accessibility statement";
  assessor.signal(1.5, a11y, a11yFact, [...standard, ...statement, ...any].slice(0, 2));

  const craft = kindsFound(facts, CRAFT);
  // One craft signal (a design system, dark mode, shortcuts…) is typical; three shows a design-led team.
  counted(
    assessor,
    1,
    craft.size,
    [1, 3],
    `design craft: ${kindList(craft)}`,
    "no design system, UI kit or interface craft mentioned",
    [...craft.values()].slice(0, 2),
  );

  // Consistency: every page titled distinctly and carrying the shared navigation. Needs two pages to judge.
  const pages = facts.pagesIn(...ALL);
  const titled = pages.filter((page) => page.title.trim() !== "");
  if (pages.length < 2 || titled.length === 0) {
    assessor.signal(1, undefined, "too few titled pages to judge navigation and titles");
  } else {
    const distinct = new Set(titled.map((page) => page.title.trim().toLowerCase())).size;
    const withNav = pages.filter((page) => page.boilerplate.length > 0).length;
    const score = weighted([
      [1, (100 * distinct) / pages.length],
      [1, (100 * withNav) / pages.length],
    ]);
    const fact = `${distinct} of ${plural(pages.length, "page")} have distinct titles; ${withNav} carry navigation`;
    // Each half named for what it is: shared navigation does not make 1 title in 25 "consistent titles".
    const titlesHold = distinct >= 0.8 * pages.length;
    const navHolds = withNav >= 0.8 * pages.length;
    assessor.signal(
      1,
      score,
      titlesHold && navHolds
        ? "distinct titles and shared navigation"
        : titlesHold
          ? "distinct titles, but pages without navigation"
          : navHolds
            ? "shared navigation, but pages share titles"
            : "pages share titles and lack navigation",
      [{ url: facts.home.url, text: fact }],
    );
  }

  return assessor.done(
    shown === 0
      ? "Show the product: screenshots, a short demo video or an interactive tour."
      : "Publish an accessibility statement naming WCAG 2.2 AA, and show the design system behind the product.",
  );
}

// ---------------------------------------------------------------- onboarding_activation

const WAYS_IN: Kinds = [
  // A way in ("get started" only with where it leads); a free one is pricing's reading (freeWayIn).
  [
    "signup",
    /\b(?:sign ?up (?:for|free|now|today|in)|create (?:an? |your )?(?:free |new |[\w.-]+ )?account|get started (?:for free|free|in \d+|now|today)|start (?:your )?(?:free )?trial)\b/i,
  ],
  // "Request demo" as a button says it without the article (framework 2.11.0).
  ["sales", /\b(?:(?:book|request|schedule) (?:a |an )?(?:demo|call)|contact sales|talk to sales)\b/i],
];
/** Links that may be a sign-up (by address or text); isSignupLink decides. */
const SIGNUP_LINK =
  /\/(?:signup|sign-up|register|join|get-started|start|trial)(?:[/?#]|$)|^(?:sign ?up|get started|start|try|create)\b/i;
/** A sign-up's address: "/signup" anywhere; "/start" or "/join" only as the first segment ("/pool/start" is a page). */
const SIGNUP_PATH = /\/(?:signup|sign-up|register|get-started|trial)(?:\/|$)|^\/(?:start|join)(?:\/|$)/i;
/** A sign-up button's whole text: "Sign Up for Free", "Get started", "Try it now", "Create an account". */
const SIGNUP_TEXT =
  /^(?:sign ?up|get started|start|try(?: it)?|create (?:an |your )?account)(?: (?:for )?free| now| today)?$/i;
/** A sales button's whole text (a link's, or a line of its own): "Book a Demo", "Schedule a call". */
const SALES_TEXT = /^(?:book|request|schedule) (?:a |an )?(?:demo|call)$/i;
const SALES_LINE = /^[ \t]*(?:book|request|schedule) (?:a |an )?(?:demo|call)[ \t]*$/im;
/** A guide to the first run. "Step-by-step" alone is a guide's manner ("step-by-step guides to implement best practices"), not a quickstart. */
const QUICKSTART =
  /\b(?:quick ?start|getting started|get started in \d+|up and running in|in (?:under )?\d+ minutes|first (?:steps|project|app)|hello,? world)\b/i;
const QUICKSTART_ALL = new RegExp(QUICKSTART.source, "gi");
/** "We are only getting started", "Just getting started? Starter issues…": a figure of speech, not a guide. */
const IDIOM_BEFORE = /\b(?:just|only|are|we'?re|we’re)\s+$/i;

/** Whether a text names a quickstart, not only in the idiom "(just) getting started" or the question "getting started?". */
function namesQuickstart(text: string): boolean {
  for (const match of text.matchAll(QUICKSTART_ALL)) {
    const end = match.index + match[0].length;
    const idiom =
      /^getting started$/i.test(match[0]) &&
      (text[end] === "?" || IDIOM_BEFORE.test(text.slice(Math.max(0, match.index - 12), match.index)));
    if (!idiom) return true;
  }
  return false;
}
const HELPERS: Kinds = [
  // Head starts for a new account, not a feature that manages templates.
  [
    "templates",
    /\b(?:starter|ready-made|pre-?built|free|project|example) templates?\b|\bstart (?:from|with) (?:a |one of our )?templates?\b|\btemplates? (?:to|for) (?:get(?:ting)? started|start|begin)\b/i,
  ],
  ["sample data", /\bsample (?:data|datasets?|apps?|projects?|code)\b/i],
  ["starter kits", /\b(?:starter (?:kits?|projects?)|boilerplates?)\b/i],
  ["interactive demo", /\b(?:interactive demo|product tour|live demo|try (?:the |a )?demo|playground)\b/i],
  ["sandbox", /\b(?:api|developer|test|demo) sandbox\b|\bsandbox (?:environment|mode|account|keys?)\b/i],
  ["examples", /\bexample (?:apps?|projects?|gallery)\b/i],
];

/** A site saying its sign-up is not open yet: "Once it's ready we'll open up registration", "join the waitlist". */
const REGISTRATION_CLOSED =
  /\b(?:once it'?s ready,? we'?ll open (?:up )?registration|(?:registration|sign-?ups?) (?:is|are) not (?:yet )?open|register your interest|join (?:the|our) wait ?list|we(?:'re| are) still building the (?:service|product|app|platform))\b/i;

/** Sentences that say registration is not open yet; empty when the site says nothing of the kind. */
export function registrationClosed(facts: SiteFacts): Mention[] {
  return facts.mentions(REGISTRATION_CLOSED, { in: ["other", "pricing"], limit: 1 });
}

export function onboardingActivation(facts: SiteFacts) {
  const assessor = new Assessor();

  const ways = kindsFound(facts, WAYS_IN);
  // "Once it's ready we'll open up registration … register your interest": a button, not a way in (framework 2.11.0).
  const closed = registrationClosed(facts);
  const signup = closed.length > 0 ? [] : [...asList(ways.get("signup")), ...signupLinks(facts)];
  const free = freeWayIn(facts);
  const sales: Array<Evidence | Mention> = asList(ways.get("sales"));
  // A "Book a demo" button: a link on the site's own domain, or a line of its own on one of its pages.
  if (sales.length === 0 && free.length === 0 && signup.length === 0) sales.push(...salesButtons(facts));
  const [selfServe, describe, evidence]: [number | undefined, string, Array<Evidence | Mention>] =
    free.length > 0
      ? [90, "self-serve: a free plan or trial", free]
      : signup.length > 0
        ? [75, "self-serve sign-up", signup]
        : sales.length > 0
          ? [30, "only a demo request or sales contact, no self-serve sign-up", sales]
          : closed.length > 0
            ? [undefined, "no sign-up yet: registration is not open", closed]
            : [undefined, "no sign-up, trial or demo path", []];
  assessor.signal(2, selfServe, describe, evidence);

  const guidePages = facts
    .pagesIn(...ALL)
    .filter(
      (page) =>
        namesQuickstart(page.title) ||
        (facts.mayMention(page, QUICKSTART) &&
          [...page.headings.map((h) => h.text), page.text.slice(0, SCORED_TEXT_PER_PAGE)].some(namesQuickstart)),
    ).length;
  const guideLinks = facts
    .linksMatching(/quick-?start|getting-started/i)
    .filter((link) => /quick-?start|getting-started/i.test(link.url) || namesQuickstart(link.text)).length;
  const guides = guidePages + guideLinks;
  // One quickstart is the norm for a self-serve product; four (per language or use case) is generous.
  counted(
    assessor,
    1.5,
    guides,
    [1, 4],
    `a quickstart or getting-started guide (${plural(guides, "page or link", "pages or links")})`,
    "no quickstart or getting-started guide",
    facts
      .mentions(QUICKSTART, { limit: 10 })
      .filter((mention) => namesQuickstart(mention.text))
      .slice(0, 2),
  );

  const helpers = kindsFound(facts, HELPERS);
  // One head start (templates or a demo) is common; three kinds removes the blank-page problem.
  counted(
    assessor,
    1,
    helpers.size,
    [1, 3],
    `head starts: ${kindList(helpers)}`,
    "no templates, sample data or interactive demo",
    [...helpers.values()].slice(0, 2),
  );

  return assessor.done(
    selfServe === undefined || selfServe < 75
      ? "Let people start on their own: a free trial or plan, no credit card, straight into the product."
      : "Add a five-minute quickstart and templates so a new account reaches value on day one.",
  );
}

/** A component's or class's reference section ("Row Attributes", "Tabs Events", "Methods", "Props"). */
export const REFERENCE_HEADING =
  /^(?:[\w-]+ ){0,2}(?:attributes|props|properties|methods?|events|parameters|arguments)$/i;

/**
 * The API reference the crawl read: pages filed as one, and docs pages laid out as one, with two or more sections
 * naming a component's attributes, methods or events ("Table Attributes", "Table Events", "Table Methods"): one reading
 * for the developer platform and the documentation (framework 2.11.0).
 */
export function referencePages(facts: SiteFacts): ExtractedPage[] {
  const laidOut = facts
    .pagesIn("docs", "other")
    .filter(
      (page) =>
        page !== facts.home &&
        page.headings.filter((heading) => heading.level > 1 && REFERENCE_HEADING.test(heading.text.trim())).length >= 2,
    );
  return [...facts.pagesIn("api_reference"), ...laidOut];
}

/**
 * Links to the site's own API reference (a PDF guide, a Swagger page on an API host): one reading for the
 * developer platform and the documentation, so a reference one of them sees linked the other does not deny.
 */
export function apiReferenceLinks(facts: SiteFacts): Array<{ url: string; text: string }> {
  return facts.linksMatching(API_REFERENCE_LINK).filter((link) => {
    try {
      return API_REFERENCE_LINK.test(link.text) && onOwnDomain(facts, link.url) !== undefined;
    } catch {
      return false;
    }
  });
}

/**
 * The site's own sign-up link (its address or its button's text): one reading for onboarding (a self-serve
 * start) and growth (a self-serve funnel). A docs page's "get-started" on another domain is neither.
 */
export function signupLinks(facts: SiteFacts): Evidence[] {
  return facts
    .linksMatching(SIGNUP_LINK)
    .filter((link) => isSignupLink(facts, link))
    .slice(0, 1)
    .map((link) => ({ url: link.url, text: `sign-up link: ${link.text.trim()}` }));
}

/** A sign-up link of the site's own: a sign-up address, or a sign-up button's text. */
function isSignupLink(facts: SiteFacts, link: { url: string; text: string }): boolean {
  const url = onOwnDomain(facts, link.url);
  if (url === undefined || !(SIGNUP_TEXT.test(link.text.trim()) || SIGNUP_PATH.test(url.pathname))) return false;
  // A "Get started" button whose page was read and asks for no account is a guide ("Get started building on …").
  const target = facts.pages.find((page) => page.url === link.url);
  return target === undefined || SIGNUP_FORM.test(`${target.title}\n${target.text.slice(0, SCORED_TEXT_PER_PAGE)}`);
}
/** What a sign-up page asks for or says. */
const SIGNUP_FORM =
  /\b(?:sign ?up|sign ?in|log ?in|create (?:an |your )?account|register|password|e-?mail address|free trial|start (?:your )?trial|join)\b/i;

/** "Book a demo" buttons: own-domain links with that text, else a page line that says only that. */
function salesButtons(facts: SiteFacts): Evidence[] {
  const [link] = facts
    .linksMatching(SALES_TEXT)
    .filter((candidate) => SALES_TEXT.test(candidate.text.trim()) && onOwnDomain(facts, candidate.url));
  if (link) return [{ url: link.url, text: `demo request link: ${link.text.trim()}` }];
  for (const page of facts.pagesIn(...ALL)) {
    if (!facts.mayMention(page, SALES_LINE)) continue;
    const line = SALES_LINE.exec(page.text.slice(0, SCORED_TEXT_PER_PAGE));
    if (line) return [{ url: page.url, text: `demo request button: ${line[0].trim()}` }];
  }
  return [];
}

// ---------------------------------------------------------------- ai_capability_depth

/** A sentence is about AI when it says so; ambiguous features ("generate reports") need it. */
const AI_CONTEXT =
  /\b(?:ai|llms?|gpt[\w.-]*|machine learning|ml|genai|generative|neural|language models?|copilots?|agentic|openai|claude|gemini)\b/i;
const AI_FEATURES: Kinds<[needsAiContext: boolean]> = [
  ["agents", /\b(?:agents?|agentic)\b/i, true],
  ["copilot", /\b(?:copilots?|assistants?)\b/i, true],
  ["summarisation", /\bsummar(?:y|ies|i[sz]es?|i[sz]ed|i[sz]ation|i[sz]ing)\b/i, true],
  [
    "classification",
    /\b(?:classif(?:y|ies|ied|ication)|categori[sz](?:e|es|ation)|auto-?tag\w*|intent detection|sentiment)\b/i,
    true,
  ],
  ["generation", /\bgenerat(?:e|es|ed|ion)\b/i, true],
  ["extraction", /\b(?:extract(?:s|ion|ed)?|ocr|document (?:parsing|understanding))\b/i, true],
  [
    "retrieval (RAG)",
    /\b(?:rag|retrieval[- ]augmented|semantic search|vector (?:search|database|store)|embeddings?)\b/i,
    false,
  ],
  ["speech", /\b(?:speech[- ]to[- ]text|text[- ]to[- ]speech)\b/i, false],
  // People transcribe too ("document transcription" as a crowd task): AI only when the sentence says so.
  ["speech", /\btranscri(?:be|bes|ption|ptions)\b/i, true],
  ["translation", /\btranslat(?:e|es|ion|ions)\b/i, true],
  ["prediction", /\b(?:forecast\w*|predict\w*|anomaly detection|recommendations?)\b/i, true],
  [
    "natural-language query",
    /\b(?:natural[- ]language (?:queries|query|search)|text[- ]to[- ]sql|chat with your)\b/i,
    false,
  ],
  ["code assistance", /\b(?:code (?:completion|generation|review)|autocomplete)\b/i, true],
];
const AI_EVALS =
  /\b\d{1,3}(?:\.\d+)?\s?%\s?(?:accuracy|accurate|precision|recall|resolution rate|deflection|of (?:tickets|questions|queries|conversations|cases|requests) (?:resolved|answered|automated|handled))|\b(?:accuracy|precision|recall|f1(?:[- ]score)?|hallucination rate|win rate)\b[^.]{0,30}?\d|\b(?:evals|evaluation (?:suite|harness|framework|results?|datasets?)|model evaluations?|benchmarked (?:on|against))\b/i;
const PERFECT_SCORE = /\b100(?:\.0+)?\s?%/g;
const AI_IN_DOCS =
  /\b(?:ai|llms?|gpt[\w.-]*|embeddings?|machine learning|language models?|(?:chat )?completions (?:api|endpoint)|prompt (?:templates?|engineering))\b/i;
const AI_BUZZ =
  /\b(?:ai[- ](?:powered|driven|first|native|enabled|infused)|powered by (?:ai|artificial intelligence)|artificial intelligence|generative ai|genai|next[- ]gen(?:eration)? ai|intelligent automation)\b/i;

export function aiCapabilityDepth(facts: SiteFacts) {
  const assessor = new Assessor();

  const features = kindsFound(
    facts,
    AI_FEATURES,
    ([, , needsContext], sentence) => !needsContext || AI_CONTEXT.test(sentence.text),
  );
  // One or two AI features is what most products now claim; six distinct capabilities is real depth.
  counted(
    assessor,
    3,
    features.size,
    [2, 6],
    `concrete AI features: ${kindList(features)}`,
    "no concrete AI feature named",
    [...features.values()].slice(0, 3),
  );

  const buzz = facts.mentions(AI_BUZZ, { limit: 2 });
  // "99% accuracy" is an AI figure only on a site that talks about AI (or in a sentence that does).
  const aiSite = features.size > 0 || buzz.length > 0;
  // (A quality figure of another kind, "Six Sigma 99.99966% accuracy", is not a model's.)
  const evals = facts.mentions(AI_EVALS, { limit: 5 }).filter(
    (mention) =>
      (aiSite || AI_CONTEXT.test(mention.text)) &&
      !/\bsix sigma\b/i.test(mention.text) &&
      // "100% accurate" is a promise, not a measurement: the sentence needs another figure or an evaluation.
      AI_EVALS.test(mention.text.replace(PERFECT_SCORE, "")),
  );
  // Publishing one accuracy or evaluation figure is rare and already good; three is a measured AI practice.
  counted(
    assessor,
    1.5,
    evals.length,
    [1, 3],
    plural(evals.length, "accuracy or evaluation figure"),
    "no accuracy or evaluation figures",
    evals.slice(0, 2),
  );

  const documented = facts.pagesMentioning(AI_IN_DOCS, DEV_PAGES);
  // AI that is documented (one page) can be built on; three pages documents it properly.
  counted(
    assessor,
    1,
    documented,
    [1, 3],
    `AI documented on ${plural(documented, "docs page")}`,
    "AI not documented in docs or API reference",
    facts.mentions(AI_IN_DOCS, { ...DEV_PAGES, limit: 1 }),
  );

  if (buzz.length > 0 && features.size === 0 && evals.length === 0) {
    assessor.penalty(1.5, 'AI claims ("AI-powered") with no concrete AI feature behind them', buzz);
  }

  return assessor.done(
    features.size === 0
      ? 'Name what the AI actually does (summarises calls, drafts replies, classifies tickets) instead of "AI-powered".'
      : "Publish accuracy or evaluation figures for the AI features, and document them for developers.",
  );
}

// ---------------------------------------------------------------- integration_ecosystem

/** Well-known tools, as lower-case words or word pairs; ambiguous names (Make, Box, Linear, Segment) are left out. */
const TOOLS: ReadonlyMap<string, string> = new Map(
  (
    "Slack|GitHub|GitLab|Bitbucket|Jira|Confluence|Trello|Asana|ClickUp|Notion|Salesforce|HubSpot|Pipedrive|Zendesk|Intercom|Freshdesk|" +
    "Zapier|Stripe|Shopify|WooCommerce|Google Drive|Google Sheets|Google Calendar|Gmail|Microsoft Teams|Microsoft 365|SharePoint|" +
    "Google Workspace|G Suite|Office 365|Workspace ONE|OneDrive|Outlook|Dropbox|Figma|Airtable|Mailchimp|Snowflake|BigQuery|Redshift|Databricks|PostgreSQL|Postgres|MySQL|MongoDB|AWS|" +
    "Azure|Datadog|PagerDuty|Sentry|Okta|QuickBooks|Xero|NetSuite|Workday|ServiceNow|Twilio|SendGrid|Discord|WhatsApp|Zoom|Calendly|" +
    "DocuSign|Typeform|Webflow|WordPress|Marketo|Amplitude|Mixpanel|Looker|Tableau|Power BI|Vercel|Netlify|Heroku|n8n"
  )
    .split("|")
    .map((name) => [name.toLowerCase(), name === "Postgres" ? "PostgreSQL" : name]),
);
/** The first words of TOOLS' two-word names: no other word can begin a pair that names a tool. */
const PAIR_STARTS: ReadonlySet<string> = new Set(
  [...TOOLS.keys()].filter((key) => key.includes(" ")).map((key) => key.slice(0, key.indexOf(" "))),
);
const CONNECTS = /\b(?:integrat\w*|connect(?:s|ors?|ions?)?|sync\w*|plug-?ins?|works with|apps?|extensions?)\b/i;
/** The directory itself: "/integrations/upstash-redis" is one integration's page, not the list of them. */
const DIRECTORY_LINK = /\/(?:integrations?|marketplace|app-directory|apps|plugins)\/?(?:[?#]|$)/i;
const DETAIL_LINK = /\/(?:integrations?|marketplace|apps|plugins)\/[\w-]+/i;
/** The phone app stores: a listing there is the product's own app, not an integration with another tool. */
const MOBILE_APP_STORE = /^https?:\/\/(?:(?:apps|itunes)\.apple\.com|play\.google\.com)\//i;
const MARKETPLACE_LINK =
  /^https?:\/\/(?:appexchange\.salesforce\.com|apps\.shopify\.com|marketplace\.atlassian\.com|(?:[\w-]+\.)?slack\.com\/(?:apps|marketplace)|ecosystem\.hubspot\.com|aws\.amazon\.com\/marketplace|azuremarketplace\.microsoft\.com|workspace\.google\.com\/marketplace|marketplace\.zoom\.us)\b/i;
const MARKETPLACE_TEXT =
  /\b(?:appexchange|atlassian marketplace|shopify app store|slack app directory|hubspot (?:app )?marketplace|aws marketplace|azure marketplace|google workspace marketplace|chrome web store)\b/i;
/** A directory says what it lists: integrations, connectors, plugins, an API ("Partners: Macnica, SecureBrain" is resellers). */
const DIRECTORY_WORDS = /\b(?:integrat\w*|connect\w*|plug-?ins?|apis?)\b/i;
/** Archive pages of a blog (a category or tag named "integrations" lists posts, not integrations). */
const ARCHIVE_PATH = /\/(?:categories|category|tags?)\//i;
/** Behind the login: the product's own settings, not a public page ("app.acme.com/settings/integrations"). */
const SIGNED_IN_HOST = /^(?:app|dashboard|console|admin|my)\./i;
const SETTINGS_PATH = /\/settings(?:\/|$)/i;
/** "/apps/<x>": often the company's own products (modules); an integration only when it says so or names a tool. */
const APPS_PATH = /\/apps(?:\/|$)/i;
const SAYS_INTEGRATION = /\b(?:integrat\w*|connectors?|plug-?ins?|add-?ons?|extensions?)\b/i;
const AUTOMATION = /\b(?:zapier|make\.com|n8n|ifttt|pipedream|workato|tray\.io)\b/i;
const AUTOMATION_LINK = /^https?:\/\/(?:www\.)?(?:zapier\.com|make\.com|n8n\.io|pipedream\.com|ifttt\.com)\//i;

/** The well-known tools a text names, each once, in order of appearance. */
function toolsIn(text: string): string[] {
  const found: string[] = [];
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  words.forEach((word, index) => {
    const name = TOOLS.get(word);
    if (name && !found.includes(name)) found.push(name);
    // A word pair is only built where the word starts a two-word name ("google drive").
    if (!PAIR_STARTS.has(word)) return;
    const pair = TOOLS.get(`${word} ${words[index + 1] ?? ""}`);
    if (pair && !found.includes(pair)) found.push(pair);
  });
  return found;
}

/** Known tools named on integrations pages, or in sentences about connecting elsewhere: name → page. */
function namedTools(facts: SiteFacts, directory: readonly ExtractedPage[]): Map<string, string> {
  const found = new Map<string, string>();
  const scan = (text: string, url: string) => {
    for (const name of toolsIn(text)) if (!found.has(name)) found.set(name, url);
  };
  for (const page of directory) scan([page.title, ...page.headings.map((h) => h.text), page.text].join("\n"), page.url);
  for (const mention of facts.mentions(CONNECTS, { limit: 60 })) scan(mention.text, mention.url);
  return found;
}

/**
 * Whether an address can be the site's own integrations pages: on its registrable domain (docs.acme.com too),
 * not its signed-in app (app.acme.com/settings/integrations) nor a blog's category or tag archive. An app store's
 * "/store/apps/…" is a listing of the app, and someone else's marketplace home lists everyone's.
 */
function ownIntegrationAddress(url: string, site: { domain: string; host: string }): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  return (
    registrableDomain(host) === site.domain &&
    (host === site.host || !SIGNED_IN_HOST.test(host)) &&
    !SETTINGS_PATH.test(parsed.pathname) &&
    !ARCHIVE_PATH.test(parsed.pathname) &&
    classifyOutbound(url) !== "app_store"
  );
}

/** A link under /apps/ is an integration when its text or address says so or names a known tool. */
function appsLinkIsIntegration(link: { url: string; text: string }): boolean {
  if (!APPS_PATH.test(link.url)) return true;
  const described = `${link.text} ${link.url.replace(/[/_-]+/g, " ")}`;
  return SAYS_INTEGRATION.test(described) || toolsIn(described).length > 0;
}

/** Whether a crawled "integrations" page is a directory: it speaks of integrating and is not a blog archive. */
function isDirectoryPage(page: ExtractedPage, site: { domain: string; host: string }): boolean {
  if (!ownIntegrationAddress(page.url, site)) return false;
  return [page.title, ...page.headings.map((h) => h.text), page.text.slice(0, SCORED_TEXT_PER_PAGE)].some((text) =>
    DIRECTORY_WORDS.test(text),
  );
}

export function integrationEcosystem(facts: SiteFacts) {
  const assessor = new Assessor();

  const host = new URL(facts.home.url).hostname.toLowerCase();
  const site = { domain: registrableDomain(host), host };
  const own = (link: { url: string; text: string }) => ownIntegrationAddress(link.url, site);
  const directory = facts.pagesIn("integrations").filter((page) => isDirectoryPage(page, site));
  const detail = facts.linksMatching(DETAIL_LINK).filter((link) => own(link) && appsLinkIsIntegration(link)).length;
  const directoryLink = facts.linksMatching(DIRECTORY_LINK).find((link) => own(link) && appsLinkIsIntegration(link));
  const [first] = directory;
  // A crawled directory is solid (75); its per-integration pages count on a curve (ten is typical, fifty a marketplace).
  if (first) {
    assessor.signal(
      2,
      Math.max(75, moreIsBetter(detail, 10, 50)),
      `an integrations directory${detail > 0 ? ` linking ${plural(detail, "integration page")}` : ""}`,
      [{ url: first.url, text: `integrations page: ${first.title || first.url}` }],
    );
  } else {
    assessor.signal(
      2,
      directoryLink ? 55 : undefined,
      directoryLink ? "an integrations page linked (not crawled)" : "no integrations directory",
      directoryLink ? [{ url: directoryLink.url, text: `integrations link: ${directoryLink.text}` }] : [],
    );
  }

  const tools = namedTools(facts, directory);
  const names = [...tools.keys()];
  // Five named tools is what a young product connects to; twenty-five is a real ecosystem.
  const toolsFact = `integrations: ${plural(tools.size, "well-known tool")} named (${names.slice(0, 8).join(", ")})`;
  counted(
    assessor,
    2,
    tools.size,
    [5, 25],
    toolsFact,
    "no well-known tools named as integrations",
    names[0] === undefined ? [] : [{ url: tools.get(names[0]) ?? facts.home.url, text: toolsFact }],
  );

  const listings = new Map<string, Evidence>();
  // An extension in a browser's or an editor's store plugs into that tool; the product's own phone app does not.
  for (const link of facts.outbound("app_store").filter((outbound) => !MOBILE_APP_STORE.test(outbound.url)))
    listings.set(link.url, { url: link.foundOn, text: `listed at ${link.url}` });
  // A marketplace link is a listing of the product when it names it ("…/marketplace/app/acme"), not the marketplace's home.
  const brands = brandKeys(facts);
  const namesProduct = (link: { url: string; text: string }) => {
    const words = `${link.url.replace(/^https?:\/\/[^/]+/i, "")} ${link.text}`.toLowerCase().replace(/[^a-z0-9]/g, "");
    return brands.length === 0 || brands.some((brand) => words.includes(brand));
  };
  for (const link of facts.linksMatching(MARKETPLACE_LINK).filter(namesProduct))
    listings.set(link.url, { url: link.url, text: `marketplace listing: ${link.text}` });
  for (const mention of facts.mentions(MARKETPLACE_TEXT, { limit: 3 })) listings.set(mention.text, mention);
  // One marketplace listing is typical of a maturing product; four puts it where customers already shop.
  counted(
    assessor,
    1,
    listings.size,
    [1, 4],
    plural(listings.size, "marketplace or app-store listing"),
    "no marketplace or app-store listings",
    [...listings.values()].slice(0, 2),
  );

  const automation = [
    ...facts
      .linksMatching(AUTOMATION_LINK)
      .map((link) => ({ url: link.url, text: `automation connector: ${link.text}` })),
    ...facts.mentions(AUTOMATION, { limit: 1 }),
  ];
  const hasAutomation = automation.length > 0;
  assessor.signal(
    0.75,
    hasAutomation ? 80 : undefined,
    hasAutomation ? "a Zapier/Make-style connector" : "no Zapier/Make connector",
    automation.slice(0, 1),
  );

  return assessor.done(
    first === undefined
      ? "Publish an integrations directory naming the tools customers already use, one page each."
      : "List the product in the marketplaces of the tools it integrates with (Slack, Salesforce, HubSpot…).",
  );
}

// ---------------------------------------------------------------- developer_platform

// An API the company says it offers is one too: "We also offer APIs which you can use to …" (framework 2.11.0).
const API_MENTION =
  /\b(?:(?:rest(?:ful)?|graphql|public|open) api|api (?:references?|docs|documentation|endpoints?)|(?:we|our \w+) (?:also )?(?:offers?|provides?|exposes?) (?:an? |our |full |public )?apis?\b(?! (?:partners?|consulting|services?)))\b/i;
/** A link to the reference itself: "API Quick Reference", "Admin API User Guide", "SWAGGER". */
const API_REFERENCE_LINK =
  /\bapis?\b.{0,30}\b(?:references?|user guides?|docs|documentation)\b|\b(?:swagger|openapi)\b/i;
const SPEC_LINK = /\b(?:swagger|openapi)\b/i;
const SDK_CONTEXT =
  /\b(?:sdks?|client librar(?:y|ies)|libraries|(?:npm|pnpm) (?:install|i)|yarn add|pip install|gem install|go get|composer require|cargo add|dotnet add)\b/i;
const SDK_PAGE = /\bsdks?\b|\bclient librar/i;
const LANGUAGES: ReadonlyArray<readonly [string, RegExp]> = [
  ["Python", /\b(?:python|pip install)\b/i],
  ["JavaScript/Node", /\b(?:node(?:\.?js)?|javascript|typescript|npm|yarn|pnpm)\b/i],
  ["Go", /\b(?:golang|go (?:sdk|client|library|module)|go get)\b/i],
  ["Ruby", /\b(?:ruby|gem install)\b/i],
  ["Java", /\bjava\b(?!script)/i],
  ["PHP", /\b(?:php|composer require)\b/i],
  // ".NET" in capitals and not a host's ".net" ("d2969mkc0xw38n.cloudfront.net").
  [".NET", /(?<![\w-])\.NET\b|\b(?:[Aa][Ss][Pp]\.[Nn][Ee][Tt]|[Dd][Oo][Tt][Nn][Ee][Tt])\b|\b[Cc]#/],
  ["Swift", /\bswift\b/i],
  ["Kotlin", /\bkotlin\b/i],
  ["Rust", /\b(?:rust|cargo add)\b/i],
  ["Elixir", /\belixir\b/i],
  ["Dart", /\b(?:dart|flutter)\b/i],
];
const DEV_EXTRAS: Kinds<[weight: number]> = [
  ["webhooks", /\bwebhooks?\b/i, 1],
  ["OpenAPI spec", /\b(?:openapi|swagger|postman collection|graphql schema|api spec(?:ification)?)\b/i, 1],
  ["CLI", /\b(?:cli|command[- ]line|command prompt|one command|npm (?:install|i) -g)\b/i, 0.75],
  [
    "sandbox or self-serve API keys",
    /\b(?:(?:api|developer|test) sandbox|sandbox (?:environment|mode|account|keys?)|test (?:mode|keys?)|(?:your|an|generate|create) api keys?|developer (?:console|portal))\b/i,
    0.75,
  ],
];

export function developerPlatform(facts: SiteFacts) {
  const assessor = new Assessor();

  // Links to the site's own API reference or spec, by their text ("API User Guide", "SWAGGER"), on its own domain.
  const referenceLinks = apiReferenceLinks(facts);
  const reference = referencePages(facts);
  const [first] = reference;
  const mentioned = facts.mentions(API_MENTION, { limit: 1 });
  // A crawled reference page is the bar (70); more of them (eight is a large API) lift it further.
  if (first) {
    assessor.signal(
      3,
      60 + 0.4 * moreIsBetter(reference.length, 2, 8),
      `API reference (${plural(reference.length, "page")})`,
      [{ url: first.url, text: `API reference: ${first.title || first.url}` }],
    );
  } else {
    // A link to the site's own reference (a PDF guide, a Swagger page on an API host) shows one exists.
    const [linked] = referenceLinks;
    const seen = mentioned.length > 0;
    if (linked) {
      assessor.signal(3, 60, "an API reference linked (not crawled)", [
        { url: linked.url, text: `API reference link: ${linked.text}` },
        ...mentioned,
      ]);
    } else {
      assessor.signal(
        3,
        seen ? 45 : undefined,
        seen ? "an API mentioned, no reference page found" : "no public API or reference",
        mentioned,
      );
    }
  }

  // Languages named near "SDK" / install commands, or anywhere on a docs page titled for SDKs.
  const sdkPages = facts
    .pagesIn("docs", "api_reference")
    .filter((page) => SDK_PAGE.test([page.title, ...page.headings.map((h) => h.text)].join(" ")));
  const contexts = [
    ...facts.mentions(SDK_CONTEXT, { limit: 30 }),
    ...sdkPages.map((page) => ({ url: page.url, text: page.text })),
  ];
  const languages = new Map<string, string>();
  for (const { url, text } of contexts) {
    for (const [language, pattern] of LANGUAGES)
      if (!languages.has(language) && pattern.test(text)) languages.set(language, url);
  }
  const [firstSdkUrl] = languages.values();
  const sdkFact = `SDKs for ${[...languages.keys()].join(", ")}`;
  // Two SDKs (say Python and Node) is typical; six languages covers nearly every team.
  if (firstSdkUrl)
    assessor.signal(2, moreIsBetter(languages.size, 2, 6), sdkFact, [{ url: firstSdkUrl, text: sdkFact }]);
  else
    assessor.signal(
      2,
      contexts.length > 0 ? 40 : undefined,
      contexts.length > 0 ? "SDKs mentioned without naming languages" : "no SDKs",
      contexts.slice(0, 1).map(({ url, text }) => ({ url, text: text.slice(0, 200) })),
    );

  const extras = kindsFound(facts, DEV_EXTRAS);
  const specLink = referenceLinks.find((link) => SPEC_LINK.test(link.text));
  for (const [kind, , weight] of DEV_EXTRAS) {
    const found: Evidence | Mention | undefined =
      extras.get(kind) ??
      (kind === "OpenAPI spec" && specLink
        ? { url: specLink.url, text: `API spec link: ${specLink.text}` }
        : undefined);
    assessor.signal(weight, found ? 80 : undefined, found ? kind : `no ${kind}`, found ? [found] : []);
  }

  return assessor.done(
    first === undefined
      ? "Publish an API reference (with an OpenAPI spec) so developers can build on the product."
      : "Ship official SDKs in the main languages, webhooks and a sandbox with test keys.",
  );
}

export const productExperienceRules = {
  experience_design: experienceDesign,
  onboarding_activation: onboardingActivation,
  ai_capability_depth: aiCapabilityDepth,
  integration_ecosystem: integrationEcosystem,
  developer_platform: developerPlatform,
} satisfies RuleSet;
