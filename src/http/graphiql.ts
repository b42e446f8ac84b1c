import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  CSS,
  JS,
  escapeHtml,
  makeAsset,
  packageRoot,
  sameHostWebSocketSources,
  sendPage,
  serveAssets,
  type Asset,
} from "./static-assets.js";
import { STARTER_TABS } from "./graphiql-tabs.js";

/**
 * GraphiQL served entirely from installed packages: no CDN, nothing fetched at
 * runtime from anywhere but this service.
 *
 * What graphiql 4's UMD build (`graphiql/dist/index.umd.js`) needs, checked in
 * the bundle itself:
 * - globals `React` and `ReactDOM` (its UMD wrapper reads `e.React`, `e.ReactDOM`),
 *   so React 18's UMD production builds are loaded first;
 * - nothing else: @graphiql/react, the doc-explorer/history plugins,
 *   react-compiler-runtime, graphql-js, CodeMirror 5 and a graphql-ws client are
 *   all bundled in, and the stylesheet inlines its fonts and images as data: URIs.
 * It exposes `window.GraphiQL`: the component, with `GraphiQL.createFetcher`.
 *
 * Subscriptions: `createFetcher({ subscriptionUrl })` uses the graphql-ws client
 * bundled in graphiql (protocol `graphql-transport-ws`, what graphql-ws 6 serves)
 * and passes the headers typed in GraphiQL's header editor as `connectionParams`.
 * The standalone graphql-ws UMD is therefore not loaded: a client of our own
 * (`wsClient`) would take precedence and lose those headers.
 *
 * Only a fixed allow-list of files is read, once, at registration; every asset
 * has its own static route, so no request path ever reaches the filesystem.
 */

export interface GraphiqlOptions {
  /** Where the page is served, e.g. `/graphiql`. Assets live under `{path}/assets/`. */
  path: string;
  /** Same-origin GraphQL endpoint path, e.g. `/graphql` (HTTP POST and graphql-ws). */
  endpoint: string;
}

/** Files from node_modules that the page loads, in load order for scripts. */
const PACKAGE_ASSETS = [
  { name: "react.production.min.js", pkg: "react", file: "umd/react.production.min.js", type: JS },
  { name: "react-dom.production.min.js", pkg: "react-dom", file: "umd/react-dom.production.min.js", type: JS },
  { name: "graphiql.min.js", pkg: "graphiql", file: "dist/index.umd.js", type: JS },
  { name: "graphiql.min.css", pkg: "graphiql", file: "dist/style.css", type: CSS },
] as const;

/**
 * Below 700 px the editors and the result stack (editors above): side by side on a
 * phone, the result pane is a few letters wide and JSON wraps one letter per line.
 * The drag bar resizes widths, so it goes; the margins and the sidebar narrow.
 */
const PAGE_CSS = `html, body, #graphiql { height: 100%; margin: 0; }
body { overflow: hidden; }
.graphiql-noscript { font-family: system-ui, sans-serif; padding: 2rem; }
@media (max-width: 699px) {
  .graphiql-container { --sidebar-width: 44px; }
  .graphiql-container .graphiql-sidebar { padding: 4px; }
  .graphiql-container .graphiql-sessions { margin: 8px; margin-left: 0; }
  .graphiql-container #graphiql-session { flex-direction: column; padding: 0 4px 4px; }
  .graphiql-container #graphiql-session > div { min-height: 0; min-width: 0; }
  .graphiql-container .graphiql-horizontal-drag-bar { display: none; }
  .graphiql-container .graphiql-response { border-top: 1px solid hsla(var(--color-neutral), var(--alpha-background-heavy)); }
}
`;

