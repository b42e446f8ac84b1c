import type { AnyNode, Element as HtmlElement } from "domhandler";
import { Parser, parseDocument, type ParserOptions } from "htmlparser2";

/**
 * One pass over a page that keeps only strings. HTML (the hot path) is read
 * straight from htmlparser2's events, with no tree built: the walk sees exactly
 * what a walk over htmlparser2's DOM (domhandler) would, node for node (adjacent
 * text events are joined into one text node as domhandler joins them). XHTML
 * comes as a jsdom DOM and is walked through a tiny tree adapter; both share the
 * same rules (`PageWalk`).
 */
export interface TreeAdapter<N> {
  /** Lower-case local name of an element; undefined for any other node. */
  elementName(node: N): string | undefined;
  /** Character data of a text or CDATA node; undefined for any other node. */
  textOf(node: N): string | undefined;
  /**
   * An element's attributes by (qualified) name, "xml:lang" in XHTML. A name given
   * twice keeps its first value, as htmlparser2 does (XML forbids it anyway).
   */
  attributes(node: N): Attributes;
  children(node: N): ArrayLike<N>;
  /**
   * Parses markup kept in a <script type="text/x-template"> (Vue, Knockout,
   * Handlebars …) into a tree whose children are walked like the page's own.
   * Optional: without it, such templates are skipped.
   */
  parseFragment?(html: string): N;
}

/**
 * Attribute values by name. Only the names the walker asks for are ever read,
 * none of which Object.prototype has, so a plain object from the parser will do.
 */
export type Attributes = Readonly<Record<string, string | undefined>>;

const NONE: readonly never[] = [];
const NO_ATTRIBUTES: Attributes = Object.freeze(Object.create(null) as Record<string, string>);

/** HTML as browsers read it where it matters for extraction: lower-case names, entities decoded. */
const HTML_OPTIONS: ParserOptions = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };

/**
 * htmlparser2's tree (domhandler). The crawler reads HTML with `walkHtml`, which
 * builds no tree; this adapter walks the same rules over a parsed document (the
 * tests compare the two).
 */
export const htmlparser2Adapter: TreeAdapter<AnyNode> = {
  elementName: (node) =>
    node.type === "tag" || node.type === "script" || node.type === "style" ? (node as HtmlElement).name : undefined,
  textOf: (node) =>
    node.type === "text" || node.type === "cdata" ? ((node as { data?: string }).data ?? "") : undefined,
  attributes: (node) => (node as HtmlElement).attribs ?? NO_ATTRIBUTES,
  children: (node) => (node as { children?: AnyNode[] }).children ?? NONE,
  parseFragment: (html) => parseDocument(html, HTML_OPTIONS),
};

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

export const domAdapter: TreeAdapter<Node> = {
  elementName: (node) => (node.nodeType === ELEMENT_NODE ? (node as Element).localName.toLowerCase() : undefined),
  textOf: (node) =>
    node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE ? (node.nodeValue ?? "") : undefined,
  attributes: (node) => {
    if (node.nodeType !== ELEMENT_NODE) return NO_ATTRIBUTES;
    const list = (node as Element).attributes;
    const byName = Object.create(null) as Record<string, string>;
    for (let i = 0; i < list.length; i++) {
      const { name, value } = list[i]!;
      if (!(name in byName)) byName[name] = value;
    }
    return byName;
  },
  children: (node) => node.childNodes,
};

export interface RawLink {
  readonly href: string;
  readonly text: string;
  readonly inNav: boolean;
}

/** What the walk found, before any URL is resolved or any JSON is parsed. */
export interface RawPage {
  title: string;
  metaDescription: string;
  openGraph: Record<string, string>;
  lang: string | undefined;
  baseHref: string | undefined;
  canonicalHref: string | undefined;
  refreshContent: string | undefined;
  jsonLdSources: string[];
  headings: { level: 1 | 2 | 3; text: string }[];
  text: string;
  /** The page text without its code (<code>): where its dates are read, not a code sample's timestamps. */
  prose: string;
  boilerplate: string[];
  links: RawLink[];
  timeValues: string[];
  /** What says whether the page's words are written by script (shell.ts reads it). */
  scripting: ScriptingSignals;
}

