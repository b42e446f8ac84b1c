import { createServer, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCrawler, createRenderer } from "../../../src/modules/crawl/crawler.factory.js";
import { BROWSER_WENT_AWAY, type BrowserRenderer } from "../../../src/modules/crawl/render/renderer.js";
import { browserSuite, CHROMIUM_PATH, RUN_BROWSER_SUITES } from "../../support/browser.js";
import { FixtureSites, fixtureResolver, type Site } from "../../support/fixture-sites.js";

/**
 * A rendered page is as contained as a fetched one (docs/api.md §12): whatever it opens
 * (documents, scripts, fetch/XHR, WebSockets, iframes, redirects, service workers,
 * `location` changes, forms, beacons, workers), the connection passes the crawler's
 * address guard where it is made. And a hostile page costs its own bounded time:
 * the crawl goes on and the browser lives.
 *
 * The forbidden target is a raw TCP server on 127.0.0.2 (loopback, outside the
 * allow-list of 127.0.0.1 and *.test) that counts every connection: it must see none.
 */
const config = {
  version: "test",
  crawl: {
    maxPages: 25,
    ssrfAllowlist: ["127.0.0.1/32", "*.test"],
    browser: { path: CHROMIUM_PATH, source: "CHROMIUM_PATH" as const },
  },
};

let sites: FixtureSites;
let forbidden: Server;
/** Same port as the fixture server, on 127.0.0.2: what a rebinding name would reach. */
let rebound: Server;
const reached: string[] = [];
const refusals: Array<{ target: string; reason: string }> = [];
let renderer: BrowserRenderer;
let secretPort = 0;

/** Reads the renderer's debug lines: every refused connection is one. */
const logger = pino(
  { level: "debug" },
  (() => {
    let pending = "";
    return new Writable({
      write(chunk: Buffer, _encoding, done) {
        // Lines may arrive split across writes: only whole ones are read.
        const lines = (pending + chunk.toString()).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines.filter(Boolean)) {
          const entry = JSON.parse(line) as { msg?: string; target?: string; reason?: string };
          if (entry.msg === "a rendered page's connection was refused")
            refusals.push({ target: entry.target ?? "", reason: entry.reason ?? "" });
        }
        done();
      },
    });
  })(),
);

