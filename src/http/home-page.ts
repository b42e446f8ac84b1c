import type { FastifyInstance, FastifyRequest } from "fastify";
import { JS, makeAsset, sameHostWebSocketSources, sendPage, serveAssets, type Asset } from "./static-assets.js";
import { BASE_CSS, styleHashes } from "./page-style.js";
import { acceptQuality, answerNotFound } from "./not-found-page.js";
import { homeScript } from "./home-script.js";

/**
 * `GET /`: what the service is, and a form that scores a site anonymously (a quick
 * score) with its progress shown live, ending on a link to the share page. The
 * form is driven by a small ES module served here (`/assets/home.js`): it starts
 * the job with GraphQL `startScore` and follows `scoreProgress` over the plain
 * graphql-transport-ws protocol on `/graphql` (an anonymous job's progress is
 * visible to the address that started it, which is this browser's).
 *
 * CSP: scripts from this origin only, the one <style> element by hash, requests
 * to this origin (HTTP and WebSocket) only.
 *
 * A client that asks for JSON and ranks it above HTML (`Accept: application/json`)
 * keeps getting the JSON 404 envelope: `/` is a page, the API lives under `/api`.
 */

export const HOME_PATH = "/";

const CSS = `${BASE_CSS}
.hero{padding-bottom:84px}
.hero h1{max-width:20em}
.lede{color:#cbd5e1;max-width:40em;font-size:1.05rem}
.card>h2{font-size:1.15rem;margin-bottom:14px}
label{display:block;font-weight:600;margin-bottom:6px}
.row{display:flex;gap:10px;flex-wrap:wrap}
input{flex:1 1 16em;min-width:0;font:inherit;padding:10px 12px;border:1px solid #cbd5e1;border-radius:10px;background:#fff;color:#0f172a}
input:focus{outline:2px solid #a5b4fc;outline-offset:1px;border-color:#6366f1}
button,.button{font:inherit;font-weight:650;padding:10px 18px;border-radius:10px;border:0;background:#4338ca;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button:disabled{background:#94a3b8;cursor:progress}
.hint{margin:8px 0 0;color:#64748b;font-size:.85rem}
.error{margin:16px 0 0;padding:12px 14px;border-radius:10px;background:#fef2f2;border:1px solid #fecaca;color:#991b1b;overflow-wrap:anywhere}
.error strong{display:block}
.steps{margin:16px 0 0;padding-left:22px;color:#334155;overflow-wrap:anywhere}
.steps li{margin:4px 0}
.steps li.current{font-weight:650;color:#0f172a}
.outcome{margin-top:16px;padding:14px;border-radius:10px;background:#f0fdf4;border:1px solid #bbf7d0;overflow-wrap:anywhere}
.outcome p{margin:0 0 10px}
.outcome p:last-child{margin:0}
.score{font-size:1.25rem}
code{font:.85rem ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f5f9;border-radius:6px;padding:2px 6px;overflow-wrap:anywhere}
.links ul{margin:0;padding-left:20px}
.links li{margin:6px 0}
.muted{color:#64748b}
[hidden]{display:none !important}`;

function renderHomePage(scriptUrl: string, endpoint: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Product Maturity Scoring — how mature is a product, from its website</title>
<meta name="description" content="Scores a product's public website on 27 dimensions in 6 pillars, with the evidence behind every score.">
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body>
<header class="hero"><div class="wrap">
<p class="eyebrow">Product Maturity Scoring</p>
<h1>How mature is a product? Ask its website.</h1>
<p class="lede">This service reads a product's public website (its home page, pricing, documentation, security and company pages) and scores it on 27 dimensions in 6 pillars, from Foundation to Leading, quoting the evidence behind every score. Try a quick score below, no account needed; the API adds full crawls, history, webhooks and chat about a result.</p>
</div></header>
<main class="wrap">
<section class="card" aria-labelledby="try">
<h2 id="try">Score a site</h2>
<form id="score-form" data-endpoint="${endpoint}" novalidate>
<label for="url">Website address</label>
<div class="row"><input id="url" name="url" type="text" inputmode="url" autocomplete="url" autocapitalize="off" spellcheck="false" placeholder="https://example.com" required><button id="submit" type="submit">Score it</button></div>
<p class="hint">A quick score reads the home page and up to 4 linked pages. One anonymous score per network per hour; the result is public to anyone with its link and kept 30 days unless claimed.</p>
</form>
<noscript><p class="error">Scoring from this page needs JavaScript. Without it: <code>POST /api/score/quick</code> with <code>{"url": "…"}</code>.</p></noscript>
<ol id="steps" class="steps" aria-live="polite" hidden></ol>
<div id="problem" class="error" role="alert" hidden></div>
<div id="outcome" class="outcome" aria-live="polite" hidden></div>
</section>
<section class="card links" aria-labelledby="dev">
<h2 id="dev">For developers</h2>
<ul>
<li><a href="/docs">REST reference</a>: every <code>/api</code> route, from the OpenAPI document</li>
<li><a href="/graphiql">GraphiQL</a>: the GraphQL API, with live progress over WebSocket</li>
<li><a href="/api/health">Health</a>: the service and its dependencies, as JSON</li>
</ul>
</section>
</main>
<footer class="wrap"><p>Scores rest on public pages only; what a site does not show cannot be scored.</p></footer>
<script type="module" src="${scriptUrl}"></script>
</body>
</html>
`;
}

function homeCsp(request: FastifyRequest, html: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styleHashes(html).join(" ")}`,
    "img-src data:",
    `connect-src 'self'${sameHostWebSocketSources(request)}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** JSON asked for and ranked above HTML (a wildcard counts as HTML): not this page. */
function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return false;
  const html = Math.max(
    acceptQuality(accept, ["text/html", "application/xhtml+xml"]),
    acceptQuality(accept, ["*/*", "text/*"]),
  );
  return acceptQuality(accept, ["application/json"]) > html;
}

export async function registerHomePage(app: FastifyInstance, options: { endpoint: string }): Promise<void> {
  if (!/^\/[A-Za-z0-9/_-]*$/.test(options.endpoint)) throw new Error(`home page: bad endpoint ${options.endpoint}`);
  const assets = new Map<string, Asset>([["home.js", makeAsset(JS, Buffer.from(homeScript()))]]);
  const url = serveAssets(app, "/assets", assets);
  const html = renderHomePage(url("home.js"), options.endpoint);
  app.get(HOME_PATH, (request, reply) => {
    reply.header("vary", "Accept");
    if (prefersJson(request.headers.accept)) return answerNotFound(request, reply);
    return sendPage(reply, html, homeCsp(request, html));
  });
}