export interface ScriptingSignals {
  /** Scripts a browser would run (bundles, modules, inline code; not JSON or template blocks). */
  scripts: number;
  /** An element a framework mounts into (`#root`, `#app`, `#__next`, `<app-root>` …) with no visible text in it. */
  emptyMount: boolean;
  /** What `<noscript>` says (at most 500 characters): "You need to enable JavaScript to run this app." */
  noscript: string;
}

/** Where client-rendered apps mount: Create React App/Vite (#root, #app), Next, Nuxt, Gatsby, Svelte, Quasar, Angular. */
const MOUNT_IDS = new Set([
  "root",
  "app",
  "__next",
  "__nuxt",
  "___gatsby",
  "svelte",
  "q-app",
  "react-root",
  "app-root",
  "main-app",
  "application",
]);
const MAX_NOSCRIPT = 500;

export const MAX_TEXT = 200_000;
const MAX_RAW_TEXT = MAX_TEXT * 4; // raw text carries indentation; stop buffering well past the cap
const MAX_BOILERPLATE_BLOCK = 20_000;
const MAX_BOILERPLATE_BLOCKS = 100;
const MAX_LINKS = 5_000;
const MAX_LINK_TEXT = 200;

// What a tag means to the walker, looked up once per element.
const SKIP = 1; // never visible: not walked (head is walked, for its metadata)
const BLOCK = 2; // starts a new line of text
const CELL = 4; // separated from its neighbours by a space
const SECTIONING = 8; // a header or footer inside it belongs to the content (the HTML "banner" rule)
const H1 = 16;
const H2 = 32;
const H3 = 64;
const TAGS = new Map<string, number>([
  // <noscript> is what a browser without JavaScript shows, and <template> holds a framework's markup: both are read.
  ...["script", "style", "svg", "iframe", "object", "canvas"].map((tag) => [tag, SKIP] as const),
  ...[
    "address",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "legend",
    "li",
    "menu",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "tr",
    "ul",
  ].map((tag) => [tag, BLOCK] as const),
  ...["article", "aside", "main", "section"].map((tag) => [tag, BLOCK | SECTIONING] as const),
  ["td", CELL],
  ["th", CELL],
  ["h1", BLOCK | H1],
  ["h2", BLOCK | H2],
  ["h3", BLOCK | H3],
]);

/** Script types that hold HTML for a client-side framework to render, not code. */
const TEMPLATE_SCRIPT =
  /^\s*text\/(?:x-)?(?:[\w.-]*template|html|handlebars[\w.-]*|x-handlebars[\w.-]*|mustache|jsrender|ng-template)\s*(?:;|$)/i;
/** Template scripts parsed per page, and their total size: a hostile page cannot make the walk unbounded. */
const MAX_TEMPLATES = 50;
const MAX_TEMPLATE_CHARS = 500_000;
/** "{{ user.name }}", "{{#each}}": interpolations a framework would have filled in; never visible text. */
const INTERPOLATION = /\{\{[^{}\n]{0,200}\}\}/g;

/** Block boundaries are marked with NUL, then become newlines (a stray NUL in a page only adds a line break). */
const BREAK = "\u0000";
const DISPLAY_NONE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

/**
 * What `raw.replace(/(?! )\s+| \s+/g, " ").replace(/ ?\u0000[\u0000 ]*\/g, "\n").trim()`
 * answers, in one pass with no regex: a run of whitespace and block marks becomes
 * one newline if it holds a block mark, else one space (a lone space is left
 * alone: rewriting it costs), and runs at either end go. On a page's text this is
 * about a third cheaper than the two replaces.
 */