function listenRaw(host: string, port: number, name: string): Promise<Server> {
  const server = createServer((socket: Socket) => {
    reached.push(`${name} ${socket.remoteAddress}`);
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** A shell page: its script runs only in a browser, which is where the crawler must meet it. */
const app = (script: string, body = "") =>
  `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>${body}<script>${script}</script></body></html>`;
const js = (body: string) => ({ headers: { "content-type": "text/javascript" }, body });

beforeAll(async () => {
  forbidden = await listenRaw("127.0.0.2", 0, "127.0.0.2");
  secretPort = (forbidden.address() as { port: number }).port;
  sites = await new FixtureSites({}).start();
  rebound = await listenRaw("127.0.0.2", sites.port, "rebound");
  const secret = `127.0.0.2:${secretPort}`;
  const hostile: Site = {
    "/": app(`document.getElementById("root").innerHTML = "<h1>Every way out</h1><p>This page tries every way to reach what it must not.</p>";
      fetch("http://${secret}/fetch").catch(() => {});
      fetch("http://secret.test:${sites.port}/by-name").catch(() => {});
      fetch("http://localhost:${secretPort}/localhost").catch(() => {});
      fetch("http://[::1]:${secretPort}/v6").catch(() => {});
      fetch("http://169.254.169.254/latest/meta-data/").catch(() => {});
      fetch("http://metadata.test/computeMetadata/v1/").catch(() => {});
      fetch("/to-secret").catch(() => {});
      fetch("/again").catch(() => {});
      var x = new XMLHttpRequest(); x.open("GET", "http://${secret}/xhr"); x.send();
      try { new WebSocket("ws://${secret}/ws"); } catch (e) {}
      try { new WebSocket("wss://${secret}/wss"); } catch (e) {}
      try { new EventSource("http://${secret}/events"); } catch (e) {}
      try { navigator.sendBeacon("http://${secret}/beacon", "x"); } catch (e) {}
      try { new Worker(URL.createObjectURL(new Blob(['fetch("http://${secret}/worker")']))); } catch (e) {}
      try { navigator.serviceWorker.register("/sw.js"); } catch (e) {}
      var s = document.createElement("script"); s.src = "http://${secret}/script.js"; document.head.appendChild(s);
      var l = document.createElement("link"); l.rel = "prefetch"; l.href = "http://${secret}/prefetch"; document.head.appendChild(l);
      var f = document.createElement("iframe"); f.src = "http://${secret}/frame"; document.body.appendChild(f);
      var form = document.createElement("form"); form.method = "POST"; form.action = "http://${secret}/form"; form.target = "sink";
      var sink = document.createElement("iframe"); sink.name = "sink"; document.body.appendChild(sink); document.body.appendChild(form); form.submit();`),
    "/leave": app(`setTimeout(function () { location.href = "http://${secret}/navigate"; }, 50);`),
    "/replace": app(`location.replace("http://secret.test:${sites.port}/replaced");`),
    "/refresh": {
      body: `<!doctype html><html><head><meta http-equiv="refresh" content="0;url=http://${secret}/refresh"></head><body><div id="root"></div><script src="/nothing.js"></script></body></html>`,
    },
    "/to-secret": { status: 302, headers: { location: `http://${secret}/redirected` } },
    "/again": "<p>second answer</p>",
    "/sw.js": js(`fetch("http://${secret}/from-service-worker")`),
  };
  Object.assign((sites as unknown as { sites: Record<string, Site> }).sites, {
    "hostile.test": hostile,
    "rebind.test": hostile,
  });
  renderer = createRenderer(config, logger, {
    resolver: (() => {
      // rebind.test answers 127.0.0.1 once (the page loads), then 127.0.0.2 (DNS rebinding).
      let rebinds = 0;
      const base = fixtureResolver({ "secret.test": ["127.0.0.2"], "metadata.test": ["169.254.169.254"] });
      return async (hostname: string) =>
        hostname === "rebind.test"
          ? [{ address: rebinds++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 as const }]
          : base(hostname);
    })(),
    limits: { pageTimeoutMs: 4_000, settleMaxMs: 1_500 },
  }) as BrowserRenderer;
});

afterAll(async () => {
  await renderer?.close();
  await sites?.stop();
  forbidden?.close();
  rebound?.close();
});

describe.runIf(RUN_BROWSER_SUITES)(browserSuite("what a rendered page can reach"), () => {
  it("reaches no private, loopback or metadata address by any means a page has, and the page is still read", async () => {
    const session = renderer.openSession("ProductMaturityBot/test");
    try {
      const page = await session.render(sites.url("hostile.test"));
      expect(page.html).toContain("Every way out");
      // Give late connections (workers, beacons, the form) time to be tried.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const path of ["/leave", "/replace", "/refresh"])
        await session.render(sites.url("hostile.test", path)).catch(() => undefined);
    } finally {
      await session.close();
    }
    expect(reached).toEqual([]);
    const targets = refusals.map((refusal) => refusal.target);
    expect(targets).toEqual(
      expect.arrayContaining([
        `127.0.0.2:${secretPort}`,
        `secret.test:${sites.port}`,
        `localhost:${secretPort}`,
        `[::1]:${secretPort}`,
        "169.254.169.254",
        "metadata.test",
      ]),
    );
    expect(refusals.find((refusal) => refusal.target === "169.254.169.254")?.reason).toBe("cloud metadata endpoint");
    const metadata = refusals.find((refusal) => refusal.target === "metadata.test")?.reason;
    expect(metadata).toMatch(/non-public address, cloud metadata endpoint/);
    expect(metadata).not.toMatch(/169\.254/);
    // The redirect hop and the navigations were each judged where they were made.
    expect(sites.requestsTo("hostile.test").some((request) => request.path === "/to-secret")).toBe(true);
    expect(sites.requestsTo("hostile.test").some((request) => request.path === "/sw.js")).toBe(false);
  });

  it("judges a name on the addresses it resolves to at each connection, so DNS rebinding reaches nothing", async () => {
    const session = renderer.openSession("ProductMaturityBot/test");
    try {
      const page = await session.render(sites.url("rebind.test"));
      expect(page.html).toContain("Every way out");
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await session.close();
    }
    expect(reached).toEqual([]);
    expect(
      refusals.some(
        (refusal) =>
          refusal.target === `rebind.test:${sites.port}` &&
          /non-public address, loopback/.test(refusal.reason) &&
          !/127\.0\.0\.2/.test(refusal.reason),
      ),
    ).toBe(true);
  });
});

describe.runIf(RUN_BROWSER_SUITES)(browserSuite("hostile pages in a crawl"), () => {
  const hostileSite = (): Site => {
    const links = ["/spin", "/alerts", "/hog", "/buffer", "/loop", "/popups", "/metadata", "/fine"];
    return {
      "/": app(
        `document.getElementById("root").innerHTML = '<h1>Hostile</h1><p>Every page below misbehaves but one.</p>' + ${JSON.stringify(links.map((path) => `<a href="${path}">${path.slice(1)}</a>`).join(" "))};`,
      ),
      "/spin": app(`while (true) {}`),
      "/alerts": app(
        `for (var i = 0; i < 100000; i++) { alert(i); confirm("sure?"); prompt("name?"); } document.getElementById("root").innerHTML = "<h1>After the alerts</h1><p>A reader was never stopped by them.</p>";`,
      ),
      "/hog": app(`var keep = []; for (;;) keep.push(new Array(1e6).fill(keep.length));`),
      "/buffer": app(
        `var big = new Uint8Array(1024 * 1024 * 1024); big.fill(1); document.getElementById("root").textContent = "allocated " + big.length; setTimeout(function () {}, 60000);`,
      ),
      "/loop": app(`location.href = "/loop?" + Math.random();`),
      "/popups": app(
        `for (var i = 0; i < 500; i++) window.open("/fine?" + i, "_blank"); document.getElementById("root").innerHTML = "<h1>Popups</h1><p>None of them opened.</p>";`,
      ),
      "/metadata": app(
        `fetch("http://169.254.169.254/latest/meta-data/iam/").then(function (r) { return r.text(); }).then(function (t) { document.getElementById("root").textContent = t; }, function () { document.getElementById("root").innerHTML = "<h1>No metadata</h1><p>The request was refused.</p>"; });`,
      ),
      "/fine": app(
        `document.getElementById("root").innerHTML = "<h1>Fine</h1><p>An ordinary page of the app, read in full.</p>";`,
      ),
    };
  };

  it(
    "ends each hostile page within its bound, reads the rest, and leaves the browser working",
    { timeout: 120_000 },
    async () => {
      Object.assign((sites as unknown as { sites: Record<string, Site> }).sites, { "zoo.test": hostileSite() });
      const crawler = createCrawler(config, { resolver: fixtureResolver(), renderer, budgetMs: 90_000 });
      const crawl = await crawler.crawl(sites.url("zoo.test"));
      const read = crawl.crawledPages.map((url) => new URL(url).pathname);
      expect(read).toEqual(expect.arrayContaining(["/", "/alerts", "/popups", "/metadata", "/fine"]));
      const failed = new Map(
        crawl.crawlStats.failures.map((failure) => [new URL(failure.url).pathname, failure.reason]),
      );
      expect(failed.get("/spin")).toMatch(/did not finish rendering within 4 s/);
      // Memory hogs end at the renderer's heap ceiling (a crash) or, on a starved machine that allocates
      // slowly, at the page's wall-clock limit first: either is their bound.
      expect(failed.get("/hog")).toMatch(/crashed|did not finish rendering within 4 s/);
      expect(failed.get("/buffer")).toMatch(/crashed|did not finish rendering within 4 s/);
      expect(failed.get("/loop")).toMatch(/navigated more than 10 times|did not finish rendering/);
      expect(crawl.pages.find((page) => page.url.endsWith("/alerts"))?.text).toContain("After the alerts");
      expect(crawl.pages.find((page) => page.url.endsWith("/metadata"))?.text).toContain("The request was refused");
      // No popup survived, and the browser still reads.
      const again = await crawler.crawl(sites.url("zoo.test", "/fine"));
      expect(again.pages[0]?.text).toContain("An ordinary page of the app");
      // No hostile page took the browser down. On a busy machine a bound may be enforced by a restart, as
      // designed: two hogs at once can take the whole browser past its ceiling before the watchdog checks, or a
      // spinning tab may not close in time. Each restart is one launch, and each has its reason.
      const restarts = `restarts: ${JSON.stringify(renderer.restarts)}`;
      expect(renderer.restarts, restarts).not.toContain(BROWSER_WENT_AWAY);
      expect(renderer.launches, restarts).toBe(1 + renderer.restarts.length);
    },
  );
});
