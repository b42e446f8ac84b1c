import type { BrowserContext, CDPSession, Dialog, Download, Frame, Page, Request } from "playwright-core";
import type { BrowserRenderer } from "./renderer.js";

/**
 * One crawl's rendering: a browser context of its own (no cookies, storage or
 * cache shared with another crawl), addresses rendered under the per-page and
 * per-crawl limits, and nothing a page opens kept alive: popups are closed,
 * dialogs dismissed, downloads refused, images, media and fonts never fetched.
 *
 * A browser tab is reused from one address to the next (measured: a fresh tab per
 * address cost ~250 ms of a 110 ms render); a tab that timed out, crashed, looped
 * or was cut off is closed, never reused. Blocking is done without request
 * interception, which would switch off the HTTP cache and fetch an app's bundles
 * again for every page: images by Blink's setting, remote fonts by a switch
 * (renderer.ts), media by URL in each tab.
 */

export interface RenderedDocument {
  /** Where the page ended up (after redirects, `location` changes and client-side routing), fragment included. */
  readonly url: string;
  /** The status of the document's answer (200 when routed in the app). */
  readonly status: number;
  /** The DOM after the page's scripts ran, serialised. */
  readonly html: string;
}

export type RenderFailureKind =
  "timeout" | "crashed" | "memory" | "navigation" | "budget" | "unavailable" | "aborted" | "failed";

/** A page that could not be rendered; `reason` is short and safe to show the caller. */
export class RenderFailure extends Error {
  constructor(
    readonly kind: RenderFailureKind,
    readonly reason: string,
  ) {
    super(reason);
    this.name = "RenderFailure";
  }
}

/** What a page can pull that never changes its words: images and fonts are off in the browser itself, media by address. */
const BLOCKED_TYPES = new Set(["image", "media", "font", "texttrack"]);
const MEDIA_URLS = [
  "mp4",
  "webm",
  "ogv",
  "ogg",
  "mp3",
  "m4a",
  "aac",
  "wav",
  "flac",
  "mov",
  "m3u8",
  "mpd",
  "vtt",
  "woff",
  "woff2",
  "ttf",
  "otf",
  "eot",
].flatMap((extension) => [`*.${extension}`, `*.${extension}?*`]);
/** Requests that stay open by design: they never count against the network going quiet. */
const STREAMING_TYPES = new Set(["eventsource", "websocket"]);

/**
 * Runs before any script of every frame: what a page could use to annoy or escape
 * a reader gets nothing. Dialogs return at once (a loop of alerts costs nothing),
 * window.open opens nothing, WebRTC (UDP, which no proxy sees) does not exist,
 * service workers cannot register.
 */
const HARDENING = `(() => {
  const define = (target, name, value) => { try { Object.defineProperty(target, name, { value, configurable: false, writable: false }); } catch {} };
  define(window, "open", () => null);
  define(window, "alert", () => undefined);
  define(window, "confirm", () => false);
  define(window, "prompt", () => null);
  define(window, "print", () => undefined);
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCSessionDescription", "RTCIceCandidate"]) define(window, name, undefined);
  try { if (navigator.serviceWorker) Object.defineProperty(navigator, "serviceWorker", { get: () => undefined, configurable: false }); } catch {}
  try { if (window.Notification) define(Notification, "requestPermission", () => Promise.resolve("denied")); } catch {}
})();`;

/** How long closing a tab or a context may take before the browser is taken for stuck and restarted. */
const CLOSE_TIMEOUT_MS = 5_000;
/** How long opening a tab or a context may take. */
const OPEN_TIMEOUT_MS = 15_000;