export function collapse(raw: string): string {
  const length = raw.length;
  let i = 0;
  while (i < length && SEPARATOR[raw.charCodeAt(i)] !== 0) i++;
  let kept = i; // start of the stretch not yet copied
  const parts: string[] = [];
  while (i < length) {
    const kind = SEPARATOR[raw.charCodeAt(i)]!;
    if (kind === 0) {
      i++;
      continue;
    }
    let breaks = kind === BLOCK_MARK;
    let end = i + 1;
    for (let c = 0; end < length && (c = SEPARATOR[raw.charCodeAt(end)]!) !== 0; end++)
      if (c === BLOCK_MARK) breaks = true;
    if (end === length) {
      // Trailing whitespace is trimmed.
      parts.push(raw.slice(kept, i));
      return parts.length === 1 ? parts[0]! : parts.join("");
    }
    if (breaks || end > i + 1 || raw.charCodeAt(i) !== 32) {
      parts.push(raw.slice(kept, i), breaks ? "\n" : " ");
      kept = end;
    }
    i = end;
  }
  const rest = raw.slice(kept);
  if (parts.length === 0) return rest;
  parts.push(rest);
  return parts.join("");
}

/** 1 for what `\s` matches (and `trim` removes), 2 for the block mark (NUL), 0 for anything else. */
const WHITESPACE = 1;
const BLOCK_MARK = 2;
const SEPARATOR = new Uint8Array(0x10000);
for (const code of [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]) {
  SEPARATOR[code] = WHITESPACE;
}
SEPARATOR[0] = BLOCK_MARK;

// What to undo when the walk leaves an element.
const EXIT_BREAK = 1;
const EXIT_CELL = 2;
const EXIT_HIDDEN = 4;
const EXIT_BOILERPLATE = 8;
const EXIT_NAV = 16;
const EXIT_SECTIONING = 32;
const EXIT_HEADING = 64;
const EXIT_LINK = 128;
const EXIT_NOSCRIPT = 256;
const EXIT_MOUNT = 512;
const EXIT_CODE = 1024;
// What `enter` answers instead of flags: skip the element's subtree; or skip it but hand its
// text children (all an RCDATA or raw-text element has) to `captured`.
const SKIP_SUBTREE = -1;
const CAPTURE_TITLE = -2;
const CAPTURE_JSON_LD = -3;
const CAPTURE_TEMPLATE = -4;
type Capture = typeof CAPTURE_TITLE | typeof CAPTURE_JSON_LD | typeof CAPTURE_TEMPLATE;

const JSON_LD_SCRIPT = /^\s*application\/ld\+json\s*(?:;|$)/i;
/** Script types a browser runs (an absent or empty type is JavaScript): data blocks (JSON, templates) are not counted. */
const EXECUTABLE_SCRIPT =
  /^\s*(?:|module|(?:text|application)\/(?:x-)?(?:java|ecma)script|text\/jsx?|text\/babel)\s*(?:;.*)?$/i;

/**
 * The walk's rules and state, driven node by node: `enter` an element (then its
 * children, then `exit` with what `enter` answered), `text` for a text node.
 * Callers drive it from a tree (`walkTree`) or from parser events (`walkHtml`).
 */
