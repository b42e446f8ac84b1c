import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Browser, BrowserContext } from "playwright-core";
import type { AddressGuard } from "../address-guard.js";
import { browserVersion, type BrowserLocation } from "../../../platform/browser-locator.js";
import { GuardedProxy } from "./guarded-proxy.js";
import { browserProcesses } from "./process-memory.js";
import { RenderSession } from "./render-session.js";

/**
 * Headless Chromium for pages whose HTML is a shell (docs/api.md §12). One browser
 * per process, launched the first time a crawl needs it (a process that never
 * meets a shell never starts one), closed after a minute unused, and started
 * again when it crashed or grew past its memory ceiling. Each crawl gets its own
 * browser context (RenderSession); every connection any page opens goes through
 * the GuardedProxy, so the crawler's address guard judges it where it is made.
 */

export interface RenderLimits {
  /** Wall-clock limit of one page: load, scripts, data, and reading it back. */
  readonly pageTimeoutMs: number;
  /** After `load`, how long the network must stay quiet for the page to count as drawn. */
  readonly settleQuietMs: number;
  /** The longest a page may keep the network busy after `load` before it is read as it stands. */
  readonly settleMaxMs: number;
  /** Render budget of one crawl: pages … */
  readonly crawlPages: number;
  /** … and page-seconds (the sum of each page's render time). */
  readonly crawlSeconds: number;
  /** Pages rendered at once in this process, across crawls. */
  readonly pagesAtOnce: number;
  /** A renderer process (one page's) above this resident size is killed: its page fails, the crawl goes on. */
  readonly rendererMemoryMb: number;
  /** The whole browser above this is restarted as soon as no crawl is using it. */
  readonly browserMemoryMb: number;
  /** Main-frame navigations one page may make (redirects and `location` changes) before it is given up. */
  readonly maxNavigations: number;
  /** An unused browser is closed after this long. */
  readonly idleCloseMs: number;
}

export const defaultRenderLimits: RenderLimits = {
  pageTimeoutMs: 15_000,
  settleQuietMs: 75,
  settleMaxMs: 4_000,
  crawlPages: 25,
  crawlSeconds: 120,
  pagesAtOnce: 2,
  rendererMemoryMb: 512,
  browserMemoryMb: 1_536,
  maxNavigations: 10,
  idleCloseMs: 60_000,
};

export interface RendererStatus {
  readonly available: boolean;
  /** "Chromium 156.0.8078.108", when the binary answered. */
  readonly version?: string;
  readonly path?: string;
  readonly source?: BrowserLocation["source"];
}

export interface Renderer {
  /** Whether a browser was found: without one, shell sites cannot be read. */
  readonly available: boolean;
  status(): Promise<RendererStatus>;
  /** A context for one crawl; nothing is launched until its first page. */
  openSession(userAgent: string): RenderSession;
  close(): Promise<void>;
}

/** Rendering switched off: no browser was found (or CHROMIUM_PATH=off). */
export const noRenderer: Renderer = {
  available: false,
  status: async () => ({ available: false }),
  openSession: () => {
    throw new Error("no browser to render with");
  },
  close: async () => undefined,
};

/** Restart reasons the renderer records itself (others come from a stuck session, in its own words). */
export const PAST_MEMORY_CEILING = "the browser grew past its memory ceiling";
export const BROWSER_WENT_AWAY = "the browser went away (crashed or was killed)";