/**
 * `promise`, or `undefined` once `ms` have passed: a browser call that never answers
 * (a renderer stuck in a loop, a browser under memory pressure) cannot hold a crawl.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export class RenderSession {
  private context: Promise<BrowserContext> | undefined;
  /** Pages this session asked for and the context has not announced yet. */
  private expecting = 0;
  /** Tabs that rendered cleanly, ready for the next address. */
  private readonly idle: Page[] = [];
  /** Each tab's DevTools session: how a tab stuck in a script is stopped at once (Page.crash). */
  private readonly devtools = new WeakMap<Page, CDPSession>();
  private closed = false;
  /** Pages rendered and page-milliseconds spent, against the crawl's render budget. */
  pagesRendered = 0;
  msRendered = 0;

  constructor(
    private readonly renderer: BrowserRenderer,
    private readonly userAgent: string,
    private readonly onClose: () => void,
  ) {}

  /**
   * Renders `url` (a hash route included) and answers its DOM. `via`: reach it as a
   * reader would, by following the link `href` on the page at `from` inside the app,
   * for client-side routes the server does not answer (a static host's 404).
   */
  async render(
    url: string,
    options: { signal?: AbortSignal; via?: { from: string; href: string } } = {},
  ): Promise<RenderedDocument> {
    const { limits } = this.renderer;
    if (this.closed) throw new RenderFailure("aborted", "the crawl ended");
    if (this.pagesRendered >= limits.crawlPages || this.msRendered >= limits.crawlSeconds * 1000) {
      throw new RenderFailure("budget", "the crawl's rendering budget was spent");
    }
    let release: () => void;
    try {
      release = await this.renderer.pages.acquire(options.signal);
    } catch {
      throw new RenderFailure("aborted", "the crawl ended");
    }
    const started = performance.now();
    this.pagesRendered += 1;
    try {
      const context = await this.contextReady();
      return await this.renderPage(context, url, options);
    } finally {
      this.msRendered += performance.now() - started;
      release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const context = this.context;
    this.context = undefined;
    try {
      const open = context
        ? await within(
            context.catch(() => undefined),
            CLOSE_TIMEOUT_MS,
          )
        : undefined;
      if (
        open &&
        (await within(
          open.close().then(
            () => true,
            () => true,
          ),
          CLOSE_TIMEOUT_MS,
        )) === undefined
      ) {
        this.renderer.restart("a crawl's browser context would not close");
      }
    } finally {
      this.onClose();
    }
  }

  private contextReady(): Promise<BrowserContext> {
    this.context ??= this.openContext().catch((error: unknown) => {
      this.context = undefined;
      throw new RenderFailure(
        "unavailable",
        `the browser could not be started (${(error as Error).message.split("\n")[0]})`,
      );
    });
    return this.context;
  }

  private async openContext(): Promise<BrowserContext> {
    const context = await within(this.renderer.newContext(this.userAgent), OPEN_TIMEOUT_MS);
    if (!context) {
      this.renderer.restart("the browser did not open a context in time");
      throw new Error("the browser did not open a context in time");
    }
    await context.addInitScript({ content: HARDENING });
    // A page the crawl did not open (a popup, a target=_blank link) is closed at once. Ours are announced
    // before newPage() returns them, so they are told apart by being expected and having no opener.
    context.on("page", (page) => {
      const expected = this.expecting > 0;
      if (expected) this.expecting -= 1;
      void page.opener().then(
        (opener) => {
          if (opener || !expected) void page.close().catch(() => undefined);
        },
        () => undefined,
      );
    });
    return context;
  }

  /** An idle tab of this crawl, or a new one with media blocked. */
  private async tab(context: BrowserContext): Promise<Page> {
    const reused = this.idle.pop();
    if (reused && !reused.isClosed()) return reused;
    this.expecting += 1;
    const opened = await within(
      (async () => {
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send("Network.setBlockedURLs", { urls: MEDIA_URLS });
        this.devtools.set(page, cdp);
        return page;
      })(),
      OPEN_TIMEOUT_MS,
    );
    if (!opened) {
      this.renderer.restart("the browser did not open a tab in time");
      throw new RenderFailure("crashed", "the browser did not open a tab in time");
    }
    return opened;
  }

  private async renderPage(
    context: BrowserContext,
    url: string,
    options: { signal?: AbortSignal; via?: { from: string; href: string } },
  ): Promise<RenderedDocument> {
    const { limits } = this.renderer;
    const page = await this.tab(context);
    const network = new NetworkQuiet(page, BLOCKED_TYPES);
    let failure: RenderFailure | undefined;
    let navigations = 0;
    const stop = (reason: RenderFailure) => {
      failure ??= reason;
      // A script that never yields (while (true)) would keep a graceful close waiting on its renderer:
      // the renderer is crashed first (handled off its main thread), then the tab is closed.
      void this.devtools
        .get(page)
        ?.send("Page.crash")
        .catch(() => undefined);
      void page.close().catch(() => undefined);
    };
    // Leaving a page is allowed (accept), anything else a page asks is refused (dismiss).
    const onDialog = (dialog: Dialog) =>
      void (dialog.type() === "beforeunload" ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
    const onDownload = (download: Download) => void download.cancel().catch(() => undefined);
    const onCrash = () => stop(new RenderFailure("crashed", "the page crashed (it may have used too much memory)"));
    const onNavigated = (frame: Frame) => {
      if (frame === page.mainFrame() && ++navigations > limits.maxNavigations)
        stop(
          new RenderFailure(
            "navigation",
            `the page navigated more than ${limits.maxNavigations} times (a redirect loop)`,
          ),
        );
    };
    page.on("dialog", onDialog);
    page.on("download", onDownload);
    page.on("crash", onCrash);
    page.on("framenavigated", onNavigated);
    const timer = setTimeout(
      () =>
        stop(new RenderFailure("timeout", `the page did not finish rendering within ${limits.pageTimeoutMs / 1000} s`)),
      limits.pageTimeoutMs,
    );
    const onAbort = () => stop(new RenderFailure("aborted", "the crawl ended"));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let clean = false;
    try {
      const entry = options.via?.from ?? url;
      const response = await page.goto(entry, { waitUntil: "load", timeout: limits.pageTimeoutMs });
      await network.settle(limits.settleQuietMs, limits.settleMaxMs);
      if (options.via) {
        await followInApp(page, options.via.href, url);
        await network.settle(limits.settleQuietMs, limits.settleMaxMs);
      }
      const html = await page.content();
      if (failure) throw failure;
      clean = true;
      // A same-document move (a hash route in a tab already on the app) has no answer of its own.
      return { url: page.url(), status: options.via ? 200 : (response?.status() ?? 200), html };
    } catch (error) {
      if (failure) throw failure;
      if (error instanceof RenderFailure) throw error;
      const message = (error as Error).message ?? "";
      if (/crash/i.test(message))
        throw new RenderFailure("crashed", "the page crashed (it may have used too much memory)");
      if (/closed|disconnected/i.test(message))
        throw new RenderFailure("crashed", "the browser closed while rendering the page");
      if (/timeout/i.test(message))
        throw new RenderFailure("timeout", `the page did not finish rendering within ${limits.pageTimeoutMs / 1000} s`);
      throw new RenderFailure(
        "failed",
        `the page could not be rendered (${message
          .split("\n")[0]
          ?.replace(/^page\.\w+: /, "")
          .slice(0, 120)})`,
      );
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      network.dispose();
      page.off("dialog", onDialog);
      page.off("download", onDownload);
      page.off("crash", onCrash);
      page.off("framenavigated", onNavigated);
      // Only a tab that rendered cleanly serves the next address; any other is closed with what it was doing.
      if (clean && !this.closed && !page.isClosed()) this.idle.push(page);
      else if (
        (await within(
          page.close().then(
            () => true,
            () => true,
          ),
          CLOSE_TIMEOUT_MS,
        )) === undefined
      ) {
        this.renderer.restart("a tab would not close");
      }
    }
  }
}

/**
 * Clicks the app's own link to `href` (hidden menus included: a click event, not a
 * pointer), or, when the app renders no such link, pushes the address and tells the
 * router; then waits for the address to become `target`.
 */
async function followInApp(page: Page, href: string, target: string): Promise<void> {
  await page.evaluate(`(${FOLLOW_LINK})(${JSON.stringify(href)}, ${JSON.stringify(target)})`);
  const wanted = new URL(target).href;
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline && stripSlash(page.url()) !== stripSlash(wanted)) await page.waitForTimeout(25);
  if (stripSlash(page.url()) !== stripSlash(wanted))
    throw new RenderFailure("failed", "the app did not route to the page");
}

