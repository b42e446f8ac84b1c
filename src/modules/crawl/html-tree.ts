import type { DefaultTreeAdapterTypes } from "parse5";

/**
 * One pass over a parsed page that keeps only strings. The walker is written
 * against a tiny adapter so the parse5 tree (HTML, the hot path) and jsdom's DOM
 * (XHTML, which needs an XML parser) share the same rules.
 */
export interface TreeAdapter<N> {
  /** Lower-case local name of an element; undefined for any other node. */
  elementName(node: N): string | undefined;
  /** Character data of a text or CDATA node; undefined for any other node. */
  textOf(node: N): string | undefined;
  attr(node: N, name: string): string | undefined;
  hasAttributes(node: N): boolean;
  children(node: N): ArrayLike<N>;
}

type P5Node = DefaultTreeAdapterTypes.Node;
const NO_CHILDREN: readonly P5Node[] = [];

export const parse5Adapter: TreeAdapter<P5Node> = {
  elementName: (node) => ("tagName" in node ? node.tagName : undefined),
  textOf: (node) => (node.nodeName === "#text" ? (node as DefaultTreeAdapterTypes.TextNode).value : undefined),
  attr(node, name) {
    if (!("attrs" in node)) return undefined;
    for (const attribute of node.attrs) if (attribute.name === name) return attribute.value;
    return undefined;
  },
  hasAttributes: (node) => "attrs" in node && node.attrs.length > 0,
  children: (node) => ("childNodes" in node ? node.childNodes : NO_CHILDREN),
};

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

export const domAdapter: TreeAdapter<Node> = {
  elementName: (node) => (node.nodeType === ELEMENT_NODE ? (node as Element).localName.toLowerCase() : undefined),
  textOf: (node) => (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE ? (node.nodeValue ?? "") : undefined),
  attr: (node, name) => (node as Element).getAttribute(name) ?? undefined,
  hasAttributes: (node) => node.nodeType === ELEMENT_NODE && (node as Element).hasAttributes(),
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

/** Subtrees whose text a reader never sees. `head` is walked for its metadata only. */
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"]);
const BLOCKS = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt",
  "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li",
  "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "thead", "tfoot", "tr", "ul", "option",
  "legend", "menu",
]);
const CELLS = new Set(["td", "th"]);
/** Inside these, a header or footer belongs to the content, not to the site chrome (the HTML "banner" rule). */
const SECTIONING = new Set(["article", "aside", "main", "section"]);
const HEADINGS: Record<string, 1 | 2 | 3> = { h1: 1, h2: 2, h3: 3 };

/** Block boundaries are marked with NUL, which parse5 never leaves in text, then become newlines. */
const BREAK = "\u0000";
const DISPLAY_NONE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

export function collapse(raw: string): string {
  return raw.replace(/\s+/g, " ").replace(/ ?\u0000[\u0000 ]*/g, "\n").trim();
}

const ON_EXIT_BREAK = 1;
const ON_EXIT_CELL = 2;
const ON_EXIT_HIDDEN = 4;
const ON_EXIT_BOILERPLATE = 8;
const ON_EXIT_NAV = 16;
const ON_EXIT_SECTIONING = 32;
const ON_EXIT_HEADING = 64;
const ON_EXIT_LINK = 128;

