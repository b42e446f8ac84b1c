import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { DOCS_PATH } from "../errors.js";
import { OPENAPI_PATH } from "../../rest-compat/mount.js";
import { JS, escapeHtml, makeAsset, packageRoot, sendPage, serveAssets, type Asset } from "./static-assets.js";

/**
 * `GET /docs`, a human reference rendered by Redoc 2 from `GET /api/openapi.json`
 * (the document the REST table's plugin generates at boot and serves) — its standalone bundle
 * (`redoc/bundles/redoc.standalone.js`: React, styled-components and its search
 * worker inlined), served from node_modules like GraphiQL, so the page makes no
 * request to anything but this service. Redoc fetches the document from the same
 * origin; its search index runs in a worker it starts from a blob: URL.
 *
 * Scripts are held to 'self'. Styles are not: the bundle injects <style> elements
 * of its own (perfect-scrollbar's, styled-components') that carry no nonce, and
 * React sets style attributes, so style-src allows 'unsafe-inline' (checked in
 * Chromium: with a nonce instead, the page does not render). The page shows only
 * the service's own generated document, never a caller's text.
 */
export { DOCS_PATH };

/** Scripts from this origin only; styles inline too (see above); the search worker from a blob: URL. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");

export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  const require = createRequire(import.meta.url);
  const assets = new Map<string, Asset>([
    [
      "redoc.standalone.js",
      makeAsset(
        JS,
        Buffer.from(
          localBundle(readFileSync(path.join(packageRoot(require, "redoc"), "bundles/redoc.standalone.js"), "utf8")),
        ),
      ),
    ],
    ["docs.js", makeAsset(JS, Buffer.from(bootstrapScript()))],
  ]);
  const url = serveAssets(app, `${DOCS_PATH}/assets`, assets);

  // The same page for every request (no nonce: see DOCS_CSP).
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Product Maturity Scoring API — REST reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="docs" data-spec="${escapeHtml(OPENAPI_PATH)}"><noscript><p>This reference needs JavaScript; the document itself is <a href="${escapeHtml(OPENAPI_PATH)}">${escapeHtml(OPENAPI_PATH)}</a>.</p></noscript></div>
<script src="${url("redoc.standalone.js")}"></script>
<script src="${url("docs.js")}"></script>
</body>
</html>
`;
  app.get(DOCS_PATH, (_request, reply) => sendPage(reply, html, DOCS_CSP));
}

/**
 * The one address the bundle loads by itself is Redocly's logo from their CDN (the
 * sidebar's "API docs by Redocly"). It is pointed at an empty data: URL instead, on
 * which the component hides the image; a Redoc upgrade that moves it fails at boot.
 */
const REDOCLY_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
function localBundle(bundle: string): string {
  if (bundle.split(REDOCLY_LOGO).length !== 2)
    throw new Error(`redoc.standalone.js: expected ${REDOCLY_LOGO} exactly once; check the Redoc upgrade.`);
  return bundle.replace(REDOCLY_LOGO, '"data:,"');
}

/** Loaded after Redoc: renders the reference from the same-origin document. */
function bootstrapScript(): string {
  return `(function () {
  "use strict";
  var container = document.getElementById("docs");
  window.Redoc.init(new URL(container.getAttribute("data-spec"), window.location.href).href, {
    expandResponses: "200,201,202",
    jsonSampleExpandLevel: 3,
    hideDownloadButton: false,
    sortPropsAlphabetically: false,
    pathInMiddlePanel: true
  }, container);
})();
`;
}