/** Runs in the page (as source: this project's TypeScript has no DOM types). */
const FOLLOW_LINK = `(href, target) => {
  const wanted = new URL(target, location.href).href;
  const anchors = Array.from(document.querySelectorAll("a[href]"));
  const anchor = anchors.find((a) => a.getAttribute("href") === href) || anchors.find((a) => a.href === wanted);
  if (anchor) {
    anchor.removeAttribute("target");
    anchor.click();
    return;
  }
  history.pushState(null, "", wanted);
  dispatchEvent(new PopStateEvent("popstate", { state: null }));
}`;

const stripSlash = (url: string) => url.replace(/\/(?=$|[?#])/, "");

/** Counts the page's requests in flight; `settle` waits until none has been for `quietMs`. */
class NetworkQuiet {
  private inFlight = 0;
  private lastChange = performance.now();
  private readonly onRequest = (request: Request) => {
    if (this.counts(request)) this.change(+1);
  };
  private readonly onDone = (request: Request) => {
    if (this.counts(request)) this.change(-1);
  };

  constructor(
    private readonly page: Page,
    private readonly blocked: ReadonlySet<string>,
  ) {
    page.on("request", this.onRequest);
    page.on("requestfinished", this.onDone);
    page.on("requestfailed", this.onDone);
  }

  async settle(quietMs: number, maxMs: number): Promise<void> {
    const deadline = performance.now() + maxMs;
    for (;;) {
      const now = performance.now();
      if (now >= deadline || (this.inFlight <= 0 && now - this.lastChange >= quietMs)) return;
      await new Promise((resolve) =>
        setTimeout(resolve, this.inFlight <= 0 ? Math.max(5, quietMs - (now - this.lastChange)) : 25),
      );
    }
  }

  dispose(): void {
    this.page.off("request", this.onRequest);
    this.page.off("requestfinished", this.onDone);
    this.page.off("requestfailed", this.onDone);
  }

  private counts(request: Request): boolean {
    const type = request.resourceType();
    return !this.blocked.has(type) && !STREAMING_TYPES.has(type);
  }

  private change(by: number): void {
    this.inFlight = Math.max(0, this.inFlight + by);
    this.lastChange = performance.now();
  }
}
