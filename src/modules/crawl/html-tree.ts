import type { AnyNode, Element as HtmlElement } from "domhandler";
import { parseDocument } from "htmlparser2";

/**
 * One pass over a parsed page that keeps only strings. The walker is written
 * against a tiny adapter so htmlparser2's tree (HTML, the hot path) and jsdom's
 * DOM (XHTML, which needs an XML parser) share the same rules.
 */
export interface TreeAdapter<N> {
  /** Lower-case local name of an element; undefined for any other node. */
  elementName(node: N): string | undefined;
  /** Character data of a text or CDATA node; undefined for any other node. */
  textOf(node: N): string | undefined;
  /** An element's attributes (qualified names, so "xml:lang" in XHTML). */
  attributes(node: N): ArrayLike<Attribute>;
  children(node: N): ArrayLike<N>;
  /**
   * Parses markup kept in a <script type="text/x-template"> (Vue, Knockout,
   * Handlebars …) into a tree whose children are walked like the page's own.
   * Optional: without it, such templates are skipped.
   */
  parseFragment?(html: string): N;
}

export interface Attribute {
  readonly name: string;
  readonly value: string;
}

const NONE: readonly never[] = [];

/**
 * htmlparser2's tree (domhandler): text nodes are slices of the input, not
 * strings grown one character at a time, so reading them costs nothing extra.
 * Attributes are an object there; the walker reads a list, made once per element.
 */
export const htmlparser2Adapter: TreeAdapter<AnyNode> = {
  elementName: (node) => (node.type === "tag" || node.type === "script" || node.type === "style" ? (node as HtmlElement).name : undefined),
  textOf: (node) => (node.type === "text" || node.type === "cdata" ? ((node as { data?: string }).data ?? "") : undefined),
  attributes: (node) => {
    const attribs = (node as HtmlElement).attribs;
    if (!attribs) return NONE;
    const list: Attribute[] = [];
    for (const name in attribs) list.push({ name, value: attribs[name]! });
    return list;
  },
  children: (node) => (node as { children?: AnyNode[] }).children ?? NONE,
  parseFragment: (html) => parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }),
};

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

export const domAdapter: TreeAdapter<Node> = {
  elementName: (node) => (node.nodeType === ELEMENT_NODE ? (node as Element).localName.toLowerCase() : undefined),
  textOf: (node) => (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE ? (node.nodeValue ?? "") : undefined),
  attributes: (node) => (node.nodeType === ELEMENT_NODE ? (node as Element).attributes : NONE),
  children: (node) => node.childNodes,
};

function attr(attributes: ArrayLike<Attribute>, name: string): string | undefined {
  for (let i = 0; i < attributes.length; i++) {
    const attribute = attributes[i] as Attribute;
    if (attribute.name === name) return attribute.value;
  }
  return undefined;
}

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
  boilerplate: string[];
  links: RawLink[];
  timeValues: string[];
}

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
    "address", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption",
    "figure", "footer", "form", "h4", "h5", "h6", "header", "hr", "legend", "li", "menu", "nav", "ol", "option", "p",
    "pre", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
  ].map((tag) => [tag, BLOCK] as const),
  ...["article", "aside", "main", "section"].map((tag) => [tag, BLOCK | SECTIONING] as const),
  ["td", CELL], ["th", CELL], ["h1", BLOCK | H1], ["h2", BLOCK | H2], ["h3", BLOCK | H3],
]);

/** Script types that hold HTML for a client-side framework to render, not code. */
const TEMPLATE_SCRIPT = /^\s*text\/(?:x-)?(?:[\w.-]*template|html|handlebars[\w.-]*|x-handlebars[\w.-]*|mustache|jsrender|ng-template)\s*(?:;|$)/i;
/** Template scripts parsed per page, and their total size: a hostile page cannot make the walk unbounded. */
const MAX_TEMPLATES = 50;
const MAX_TEMPLATE_CHARS = 500_000;
/** "{{ user.name }}", "{{#each}}": interpolations a framework would have filled in; never visible text. */
const INTERPOLATION = /\{\{[^{}\n]{0,200}\}\}/g;

/** Block boundaries are marked with NUL, then become newlines (a stray NUL in a page only adds a line break). */
const BREAK = "\u0000";
const DISPLAY_NONE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

/** Whitespace runs become one space, block marks one newline. A lone space is left alone: rewriting it costs. */
export function collapse(raw: string): string {
  return raw.replace(/(?! )\s+| \s+/g, " ").replace(/ ?\u0000[\u0000 ]*/g, "\n").trim();
}

