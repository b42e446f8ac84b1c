import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ARTIFACTS, browserSuite, launchChromium, RUN_BROWSER_SUITES } from "../support/browser.js";
import { ApolloServer } from "@apollo/server";
import fastifyApollo, { fastifyApolloDrainPlugin } from "@as-integrations/fastify";
import Fastify from "fastify";
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { type Browser, type ConsoleMessage, type Page, type Request } from "playwright-core";
import { WebSocketServer } from "ws";
import { registerGraphiql } from "../../src/http/graphiql.js";
import { startTestApp } from "../support/app.js";

/** A running server the tests talk to; the service's TestApp has this shape too. */
interface Served {
  /** e.g. http://127.0.0.1:45678 */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A subscription the fixture answers; adjust together with startSubscriptionFixture().
 * Named, so the tab title shows when GraphiQL has parsed the edited query.
 */
const SUBSCRIPTION = {
  name: "Countdown",
  query: "subscription Countdown { countdown(from: 3) }",
  lastEvent: '"countdown": 0',
};

// Fixture for the page's subscription transport only, until the service has a Subscription type (scoreProgress).
async function startSubscriptionFixture(): Promise<Served> {
  const schema = new GraphQLSchema({
    // A query type is mandatory; this one keeps the page's default query valid.
    query: new GraphQLObjectType({
      name: "Query",
      fields: {
        health: {
          type: new GraphQLNonNull(
            new GraphQLObjectType({ name: "Health", fields: { status: { type: new GraphQLNonNull(GraphQLString) } } }),
          ),
          resolve: () => ({ status: "pass" }),
        },
      },
    }),
    subscription: new GraphQLObjectType({
      name: "Subscription",
      fields: {
        countdown: {
          type: new GraphQLNonNull(GraphQLInt),
          args: { from: { type: new GraphQLNonNull(GraphQLInt) } },
          subscribe: async function* (_root: unknown, args: { from: number }) {
            for (let n = args.from; n >= 0; n--) yield { countdown: n };
          },
        },
      },
    }),
  });

  // The page's HTTP fetcher still introspects over POST /graphql, so that is served too.
  const app = Fastify({ logger: false });
  const apollo = new ApolloServer({ schema, plugins: [fastifyApolloDrainPlugin(app)] });
  await apollo.start();
  await app.register(fastifyApollo(apollo), { path: "/graphql" });
  await registerGraphiql(app, { path: "/graphiql", endpoint: "/graphql" });

  const wss = new WebSocketServer({ server: app.server, path: "/graphql" });
  const ws = useServer({ schema }, wss);

  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("unexpected server address");

  return {
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      await ws.dispose();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await app.close();
    },
  };
}