class PageWalk {
  readonly page: RawPage = {
    title: "",
    metaDescription: "",
    openGraph: {},
    lang: undefined,
    baseHref: undefined,
    canonicalHref: undefined,
    refreshContent: undefined,
    jsonLdSources: [],
    headings: [],
    text: "",
    prose: "",
    boilerplate: [],
    links: [],
    timeValues: [],
    scripting: { scripts: 0, emptyMount: false, noscript: "" },
  };
  private noscriptDepth = 0;
  /** Inside a mount node (the outermost), and whether visible text was seen in it. */
  private inMount = false;
  private mountText = false;
  private titleSeen = false;
  private templates = 0;
  private templateChars = 0;
  private hidden = 0;
  private boilerplateDepth = 0;
  private navDepth = 0;
  private sectioning = 0;
  // Pieces joined once at the end: a string grown by += is a deep rope that costs
  // more to flatten than the regexes that then read it.
  private readonly main: string[] = [];
  private mainLength = 0;
  /** Inside <code>, and which pieces of `main` were written there. */
  private codeDepth = 0;
  private readonly codePieces = new Set<number>();
  private block = "";
  private heading: { level: 1 | 2 | 3; text: string } | undefined = undefined;
  private link: { href: string; text: string; alt: string; inNav: boolean } | undefined = undefined;

  /**
   * `templatesParsed`: whether template scripts can be parsed (and so are walked).
   * `scripted`: the document is a browser's DOM after its scripts ran, so what a browser
   * without JavaScript would show (<noscript>) is not on the page, and template scripts
   * were already rendered by their framework.
   */
  constructor(
    private readonly templatesParsed: boolean,
    private readonly scripted = false,
  ) {}

  // Visible text goes to the page text, or to the current nav/header/footer block.
  private emit(value: string): void {
    if (this.hidden > 0) return;
    if (this.noscriptDepth > 0) {
      if (this.page.scripting.noscript.length < MAX_NOSCRIPT) this.page.scripting.noscript += value;
    } else if (this.inMount && !this.mountText && value !== BREAK && /\S/.test(value)) this.mountText = true;
    if (this.boilerplateDepth > 0) {
      if (this.block.length < MAX_BOILERPLATE_BLOCK) this.block += value;
    } else {
      if (this.mainLength < MAX_RAW_TEXT) {
        if (this.codeDepth > 0) this.codePieces.add(this.main.length);
        this.main.push(value);
        this.mainLength += value.length;
      }
      if (this.heading) this.heading.text += value;
    }
  }

  /** A text node (one node: adjacent character data comes joined). */
  text(value: string): void {
    this.emit(value);
    if (this.link) this.link.text += value;
  }