// What to undo when the walk leaves an element.
const EXIT_BREAK = 1;
const EXIT_CELL = 2;
const EXIT_HIDDEN = 4;
const EXIT_BOILERPLATE = 8;
const EXIT_NAV = 16;
const EXIT_SECTIONING = 32;
const EXIT_HEADING = 64;
const EXIT_LINK = 128;
const SKIP_SUBTREE = -1;

/** Walks the tree iteratively (malformed pages can nest thousands deep) and returns plain data only. */
export function walkTree<N>(root: N, tree: TreeAdapter<N>): RawPage {
  const page: RawPage = {
    title: "", metaDescription: "", openGraph: {}, lang: undefined, baseHref: undefined, canonicalHref: undefined,
    refreshContent: undefined, jsonLdSources: [], headings: [], text: "", boilerplate: [], links: [], timeValues: [],
  };
  let titleSeen = false;
  let templates = 0;
  let templateChars = 0;
  /** A template script's parsed markup, walked in the script's place. */
  let substitute: N | undefined;
  let hidden = 0;
  let boilerplateDepth = 0;
  let navDepth = 0;
  let sectioning = 0;
  // Pieces joined once at the end: a string grown by += is a deep rope that costs
  // more to flatten than the regexes that then read it.
  const main: string[] = [];
  let mainLength = 0;
  let block = "";
  let heading: { level: 1 | 2 | 3; text: string } | undefined;
  let link: { href: string; text: string; alt: string; inNav: boolean } | undefined;

  // Visible text goes to the page text, or to the current nav/header/footer block.
  const emit = (value: string): void => {
    if (hidden > 0) return;
    if (boilerplateDepth > 0) {
      if (block.length < MAX_BOILERPLATE_BLOCK) block += value;
    } else {
      if (mainLength < MAX_RAW_TEXT) {
        main.push(value);
        mainLength += value.length;
      }
      if (heading) heading.text += value;
    }
  };
  const textOfChildren = (node: N): string => {
    const kids = tree.children(node);
    let out = "";
    for (let i = 0; i < kids.length; i++) out += tree.textOf(kids[i] as N) ?? "";
    return out;
  };

  /** Handles an element on the way in; returns what to undo on the way out, or SKIP_SUBTREE. */
  const enter = (node: N, name: string): number => {
    const attributes = tree.attributes(node);
    switch (name) {
      case "title":
        if (!titleSeen) page.title = collapse(textOfChildren(node));
        titleSeen = true;
        return SKIP_SUBTREE;
      case "script": {
        const type = attr(attributes, "type") ?? "";
        if (/^\s*application\/ld\+json\s*(?:;|$)/i.test(type)) page.jsonLdSources.push(textOfChildren(node));
        else if (TEMPLATE_SCRIPT.test(type) && tree.parseFragment && templates < MAX_TEMPLATES && hidden === 0) {
          const markup = textOfChildren(node);
          if (templateChars + markup.length <= MAX_TEMPLATE_CHARS) {
            templates++;
            templateChars += markup.length;
            substitute = tree.parseFragment(markup);
            emit(BREAK);
            return EXIT_BREAK;
          }
        }
        return SKIP_SUBTREE;
      }
      case "base":
        page.baseHref ??= attr(attributes, "href");
        return SKIP_SUBTREE;
      case "meta":
        readMeta(attributes, page);
        return SKIP_SUBTREE;
      case "link":
        if (page.canonicalHref === undefined && hasToken(attr(attributes, "rel"), "canonical")) page.canonicalHref = attr(attributes, "href");
        return SKIP_SUBTREE;
    }
    const kind = TAGS.get(name) ?? 0;
    if (kind & SKIP) return SKIP_SUBTREE;

    let flags = 0;
    let role: string | undefined;
    let hiddenHere = name === "head";
    for (let i = 0; i < attributes.length; i++) {
      const { name: attributeName, value } = attributes[i] as Attribute;
      if (attributeName === "role") role = value.trim().toLowerCase();
      else if (attributeName === "hidden") hiddenHere = true;
      else if (attributeName === "aria-hidden") hiddenHere ||= value.trim().toLowerCase() === "true";
      else if (attributeName === "style") hiddenHere ||= DISPLAY_NONE.test(value);
    }
    if (hiddenHere && hidden === 0) {
      flags |= EXIT_HIDDEN;
      hidden++;
    }

    switch (name) {
      case "html":
        page.lang ??= attr(attributes, "lang") || attr(attributes, "xml:lang") || undefined;
        break;
      case "time": {
        const datetime = hidden === 0 ? attr(attributes, "datetime") : undefined;
        if (datetime) page.timeValues.push(datetime);
        break;
      }
      case "br":
        emit(BREAK);
        if (link) link.text += " ";
        break;
      case "img":
        if (link) link.alt ||= attr(attributes, "alt") ?? "";
        break;
      case "a":
      case "area": {
        // Links inside hidden menus still lead somewhere: they are kept, their text is not page text.
        const href = attr(attributes, "href");
        if (href === undefined || link || page.links.length >= MAX_LINKS) break;
        if (name === "area") {
          page.links.push({ href, text: (attr(attributes, "alt") ?? "").trim().slice(0, MAX_LINK_TEXT), inNav: navDepth > 0 });
        } else {
          link = { href, text: "", alt: "", inNav: navDepth > 0 };
          flags |= EXIT_LINK;
        }
        break;
      }
    }

    const isNav = name === "nav" || role === "navigation";
    const isBanner = role === "banner" || (name === "header" && sectioning === 0);
    if (isNav || isBanner || role === "contentinfo" || (name === "footer" && sectioning === 0)) {
      if (boilerplateDepth++ === 0) block = "";
      flags |= EXIT_BOILERPLATE;
      if (isNav || isBanner) {
        navDepth++;
        flags |= EXIT_NAV;
      }
    }
    if (kind & SECTIONING) {
      sectioning++;
      flags |= EXIT_SECTIONING;
    }
    if (kind & (H1 | H2 | H3) && !heading && boilerplateDepth === 0 && hidden === 0) {
      heading = { level: kind & H1 ? 1 : kind & H2 ? 2 : 3, text: "" };
      flags |= EXIT_HEADING;
    }
    if (kind & BLOCK) {
      emit(BREAK);
      flags |= EXIT_BREAK;
    } else if (kind & CELL) {
      emit(" ");
      flags |= EXIT_CELL;
    }
    if (link && kind & (BLOCK | CELL)) link.text += " "; // card links: <a><h3>Title</h3><p>Summary</p></a>
    return flags;
  };

  const exit = (flags: number): void => {
    if (flags & EXIT_BREAK) emit(BREAK);
    if (flags & EXIT_CELL) emit(" ");
    if (link && flags & (EXIT_BREAK | EXIT_CELL)) link.text += " ";
    if (flags & EXIT_LINK && link) {
      const text = collapse(stripInterpolations(link.text)) || link.alt.trim();
      page.links.push({ href: link.href, text: text.slice(0, MAX_LINK_TEXT), inNav: link.inNav });
      link = undefined;
    }
    if (flags & EXIT_HEADING && heading) {
      const text = collapse(stripInterpolations(heading.text)).replace(/\n/g, " ");
      if (text) page.headings.push({ level: heading.level, text });
      heading = undefined;
    }
    if (flags & EXIT_SECTIONING) sectioning--;
    if (flags & EXIT_NAV) navDepth--;
    if (flags & EXIT_BOILERPLATE && --boilerplateDepth === 0) {
      const text = collapse(block);
      if (text && page.boilerplate.length < MAX_BOILERPLATE_BLOCKS) page.boilerplate.push(text);
      block = "";
    }
    if (flags & EXIT_HIDDEN) hidden--;
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
      exit(exits.pop() as number);
      continue;
    }
    indexes[top] = i + 1;
    const child = kids[i] as N;
    const name = tree.elementName(child);
    if (name === undefined) {
      const text = tree.textOf(child);
      if (text !== undefined) {
        emit(text);
        if (link) link.text += text;
      }
      continue;
    }
    const flags = enter(child, name);
    if (flags === SKIP_SUBTREE) continue;
    nodes.push(substitute ?? child);
    substitute = undefined;
    indexes.push(0);
    exits.push(flags);
  }

  const text = collapse(stripInterpolations(main.join("")));
  // A plain slice would keep the whole uncapped string alive behind the capped one; copy instead.
  page.text = text.length > MAX_TEXT ? ` ${text.slice(0, MAX_TEXT)}`.slice(1) : text;
  return page;
}

function stripInterpolations(text: string): string {
  return text.includes("{{") ? text.replace(INTERPOLATION, " ") : text;
}

function readMeta(attributes: ArrayLike<Attribute>, page: RawPage): void {
  const content = attr(attributes, "content");
  if (content === undefined) return;
  if (attr(attributes, "http-equiv")?.trim().toLowerCase() === "refresh") {
    page.refreshContent ??= content;
    return;
  }
  const name = (attr(attributes, "property") ?? attr(attributes, "name") ?? "").trim().toLowerCase();
  if (name === "description") {
    if (!page.metaDescription) page.metaDescription = collapse(content);
  } else if (name.startsWith("og:") && name.length > 3) {
    const key = name.slice(3);
    if (key !== "__proto__" && !Object.hasOwn(page.openGraph, key)) page.openGraph[key] = collapse(content);
  }
}

const hasToken = (list: string | undefined, token: string): boolean =>
  list !== undefined && list.toLowerCase().split(/\s+/).includes(token);