function bootstrapScript(endpoint: string): string {
  // Runs after React, ReactDOM and GraphiQL. Everything environment-specific is
  // computed from `location`, so the page works behind any host, port or TLS proxy.
  return `(function () {
  "use strict";
  var ENDPOINT = ${JSON.stringify(endpoint)};
  var STARTER_TABS = ${JSON.stringify(STARTER_TABS)};

  // Radix dialogs (settings, shortcuts) inject a <style> element through
  // react-style-singleton, which tags it with the global __webpack_nonce__.
  // The page gives this script a per-request nonce that the CSP allows for styles.
  var self = document.currentScript;
  if (self && self.nonce) window.__webpack_nonce__ = self.nonce;

  // graphiql 4 starts the first tab's query from defaultTabs but its variables editor
  // from storage: on a first visit (no tabs stored yet), store the first tab's variables.
  try {
    if (!window.localStorage.getItem("graphiql:tabState") && STARTER_TABS[0].variables) {
      window.localStorage.setItem("graphiql:variables", STARTER_TABS[0].variables);
    }
  } catch (error) {
    // Storage disabled: the variables show once the tab is switched to.
  }

  var httpUrl = new URL(ENDPOINT, window.location.href);
  var wsUrl = new URL(httpUrl.href);
  wsUrl.protocol = httpUrl.protocol === "https:" ? "wss:" : "ws:";

  var fetcher = window.GraphiQL.createFetcher({
    url: httpUrl.href,
    subscriptionUrl: wsUrl.href,
  });

  var container = document.getElementById("graphiql");
  ReactDOM.createRoot(container).render(
    React.createElement(window.GraphiQL, {
      fetcher: fetcher,
      defaultTabs: STARTER_TABS,
      // Variables and headers matter in every starter tab: the pane starts open.
      defaultEditorToolsVisibility: true,
    }),
  );
})();
`;
}

function contentSecurityPolicy(request: FastifyRequest, nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // No 'unsafe-inline': GraphiQL's own inline styles are set through the CSSOM
    // (element.style), which CSP does not restrict; the one <style> element it can
    // inject (Radix dialogs) carries this nonce. See bootstrap.js.
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${sameHostWebSocketSources(request)}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join("; ");
}

export async function registerGraphiql(app: FastifyInstance, options: GraphiqlOptions): Promise<void> {
  const pagePath = `/${options.path.replace(/^\/+|\/+$/g, "")}`;
  if (pagePath === "/" || !/^\/[A-Za-z0-9._~\/-]+$/.test(pagePath)) {
    throw new Error(`graphiql: invalid path ${JSON.stringify(options.path)}`);
  }
  if (!options.endpoint.startsWith("/") || options.endpoint.startsWith("//")) {
    throw new Error(`graphiql: endpoint must be a same-origin path, got ${JSON.stringify(options.endpoint)}`);
  }
  const assetBase = `${pagePath}/assets`;

  const require = createRequire(import.meta.url);
  const roots = new Map<string, string>();
  const assets = new Map<string, Asset>();
  for (const { name, pkg, file, type } of PACKAGE_ASSETS) {
    let root = roots.get(pkg);
    if (root === undefined) {
      root = packageRoot(require, pkg);
      roots.set(pkg, root);
    }
    assets.set(name, makeAsset(type, readFileSync(path.join(root, file))));
  }
  assets.set("page.css", makeAsset(CSS, Buffer.from(PAGE_CSS)));
  assets.set("bootstrap.js", makeAsset(JS, Buffer.from(bootstrapScript(options.endpoint))));

  const url = serveAssets(app, assetBase, assets);

  app.get(pagePath, (request, reply) => {
    const nonce = randomBytes(16).toString("base64");
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url("graphiql.min.css")}">
<link rel="stylesheet" href="${url("page.css")}">
</head>
<body>
<div id="graphiql"><noscript><p class="graphiql-noscript">GraphiQL needs JavaScript. The GraphQL endpoint is <code>${escapeHtml(options.endpoint)}</code>.</p></noscript></div>
<script src="${url("react.production.min.js")}"></script>
<script src="${url("react-dom.production.min.js")}"></script>
<script src="${url("graphiql.min.js")}"></script>
<script src="${url("bootstrap.js")}" nonce="${nonce}"></script>
</body>
</html>
`;
    return sendPage(reply, html, contentSecurityPolicy(request, nonce));
  });
}