/** Walks the tree iteratively (malformed pages can nest thousands deep) and returns plain data only. */
export function walkTree<N>(root: N, tree: TreeAdapter<N>): RawPage {
  const page: RawPage = {
    title: "", metaDescription: "", openGraph: {}, lang: undefined, baseHref: undefined, canonicalHref: undefined,
    refreshContent: undefined, jsonLdSources: [], headings: [], text: "", boilerplate: [], links: [], timeValues: [],
  };
  let titleSeen = false;
  let hidden = 0;
  let boilerplateDepth = 0;
  let navDepth = 0;
  let sectioning = 0;
  const main: string[] = [];
  let mainLength = 0;
  let block: string[] = [];
  let blockLength = 0;
  let heading: { level: 1 | 2 | 3; parts: string[] } | undefined;
  let link: { href: string; parts: string[]; alt: string; inNav: boolean } | undefined;

  const emit = (value: string): void => {
    if (hidden > 0) return;
    if (boilerplateDepth > 0) {
      if (blockLength < MAX_BOILERPLATE_BLOCK) {
        block.push(value);
        blockLength += value.length;
      }
      return;
    }
    if (mainLength < MAX_RAW_TEXT) {
      main.push(value);
      mainLength += value.length;
    }
    heading?.parts.push(value);
  };
  const textOfChildren = (node: N): string => {
    const kids = tree.children(node);
    let out = "";
    for (let i = 0; i < kids.length; i++) out += tree.textOf(kids[i] as N) ?? "";
    return out;
  };

  /** Handles an element on the way in; returns the exit flags, or -1 to skip its subtree. */
  const enter = (node: N, name: string): number => {
    switch (name) {
      case "title":
        if (!titleSeen) page.title = collapse(textOfChildren(node));
        titleSeen = true;
        return -1;
      case "script":
        if (/^\s*application\/ld\+json\s*(?:;|$)/i.test(tree.attr(node, "type") ?? "")) page.jsonLdSources.push(textOfChildren(node));
        return -1;
      case "base":
        page.baseHref ??= tree.attr(node, "href");
        return -1;
      case "meta":
        readMeta(node, tree, page);
        return -1;
      case "link":
        if (page.canonicalHref === undefined && hasToken(tree.attr(node, "rel"), "canonical")) page.canonicalHref = tree.attr(node, "href");
        return -1;
    }
    if (SKIPPED.has(name)) return -1;
    let flags = 0;
    // `head` is walked for its metadata only: nothing in it is visible text.
    if (hidden === 0 && (name === "head" || (tree.hasAttributes(node) && isHidden(node, tree)))) {
      flags |= ON_EXIT_HIDDEN;
      hidden++;
    }
    switch (name) {
      case "html":
        page.lang ??= tree.attr(node, "lang") || tree.attr(node, "xml:lang") || undefined;
        break;
      case "time": {
        const datetime = hidden === 0 ? tree.attr(node, "datetime") : undefined;
        if (datetime) page.timeValues.push(datetime);
        break;
      }
      case "br":
        emit(BREAK);
        if (link) link.parts.push(" ");
        break;
      case "img":
        if (link) link.alt ||= tree.attr(node, "alt") ?? "";
        break;
      case "a":
      case "area": {
        const href = tree.attr(node, "href");
        if (href === undefined || link || page.links.length >= MAX_LINKS) break;
        const inNav = navDepth > 0;
        if (name === "area") {
          page.links.push({ href, text: (tree.attr(node, "alt") ?? "").trim().slice(0, MAX_LINK_TEXT), inNav });
        } else {
          link = { href, parts: [], alt: "", inNav };
          flags |= ON_EXIT_LINK;
        }
        break;
      }
    }
    const role = tree.hasAttributes(node) ? tree.attr(node, "role") : undefined;
    const isNav = name === "nav" || role === "navigation";
    const isChrome = isNav || role === "banner" || role === "contentinfo" || ((name === "header" || name === "footer") && sectioning === 0);
    if (isChrome) {
      if (boilerplateDepth === 0) {
        block = [];
        blockLength = 0;
      }
      boilerplateDepth++;
      flags |= ON_EXIT_BOILERPLATE;
      if (isNav || name === "header" || role === "banner") {
        navDepth++;
        flags |= ON_EXIT_NAV;
      }
    }
    if (SECTIONING.has(name)) {
      sectioning++;
      flags |= ON_EXIT_SECTIONING;
    }
    const level = HEADINGS[name];
    if (level !== undefined && !heading && boilerplateDepth === 0 && hidden === 0) {
      heading = { level, parts: [] };
      flags |= ON_EXIT_HEADING;
    }
    if (BLOCKS.has(name)) {
      emit(BREAK);
      flags |= ON_EXIT_BREAK;
    } else if (CELLS.has(name)) {
      emit(" ");
      flags |= ON_EXIT_CELL;
    }
    return flags;
  };

  const exit = (flags: number): void => {
    if (flags & ON_EXIT_BREAK) emit(BREAK);
    if (flags & ON_EXIT_CELL) emit(" ");
    if (flags & ON_EXIT_LINK && link) {
      const text = collapse(link.parts.join("")) || link.alt.trim();
      page.links.push({ href: link.href, text: text.slice(0, MAX_LINK_TEXT), inNav: link.inNav });
      link = undefined;
    }
    if (flags & ON_EXIT_HEADING && heading) {
      const text = collapse(heading.parts.join("")).replace(/\n/g, " ");
      if (text) page.headings.push({ level: heading.level, text });
      heading = undefined;
    }
    if (flags & ON_EXIT_SECTIONING) sectioning--;
    if (flags & ON_EXIT_NAV) navDepth--;
    if (flags & ON_EXIT_BOILERPLATE && --boilerplateDepth === 0) {
      const text = collapse(block.join(""));
      if (text && page.boilerplate.length < MAX_BOILERPLATE_BLOCKS) page.boilerplate.push(text);
      block = [];
    }
    if (flags & ON_EXIT_HIDDEN) hidden--;
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
        if (link) link.parts.push(text);
      }
      continue;
    }
    const flags = enter(child, name);
    if (flags < 0) continue;
    nodes.push(child);
    indexes.push(0);
    exits.push(flags);
  }

  page.text = collapse(main.join("")).slice(0, MAX_TEXT);
  return page;
}

function isHidden<N>(node: N, tree: TreeAdapter<N>): boolean {
  if (tree.attr(node, "hidden") !== undefined) return true;
  if (tree.attr(node, "aria-hidden")?.trim().toLowerCase() === "true") return true;
  const style = tree.attr(node, "style");
  return style !== undefined && DISPLAY_NONE.test(style);
}

function readMeta<N>(node: N, tree: TreeAdapter<N>, page: RawPage): void {
  const content = tree.attr(node, "content");
  if (content === undefined) return;
  const equiv = tree.attr(node, "http-equiv")?.trim().toLowerCase();
  if (equiv === "refresh") {
    page.refreshContent ??= content;
    return;
  }
  const name = (tree.attr(node, "property") ?? tree.attr(node, "name") ?? "").trim().toLowerCase();
  if (name === "description") {
    if (!page.metaDescription) page.metaDescription = collapse(content);
  } else if (name.startsWith("og:") && name.length > 3) {
    const key = name.slice(3);
    if (!(key in page.openGraph)) page.openGraph[key] = collapse(content);
  }
}

const hasToken = (list: string | undefined, token: string): boolean =>
  list !== undefined && list.toLowerCase().split(/\s+/).includes(token);