  /**
   * Handles an element on the way in; returns what to undo on the way out, or
   * SKIP_SUBTREE, or a CAPTURE_ code: skip the subtree, but call `captured` with
   * the element's text children joined.
   */
  enter(name: string, attributes: Attributes): number {
    switch (name) {
      case "title":
        if (this.titleSeen) return SKIP_SUBTREE;
        this.titleSeen = true;
        return CAPTURE_TITLE;
      case "script": {
        const type = attributes["type"] ?? "";
        if (JSON_LD_SCRIPT.test(type)) return CAPTURE_JSON_LD;
        if (TEMPLATE_SCRIPT.test(type)) {
          return this.templatesParsed && !this.scripted && this.templates < MAX_TEMPLATES && this.hidden === 0
            ? CAPTURE_TEMPLATE
            : SKIP_SUBTREE;
        }
        if (EXECUTABLE_SCRIPT.test(type)) this.page.scripting.scripts++;
        return SKIP_SUBTREE;
      }
      case "noscript":
        if (this.scripted) return SKIP_SUBTREE;
        break;
      case "base":
        this.page.baseHref ??= attributes["href"];
        return SKIP_SUBTREE;
      case "meta":
        readMeta(attributes, this.page);
        return SKIP_SUBTREE;
      case "link":
        if (this.page.canonicalHref === undefined && hasToken(attributes["rel"], "canonical"))
          this.page.canonicalHref = attributes["href"];
        return SKIP_SUBTREE;
    }
    const kind = TAGS.get(name) ?? 0;
    if (kind & SKIP) return SKIP_SUBTREE;

    let flags = 0;
    const roleValue = attributes["role"];
    const role = roleValue === undefined ? undefined : roleValue.trim().toLowerCase();
    let hiddenHere = name === "head" || attributes["hidden"] !== undefined;
    if (!hiddenHere) {
      const ariaHidden = attributes["aria-hidden"];
      hiddenHere = ariaHidden !== undefined && ariaHidden.trim().toLowerCase() === "true";
    }
    if (!hiddenHere) {
      const style = attributes["style"];
      hiddenHere = style !== undefined && DISPLAY_NONE.test(style);
    }
    if (hiddenHere && this.hidden === 0) {
      flags |= EXIT_HIDDEN;
      this.hidden++;
    }

    if (!this.inMount) {
      const id = attributes["id"];
      if ((id !== undefined && MOUNT_IDS.has(id)) || name === "app-root") {
        this.inMount = true;
        this.mountText = false;
        flags |= EXIT_MOUNT;
      }
    }
    // Code samples (Markdown's <pre><code>, highlighters' <code>); a bare <pre> may be a plain-text changelog.
    if (name === "code") {
      this.codeDepth++;
      flags |= EXIT_CODE;
    }
    if (name === "noscript") {
      this.noscriptDepth++;
      flags |= EXIT_NOSCRIPT;
    }

    switch (name) {
      case "html":
        this.page.lang ??= attributes["lang"] || attributes["xml:lang"] || undefined;
        break;
      case "time": {
        const datetime = this.hidden === 0 ? attributes["datetime"] : undefined;
        if (datetime) this.page.timeValues.push(datetime);
        break;
      }
      case "br":
        this.emit(BREAK);
        if (this.link) this.link.text += " ";
        break;
      case "img":
        if (this.link) this.link.alt ||= attributes["alt"] ?? "";
        break;
      case "a":
      case "area": {
        // Links inside hidden menus still lead somewhere: they are kept, their text is not page text.
        const href = attributes["href"];
        if (href === undefined || this.link || this.page.links.length >= MAX_LINKS) break;
        if (name === "area") {
          this.page.links.push({
            href,
            text: (attributes["alt"] ?? "").trim().slice(0, MAX_LINK_TEXT),
            inNav: this.navDepth > 0,
          });
        } else {
          this.link = { href, text: "", alt: "", inNav: this.navDepth > 0 };
          flags |= EXIT_LINK;
        }
        break;
      }
    }

    const isNav = name === "nav" || role === "navigation";
    const isBanner = role === "banner" || (name === "header" && this.sectioning === 0);
    if (isNav || isBanner || role === "contentinfo" || (name === "footer" && this.sectioning === 0)) {
      if (this.boilerplateDepth++ === 0) this.block = "";
      flags |= EXIT_BOILERPLATE;
      if (isNav || isBanner) {
        this.navDepth++;
        flags |= EXIT_NAV;
      }
    }
    if (kind & SECTIONING) {
      this.sectioning++;
      flags |= EXIT_SECTIONING;
    }
    if (kind & (H1 | H2 | H3) && !this.heading && this.boilerplateDepth === 0 && this.hidden === 0) {
      this.heading = { level: kind & H1 ? 1 : kind & H2 ? 2 : 3, text: "" };
      flags |= EXIT_HEADING;
    }
    if (kind & BLOCK) {
      this.emit(BREAK);
      flags |= EXIT_BREAK;
    } else if (kind & CELL) {
      this.emit(" ");
      flags |= EXIT_CELL;
    }
    if (this.link && kind & (BLOCK | CELL)) this.link.text += " "; // card links: <a><h3>Title</h3><p>Summary</p></a>
    return flags;
  }

  /**
   * The text children of an element `enter` asked to capture. For a template
   * script, true means: walk `text` parsed as the element's children, then
   * `exit(TEMPLATE_EXIT)`.
   */
  captured(capture: Capture, text: string): boolean {
    if (capture === CAPTURE_TITLE) {
      this.page.title = collapse(text);
      return false;
    }
    if (capture === CAPTURE_JSON_LD) {
      this.page.jsonLdSources.push(text);
      return false;
    }
    if (this.templateChars + text.length > MAX_TEMPLATE_CHARS) return false;
    this.templates++;
    this.templateChars += text.length;
    this.emit(BREAK);
    return true;
  }

