import { createHash } from "node:crypto";
import { detectBotWall, mayBeWall, type BotWall } from "./bot-wall.js";
import type { ExtractedPage } from "./crawl.types.js";
import { decodeBody } from "./decode.js";
import { readPage } from "./extract.js";
import { FetchFailure, type Fetched, type Fetcher } from "./fetcher.js";
import type { RenderSession } from "./render/render-session.js";
import { RenderFailure } from "./render/render-session.js";
import type { Renderer } from "./render/renderer.js";
import { needsBrowser } from "./shell.js";
import type { SiteRules } from "./site-rules.js";
import { canonicalUrl, splitRoute } from "./url.js";

/**
 * How one crawl reads a page: HTTP first, always (the status, the headers, the
 * robots rules and the cheap case); the HTML is extracted, checked for a bot wall,
 * and, only when it is a shell whose words a browser writes, rendered in the
 * crawl's browser context and extracted again from the DOM (docs/api.md §12). A page
 * whose HTML carries its content never reaches the browser.
 */

/** A bot wall where the page should be: never read as the page. */
export class WallFailure extends FetchFailure {
  constructor(
    readonly wall: BotWall,
    url: string,
  ) {
    super("http", `blocked by ${wall.vendor} (${wall.kind}, HTTP ${wall.status})`, url);
    this.name = "WallFailure";
  }
}

/** A shell that needs a browser, and there is none (or its budget is spent). */
export class ShellFailure extends FetchFailure {
  constructor(
    readonly why: "no browser" | "budget" | "render",
    reason: string,
    url: string,
  ) {
    super("not_html", reason, url);
    this.name = "ShellFailure";
  }
}

export interface FetchedPage {
  /** Undefined when the body was recognised as one already read (see `alreadyRead`): it was not extracted. */
  readonly page: ExtractedPage | undefined;
  /** The page's canonical address (what `page.url` is, extracted or not). */
  readonly url: string;
  /** The address the body was served from, after redirects, as fetched (a folder keeps its "/"). */
  readonly servedFrom: string;
  /**
   * A digest of what the page's title and text are made from: kind, Content-Type and bytes (the address,
   * status and other headers change other fields only, which a page already read is never asked for).
   * Undefined for a rendered page: one shell serves every route of an app, each drawn differently.
   */
  readonly body: string | undefined;
}

export type ExtractedFetch = FetchedPage & { readonly page: ExtractedPage };

export class PageReader {
  private session: RenderSession | undefined;
  /** The site builds its pages in the browser: its home page was a shell. */
  appSite = false;

  constructor(
    private readonly fetcher: Fetcher,
    private readonly renderer: Renderer,
    private readonly userAgent: string,
    private readonly signal: AbortSignal,
  ) {}

  /** Pages drawn by the browser so far. */
  get rendered(): number {
    return this.session?.pagesRendered ?? 0;
  }