/** Every request the page makes, and every console error / uncaught exception. */
function watch(page: Page): { requests: string[]; errors: string[] } {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request: Request) => requests.push(request.url()));
  page.on("websocket", (socket) => requests.push(socket.url()));
  page.on("console", (message: ConsoleMessage) => {
    if (message.type() === "error") errors.push(`console.error: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  return { requests, errors };
}

function sameOrigin(url: string, origin: string): boolean {
  const parsed = new URL(url);
  const expected = new URL(origin);
  if (parsed.protocol === "data:") return true; // inline fonts/images from the stylesheet, no network
  return parsed.host === expected.host && (parsed.protocol === expected.protocol || parsed.protocol === "ws:");
}

/** The variables or headers editor, whichever is shown. */
const toolEditor = (page: Page) => page.locator(".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror");

/** Replace the query editor's content (CodeMirror 5 in graphiql 4). */
async function setQuery(page: Page, query: string): Promise<void> {
  type WithCodeMirror = { CodeMirror?: { setValue(value: string): void } };
  await page.locator(".graphiql-query-editor .CodeMirror").evaluate((el: unknown, text: string) => {
    const editor = (el as WithCodeMirror).CodeMirror;
    if (!editor) throw new Error("query editor has no CodeMirror instance");
    editor.setValue(text);
  }, query);
}

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("GraphiQL page in a real browser"), () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  describe("on the service", () => {
    let service: Served;
    beforeAll(async () => {
      service = await startTestApp();
    });
    afterAll(async () => {
      await service?.close();
    });

    it("renders from same-origin assets only and runs a query", async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const { requests, errors } = watch(page);

      const response = await page.goto(`${service.url}/graphiql`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      const csp = response?.headers()["content-security-policy"] ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");

      // The editor is rendered with the first starter tab in it; a query typed in runs.
      const queryEditor = page.locator(".graphiql-query-editor .CodeMirror");
      await queryEditor.waitFor({ state: "visible", timeout: 20_000 });
      await expect.poll(() => queryEditor.innerText()).toContain("startScore");
      await setQuery(page, "query Health { health { status } }");
      await page.locator(".graphiql-tab-active", { hasText: "Health" }).waitFor({ timeout: 10_000 });
      await page.locator("button.graphiql-execute-button").click();

      const result = page.locator(".graphiql-response .CodeMirror");
      await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain('"status": "pass"');

      // Introspection for the doc explorer / autocompletion has run by now too.
      await page.waitForLoadState("networkidle");

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, "graphiql.png"), fullPage: true });

      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((url) => !sameOrigin(url, service.url))).toEqual([]);
      expect(requests).toContain(`${service.url}/graphql`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  });

  describe("starter tabs and a phone's width, on the service", () => {
    let service: Served;
    beforeAll(async () => {
      service = await startTestApp();
    });
    afterAll(async () => {
      await service?.close();
    });

    async function open(
      width: number,
      height: number,
    ): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      const { errors } = watch(page);
      await page.goto(`${service.url}/graphiql`, { waitUntil: "load" });
      await page.locator(".graphiql-query-editor .CodeMirror").waitFor({ state: "visible", timeout: 20_000 });
      return { page, errors, close: () => context.close() };
    }

    it("opens with score-and-follow, result and usage tabs; the usage tab's headers pane holds a test key example", async () => {
      const { page, errors, close } = await open(1280, 800);
      const tabs = page.locator(".graphiql-tab");
      await expect.poll(() => tabs.allInnerTexts()).toEqual(["StartScore", "ScoreResult", "Usage"]);
      const editorText = () => page.locator(".graphiql-query-editor .CodeMirror").innerText();
      await expect.poll(editorText).toContain("subscription FollowScoreProgress");
      // The variables pane is open with the first tab's variables.
      await expect.poll(() => toolEditor(page).innerText()).toContain('"kind": "quick"');

      await tabs.nth(2).locator("button").first().click();
      await expect.poll(editorText).toContain("usage {");
      await page.locator(".graphiql-editor-tools button", { hasText: "Headers" }).click();
      const headers = toolEditor(page);
      await expect.poll(() => headers.innerText()).toContain('"Authorization": "Bearer pms_test_');
      mkdirSync("/tmp/pages-shots", { recursive: true });
      await page.screenshot({ path: "/tmp/pages-shots/graphiql-usage-headers-1280.png" });

      // The score tab needs no credentials: its headers pane is empty.
      await tabs.nth(0).locator("button").first().click();
      await expect.poll(editorText).toContain("startScore");
      await expect.poll(() => headers.innerText()).not.toContain("Authorization");
      expect(errors).toEqual([]);
      await close();
    }, 60_000);

    it("stacks the editors above a result pane at least 300 px wide at 390 px", async () => {
      const { page, errors, close } = await open(390, 844);
      await setQuery(page, "query Health { health { status checks { database { status detail } } } }");
      await page.locator(".graphiql-tab-active", { hasText: "Health" }).waitFor({ timeout: 10_000 });
      await page.locator("button.graphiql-execute-button").click();
      const result = page.locator(".graphiql-response .CodeMirror");
      await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain('"status"');

      const editors = await page.locator(".graphiql-editors").boundingBox();
      const response = await page.locator(".graphiql-response").boundingBox();
      expect(response?.width ?? 0).toBeGreaterThanOrEqual(300);
      expect(response!.y).toBeGreaterThanOrEqual(editors!.y + editors!.height - 1);
      // A line of JSON is on one line, not one letter per line.
      const line = await result.locator(".CodeMirror-line", { hasText: '"status"' }).first().boundingBox();
      expect(line?.height ?? 100).toBeLessThan(30);
      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(390);
      await page.screenshot({ path: "/tmp/pages-shots/graphiql-390.png" });
      expect(errors).toEqual([]);
      await close();
    }, 60_000);
  });

  describe("subscription transport, on a fixture server", () => {
    let fixture: Served;
    beforeAll(async () => {
      fixture = await startSubscriptionFixture();
    });
    afterAll(async () => {
      await fixture?.close();
    });

    it("runs subscriptions over graphql-ws on the same host", async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const { requests, errors } = watch(page);

      await page.goto(`${fixture.url}/graphiql`, { waitUntil: "load" });
      await page.locator(".graphiql-query-editor .CodeMirror").waitFor({ state: "visible", timeout: 20_000 });
      await setQuery(page, SUBSCRIPTION.query);
      // GraphiQL parses the editor content after a debounce and only then knows the
      // operation is a subscription; executing earlier would send it over HTTP.
      await page.locator(".graphiql-tab-active", { hasText: SUBSCRIPTION.name }).waitFor({ timeout: 10_000 });
      await page.locator("button.graphiql-execute-button").click();

      // GraphiQL shows the latest event; the countdown ends at 0.
      const result = page.locator(".graphiql-response .CodeMirror");
      await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain(SUBSCRIPTION.lastEvent);

      const wsUrl = `${fixture.url.replace(/^http/, "ws")}/graphql`;
      expect(requests).toContain(wsUrl);
      expect(requests.filter((url) => !sameOrigin(url, fixture.url))).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  });
});

describe("GraphiQL page and assets over HTTP, on the service", () => {
  let service: Served;
  beforeAll(async () => {
    service = await startTestApp();
  });
  afterAll(async () => {
    await service?.close();
  });

  it("serves the page with a strict CSP and only same-origin asset URLs", async () => {
    const response = await fetch(`${service.url}/graphiql`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).not.toContain("unsafe-");
    const html = await response.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(urls.length).toBeGreaterThanOrEqual(6);
    for (const url of urls) expect(url).toMatch(/^(\/graphiql\/assets\/[\w.-]+\?v=[\w-]+|data:,)$/);
  });

  it("serves allow-listed assets with type, long cache, ETag and 304", async () => {
    const url = `${service.url}/graphiql/assets/graphiql.min.js`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(first.headers.get("cache-control")).toBe("public, max-age=86400");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await first.text()).length).toBeGreaterThan(100_000);

    const again = await fetch(url, { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);

    const css = await fetch(`${service.url}/graphiql/assets/graphiql.min.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("serves nothing outside the allow-list", async () => {
    for (const probe of [
      "/graphiql/assets/package.json",
      "/graphiql/assets/..%2f..%2fpackage.json",
      "/graphiql/assets/../../package.json",
      "/graphiql/assets/react.development.js",
    ]) {
      const response = await fetch(`${service.url}${probe}`);
      expect(response.status, probe).toBe(404);
    }
  });
});