  exit(flags: number): void {
    if (flags & EXIT_BREAK) this.emit(BREAK);
    if (flags & EXIT_CELL) this.emit(" ");
    const link = this.link;
    if (link && flags & (EXIT_BREAK | EXIT_CELL)) link.text += " ";
    if (flags & EXIT_LINK && link) {
      const text = collapse(stripInterpolations(link.text)) || link.alt.trim();
      this.page.links.push({ href: link.href, text: text.slice(0, MAX_LINK_TEXT), inNav: link.inNav });
      this.link = undefined;
    }
    if (flags & EXIT_HEADING && this.heading) {
      const text = collapse(stripInterpolations(this.heading.text)).replace(/\n/g, " ");
      if (text) this.page.headings.push({ level: this.heading.level, text });
      this.heading = undefined;
    }
    if (flags & EXIT_SECTIONING) this.sectioning--;
    if (flags & EXIT_NAV) this.navDepth--;
    if (flags & EXIT_BOILERPLATE && --this.boilerplateDepth === 0) {
      const text = collapse(this.block);
      if (text && this.page.boilerplate.length < MAX_BOILERPLATE_BLOCKS) this.page.boilerplate.push(text);
      this.block = "";
    }
    if (flags & EXIT_HIDDEN) this.hidden--;
    if (flags & EXIT_CODE) this.codeDepth--;
    if (flags & EXIT_NOSCRIPT) this.noscriptDepth--;
    if (flags & EXIT_MOUNT) {
      if (!this.mountText) this.page.scripting.emptyMount = true;
      this.inMount = false;
    }
  }

  finish(): RawPage {
    const text = collapse(stripInterpolations(this.main.join("")));
    // A plain slice would keep the whole uncapped string alive behind the capped one; copy instead.
    this.page.text = text.length > MAX_TEXT ? ` ${text.slice(0, MAX_TEXT)}`.slice(1) : text;
    this.page.prose =
      this.codePieces.size === 0
        ? this.page.text
        : collapse(stripInterpolations(this.main.filter((_, index) => !this.codePieces.has(index)).join(""))).slice(
            0,
            MAX_TEXT,
          );
    if (this.page.scripting.noscript !== "")
      this.page.scripting.noscript = collapse(this.page.scripting.noscript).slice(0, MAX_NOSCRIPT);
    return this.page;
  }
}

/** What a template script accepted by `captured` is exited with. */
const TEMPLATE_EXIT = EXIT_BREAK;

/** Walks a tree iteratively (malformed pages can nest thousands deep) and returns plain data only. */
export function walkTree<N>(root: N, tree: TreeAdapter<N>): RawPage {
  const walk = new PageWalk(tree.parseFragment !== undefined);
  const textOfChildren = (node: N): string => {
    const kids = tree.children(node);
    let out = "";
    for (let i = 0; i < kids.length; i++) out += tree.textOf(kids[i] as N) ?? "";
    return out;
  };
  const nodes: N[] = [root];
  const indexes: number[] = [0];
  const exits: number[] = [0];
  while (nodes.length > 0) {
    const top = nodes.length - 1;
    const kids = tree.children(nodes[top] as N);
    const i = indexes[top] as number;
    if (i >= kids.length) {
      nodes.pop();
      indexes.pop();
      walk.exit(exits.pop() as number);
      continue;
    }
    indexes[top] = i + 1;
    const child = kids[i] as N;
    const name = tree.elementName(child);
    if (name === undefined) {
      const text = tree.textOf(child);
      if (text !== undefined) walk.text(text);
      continue;
    }
    const flags = walk.enter(name, tree.attributes(child));
    if (flags === SKIP_SUBTREE) continue;
    if (flags < 0) {
      // A template's parsed markup is walked in the script's place.
      const markup = textOfChildren(child);
      if (!walk.captured(flags as Capture, markup)) continue;
      nodes.push(tree.parseFragment!(markup));
      exits.push(TEMPLATE_EXIT);
    } else {
      nodes.push(child);
      exits.push(flags);
    }
    indexes.push(0);
  }
  return walk.finish();
}