/** Blocks one page at a time beyond `size`, across every crawl of the process. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(wake);
          if (at !== -1) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiting.push(wake);
      });
    } else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}

export class BrowserRenderer implements Renderer {
  readonly available = true;
  readonly limits: RenderLimits;
  readonly pages: Semaphore;
  /** Command-line marker that finds this browser's processes in /proc. */
  private readonly marker = `--pms-renderer=${randomBytes(6).toString("hex")}`;
  private readonly proxy: GuardedProxy;
  private proxyUrl: Promise<string> | undefined;
  private browser: Promise<Browser> | undefined;
  private readonly sessions = new Set<RenderSession>();
  private watchdog: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private restartWhenIdle = false;
  private versionText: Promise<string | undefined> | undefined;
  private closed = false;
  /** Launches so far (restarts after a crash or the ceiling add one each), for health and tests. */
  launches = 0;
  /** Why the browser was restarted or went away, oldest first (the last 20), for logs and tests. */
  readonly restarts: string[] = [];

  constructor(
    private readonly location: BrowserLocation,
    guard: AddressGuard,
    private readonly logger: Pick<Logger, "warn" | "info" | "debug">,
    limits: Partial<RenderLimits> = {},
  ) {
    this.limits = { ...defaultRenderLimits, ...limits };
    this.pages = new Semaphore(this.limits.pagesAtOnce);
    this.proxy = new GuardedProxy(guard, {
      onRefused: ({ target, reason }) =>
        this.logger.debug({ target, reason }, "a rendered page's connection was refused"),
    });
  }

  async status(): Promise<RendererStatus> {
    this.versionText ??= browserVersion(this.location.path);
    const version = await this.versionText;
    return { available: true, path: this.location.path, source: this.location.source, ...(version ? { version } : {}) };
  }

  openSession(userAgent: string): RenderSession {
    if (this.closed) throw new Error("the renderer is closed");
    clearTimeout(this.idleTimer);
    const session = new RenderSession(this, userAgent, () => this.sessionEnded(session));
    this.sessions.add(session);
    this.watch();
    return session;
  }

  /** A fresh context on the running browser (launched or relaunched as needed). */
  async newContext(userAgent: string): Promise<BrowserContext> {
    const browser = await this.running();
    return browser.newContext({
      userAgent,
      acceptDownloads: false,
      serviceWorkers: "block",
      javaScriptEnabled: true,
      ignoreHTTPSErrors: false,
      viewport: { width: 1280, height: 900 },
      locale: "en-US",
      extraHTTPHeaders: { "accept-language": "en" },
    });
  }

  /**
   * The browser is stuck (a tab or a context that will not close, a tab that will not open): every
   * process of it is killed, its pages fail as crashed, and the next page starts a new one.
   */
  restart(reason: string): void {
    const running = this.browser;
    this.browser = undefined;
    if (!running) return;
    this.noteRestart(reason);
    this.logger.warn({ reason }, "restarting the rendering browser");
    for (const process of this.processes()) {
      try {
        globalThis.process.kill(process.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    void running.then((browser) => browser.close()).catch(() => undefined);
  }

  private noteRestart(reason: string): void {
    this.restarts.push(reason);
    if (this.restarts.length > 20) this.restarts.shift();
  }

  /** Browser processes and their resident memory (Linux), for the ceilings and benchmarks. */
  processes() {
    return browserProcesses(this.marker);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    clearTimeout(this.idleTimer);
    this.watchdog = undefined;
    await Promise.allSettled([...this.sessions].map((session) => session.close()));
    await this.stopBrowser();
    // A browser stopped just before (idle, or past its ceiling) is waited for too: none outlives the renderer.
    await Promise.allSettled([...this.stopping]);
    await this.proxy.close();
  }

  private running(): Promise<Browser> {
    if (this.closed) return Promise.reject(new Error("the renderer is closed"));
    this.browser ??= this.launch().catch((error: unknown) => {
      this.browser = undefined;
      throw error;
    });
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    this.proxyUrl ??= this.proxy.start();
    const proxy = await this.proxyUrl;
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: this.location.path,
      headless: true,
      timeout: 30_000,
      // Playwright's own signal handlers would kill the browser before the process's drain.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: [
        this.marker,
        // Every connection through the guarded proxy, loopback included; the browser resolves no name itself.
        `--proxy-server=${proxy}`,
        "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        // UDP cannot go through an HTTP proxy: WebRTC may not send any, and QUIC is off.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--disable-quic",
        // No process per cross-site frame: bench:render peaked at 594-691 MB over 14 rounds with this and at
        // 602-803 MB without. Renderers are never shared between browser contexts, so one crawl's pages never
        // share a process with another crawl's; a crawl holds nothing worth isolating (no cookies, no sign-ins),
        // and its network is guarded either way. Tabs keep processes of their own (no renderer-process-limit):
        // a hostile page must not take its siblings down with it.
        "--disable-site-isolation-trials",
        // A renderer's JavaScript heap is capped; its young generation kept small (2 MB semi-spaces, not 16):
        // pages here run once and are read, and bench:render measured ~40 MB less at the peak, no slower.
        `--js-flags=--max-old-space-size=${Math.max(128, Math.floor(this.limits.rendererMemoryMb / 2))} --max-semi-space-size=2`,
        // Images and remote fonts are never fetched (the words are in the DOM either way); the hover and
        // pointer settings are those Playwright sets for headless, which this switch would otherwise replace.
        "--blink-settings=imagesEnabled=false,primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
        "--disable-remote-fonts",
        "--autoplay-policy=user-gesture-required",
        "--disable-dev-shm-usage",
        // No GPU: compositing in the browser process, no software rasterizer process (~15 MB less per browser).
        "--disable-gpu",
        "--in-process-gpu",
        "--disable-software-rasterizer",
        "--disable-extensions",
        "--mute-audio",
        "--no-first-run",
        "--disable-notifications",
        "--disable-speech-api",
        // Nothing of the browser's own: no updates, sync, safe-browsing or metrics calls (the proxy would refuse them anyway).
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--no-pings",
        // (SpareRendererForSitePerProcess: no renderer kept warm in advance, ~20 MB. BackForwardCache,
        // ProactivelySwapBrowsingInstance, RenderDocument: a tab moving to the site's next page does not keep the
        // old page cached for "back", nor swap processes to make that possible; a crawl never goes back.)
        "--disable-features=MediaRouter,OptimizationHints,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,SpareRendererForSitePerProcess,BackForwardCache,ProactivelySwapBrowsingInstance,RenderDocument",
      ],
    });
    this.launches += 1;
    browser.on("disconnected", () => {
      // Crashed or closed: the next page starts another. Pages in flight fail with the browser.
      if (this.browser) {
        this.noteRestart(BROWSER_WENT_AWAY);
        this.logger.warn("the rendering browser went away; the next page starts another");
      }
      this.browser = undefined;
    });
    this.logger.info({ path: this.location.path, launches: this.launches }, "rendering browser started");
    return browser;
  }

  /** Browsers being stopped, until they are gone. */
  private readonly stopping = new Set<Promise<void>>();

  private stopBrowser(): Promise<void> {
    // Never rejects: it is often not awaited (idle, past the ceiling), and a rejection nobody handles ends the process.
    const stopped = this.stopRunning()
      .catch((error: unknown) => this.logger.warn({ err: error }, "the rendering browser could not be stopped"))
      .finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
    return stopped;
  }

  private async stopRunning(): Promise<void> {
    const running = this.browser;
    this.browser = undefined;
    if (!running) return;
    const browser = await running.catch(() => undefined);
    if (!browser) return;
    const closed = await Promise.race([
      browser.close().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
    ]);
    if (!closed) {
      // A browser that will not close is killed, with every process of it.
      for (const process of this.processes()) {
        try {
          globalThis.process.kill(process.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  }

  private sessionEnded(session: RenderSession): void {
    this.sessions.delete(session);
    if (this.sessions.size > 0 || this.closed) return;
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    if (this.restartWhenIdle) {
      this.restartWhenIdle = false;
      this.noteRestart(PAST_MEMORY_CEILING);
      this.logger.warn(
        { ceilingMb: this.limits.browserMemoryMb },
        "the rendering browser grew past its memory ceiling; restarting it",
      );
      void this.stopBrowser();
      return;
    }
    this.idleTimer = setTimeout(() => void this.stopBrowser(), this.limits.idleCloseMs);
    this.idleTimer.unref();
  }

  /** While crawls render: kill any renderer over its ceiling, and mark the browser for a restart when it is over its own. */
  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      const processes = this.processes();
      let total = 0;
      for (const process of processes) {
        if (process.type === "renderer" && process.rss > this.limits.rendererMemoryMb * 1024 * 1024) {
          try {
            globalThis.process.kill(process.pid, "SIGKILL");
          } catch {
            // already gone
          }
          this.logger.warn(
            { pid: process.pid, rssMb: Math.round(process.rss / 1048576) },
            "a rendered page went past its memory ceiling; stopped it",
          );
          continue; // gone with its page: not what the browser keeps
        }
        total += process.rss;
      }
      if (total > this.limits.browserMemoryMb * 1024 * 1024) this.restartWhenIdle = true;
    }, 500);
    this.watchdog.unref();
  }
}