  /**
   * Reads `url` over HTTP, and in the browser when it is a shell. `home`: the page
   * that decides whether the site is an app. `alreadyRead`: a body digest seen
   * before, whose page is not extracted again.
   */
  async read(
    url: string,
    options: { home?: boolean; alreadyRead?: (body: string) => boolean } = {},
  ): Promise<FetchedPage> {
    // A hash route is a page only a browser can show: the server sends the app's shell for any of them.
    if (splitRoute(url).route !== undefined) return this.render(url, {});
    const fetched: Fetched = await this.fetcher.fetch(url, { expect: "page", signal: this.signal });
    const kind = fetched.kind ?? "html";
    const contentType = headerValue(fetched.headers["content-type"]);
    if (fetched.status >= 400) {
      if (!mayBeWall(fetched.status, fetched.headers)) throw new FetchFailure("http", `HTTP ${fetched.status}`, url);
      const { text } = decodeBody(fetched.body, contentType, kind);
      const { page } = readPage({
        url: fetched.url,
        status: fetched.status,
        body: text,
        kind,
        headers: fetched.headers,
      });
      const wall = detectBotWall({
        status: fetched.status,
        headers: fetched.headers,
        title: page.title,
        text: page.text,
        html: text,
      });
      if (wall) throw new WallFailure(wall, url);
      throw new FetchFailure("http", `HTTP ${fetched.status}`, url);
    }
    const body = createHash("sha256")
      .update(`${kind}\u0000${contentType ?? ""}\u0000`)
      .update(fetched.body)
      .digest("base64");
    if (options.alreadyRead?.(body)) {
      // The same turn of the event loop as an extraction, so the crawl's order is the one it would have been.
      await yieldTurn();
      return { page: undefined, url: canonicalUrl(fetched.url) ?? fetched.url, servedFrom: fetched.url, body };
    }
    const { text } = decodeBody(fetched.body, contentType, kind);
    // Links resolve against the URL exactly as served (`/docs/` vs `/docs` differ); extraction canonicalises its own.
    const { page, scripting } = readPage({
      url: fetched.url,
      status: fetched.status,
      body: text,
      kind,
      headers: fetched.headers,
    });
    const wall = detectBotWall({
      status: fetched.status,
      headers: fetched.headers,
      title: page.title,
      text: page.text,
      html: text,
    });
    if (wall) throw new WallFailure(wall, url);
    // Let the event loop breathe between CPU-bound extractions.
    await yieldTurn();
    if (!needsBrowser(page, scripting, this.appSite || options.home === true))
      return { page, url: page.url, servedFrom: fetched.url, body };
    if (options.home) this.appSite = true;
    return this.render(fetched.url, fetched.headers);
  }

  /**
   * Reaches a client-side route the server does not answer (a static host's 404 for
   * "/pricing" of an app routed in the browser) the way a reader does: from the
   * page that links to it, by following the link inside the app.
   */
  async readInApp(url: string, from: string, href: string): Promise<FetchedPage> {
    return this.render(url, {}, { from, href });
  }

  async close(): Promise<void> {
    await this.session?.close();
  }

  private async render(
    url: string,
    headers: Fetched["headers"],
    via?: { from: string; href: string },
  ): Promise<FetchedPage> {
    if (!this.renderer.available) {
      throw new ShellFailure("no browser", "built in the browser, and no browser is available to read it", url);
    }
    this.session ??= this.renderer.openSession(this.userAgent);
    let document;
    try {
      document = await this.session.render(url, { signal: this.signal, ...(via ? { via } : {}) });
    } catch (error) {
      if (error instanceof RenderFailure) {
        if (error.kind === "aborted") throw new FetchFailure("aborted", "crawl time budget ended", url);
        throw new ShellFailure(error.kind === "budget" ? "budget" : "render", `not rendered: ${error.reason}`, url);
      }
      throw error;
    }
    const { page } = readPage({
      url: document.url,
      status: document.status,
      body: document.html,
      kind: "html",
      headers,
      rendered: true,
    });
    const wall = detectBotWall({
      status: document.status,
      headers,
      title: page.title,
      text: page.text,
      html: document.html,
    });
    if (wall) throw new WallFailure(wall, url);
    if (document.status >= 400) throw new FetchFailure("http", `HTTP ${document.status}`, url);
    await yieldTurn();
    return { page, url: page.url, servedFrom: document.url, body: undefined };
  }
}

/**
 * A folder link ("/careers/") is fetched as written; when the server has no such
 * folder but has the page without the slash (a 404 at "/careers/", a page at
 * "/careers"), the slashless address is read instead, as a lenient host would.
 */
export async function readPageOrFolder(
  reader: PageReader,
  url: string,
  rules: SiteRules,
  alreadyRead: (body: string) => boolean,
): Promise<FetchedPage> {
  try {
    return await reader.read(url, { alreadyRead });
  } catch (error) {
    const bare = canonicalUrl(url);
    if (!(error instanceof FetchFailure && error.reason === "HTTP 404") || bare === undefined || bare === url)
      throw error;
    if (!(await rules.allows(bare))) throw error;
    await rules.waitTurn(bare);
    return reader.read(bare, { alreadyRead });
  }
}

const yieldTurn = () => new Promise((resolve) => setImmediate(resolve));

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