/**
 * Parses and walks an HTML page in one go from htmlparser2's events: what
 * `walkTree(parseDocument(html), htmlparser2Adapter)` returns, without building
 * the tree. domhandler makes an element of every open/close pair of events (the
 * parser always closes what it opened, at the latest at the end) and one text
 * node of adjacent text events (an entity is an event of its own); so does this.
 */
export function walkHtml(html: string, options: { scripted?: boolean } = {}): RawPage {
  const walk = new PageWalk(true, options.scripted);
  readEvents(html, walk);
  return walk.finish();
}

function readEvents(html: string, walk: PageWalk): void {
  /** What to undo for each open element that is walked. */
  const exits: number[] = [];
  /** Open elements inside a skipped one, that one included. */
  let skipped = 0;
  /** Whether the skipped element's text children are wanted, and which rule wants them. */
  let capture: number = SKIP_SUBTREE;
  let capturedText = "";
  /** Text events not yet handed on: they make one text node until another event comes. */
  let pending: string | undefined;
  const flush = (): void => {
    if (pending === undefined) return;
    const text = pending;
    pending = undefined;
    walk.text(text);
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        flush();
        if (skipped > 0) {
          skipped++;
          return;
        }
        const flags = walk.enter(name, attributes);
        if (flags < 0) {
          skipped = 1;
          capture = flags;
          capturedText = "";
        } else exits.push(flags);
      },
      ontext(data) {
        if (skipped === 0) pending = pending === undefined ? data : pending + data;
        else if (skipped === 1 && capture !== SKIP_SUBTREE) capturedText += data;
      },
      onclosetag() {
        flush();
        if (skipped > 0) {
          if (--skipped > 0 || capture === SKIP_SUBTREE) return;
          const kind = capture as Capture;
          const markup = capturedText;
          capture = SKIP_SUBTREE;
          capturedText = "";
          if (walk.captured(kind, markup)) {
            readEvents(markup, walk);
            walk.exit(TEMPLATE_EXIT);
          }
          return;
        }
        const flags = exits.pop();
        if (flags !== undefined) walk.exit(flags);
      },
      // Comments, CDATA read as comments and doctypes are nodes of their own: text on either side is not joined.
      oncomment: flush,
      oncdatastart: flush,
      onprocessinginstruction: flush,
    },
    HTML_OPTIONS,
  );
  parser.end(html);
  flush();
  // The parser closes every element it opened; should one stay open, it ends with the document, as in a tree.
  for (let flags = exits.pop(); flags !== undefined; flags = exits.pop()) walk.exit(flags);
}

function stripInterpolations(text: string): string {
  return text.includes("{{") ? text.replace(INTERPOLATION, " ") : text;
}

function readMeta(attributes: Attributes, page: RawPage): void {
  const content = attributes["content"];
  if (content === undefined) return;
  if (attributes["http-equiv"]?.trim().toLowerCase() === "refresh") {
    page.refreshContent ??= content;
    return;
  }
  const name = (attributes["property"] ?? attributes["name"] ?? "").trim().toLowerCase();
  if (name === "description") {
    if (!page.metaDescription) page.metaDescription = collapse(content);
  } else if (name.startsWith("og:") && name.length > 3) {
    const key = name.slice(3);
    if (key !== "__proto__" && !Object.hasOwn(page.openGraph, key)) page.openGraph[key] = collapse(content);
  }
}

const hasToken = (list: string | undefined, token: string): boolean =>
  list !== undefined && list.toLowerCase().split(/\s+/).includes(token);
