import type { FastifyReply, FastifyRequest } from "fastify";
import { answeredErrorCode } from "../metrics.js";
import { sendError } from "./error-reply.js";
import { AppError } from "../errors.js";
import { BASE_CSS, styleOnlyCsp } from "./page-style.js";
import { esc } from "./share-chart.js";

/**
 * Misses, for people and for programs. `/api/...` always answers the JSON envelope
 * (docs/api.md §4): it is an API, whatever a client accepts. Elsewhere, a GET or
 * HEAD whose Accept header names HTML (what browsers send) gets a page in the
 * share page's style instead; `*\/*` alone, or JSON preferred, keeps the envelope,
 * so curl and API clients see the same answer on every path.
 */

const CSS = `${BASE_CSS}
.hero{padding-bottom:72px}
.card p{margin:0 0 10px}
.code{font-variant-numeric:tabular-nums;color:#94a3b8}`;

export function renderNotFoundPage(page: { title: string; message: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(page.title)}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body>
<header class="hero"><div class="wrap">
<p class="eyebrow">Product Maturity Scoring · <span class="code">404</span></p>
<h1>${esc(page.title)}</h1>
</div></header>
<main class="wrap">
<section class="card"><p>${esc(page.message)}</p><p><a href="/">Go to the home page</a> to score a site, or read the <a href="/docs">API reference</a>.</p></section>
</main>
</body>
</html>
`;
}

/** Answers a styled HTML 404 page (its CSP allows only its own <style>). */
export function sendNotFoundPage(reply: FastifyReply, page: { title: string; message: string }): FastifyReply {
  const html = renderNotFoundPage(page);
  answeredErrorCode.set(reply, "NOT_FOUND");
  return reply
    .code(404)
    .header("content-type", "text/html; charset=utf-8")
    .header("content-security-policy", styleOnlyCsp(html))
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .send(html);
}

export function notFound(request: FastifyRequest): AppError {
  return new AppError("NOT_FOUND", `No route for ${request.method} ${request.url.split("?")[0]}.`);
}

/** Whether a path belongs to the JSON API, where every answer is JSON. */
export function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/** The highest q the Accept header gives any of these media types (0: not listed). Wildcards are not counted. */
export function acceptQuality(accept: string | undefined, types: readonly string[]): number {
  let best = 0;
  for (const part of (accept ?? "").split(",")) {
    const [type, ...params] = part.trim().toLowerCase().split(";");
    if (!type || !types.includes(type.trim())) continue;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value)) best = Math.max(best, Math.min(1, value));
  }
  return best;
}

const HTML_TYPES = ["text/html", "application/xhtml+xml"];
const JSON_TYPES = ["application/json", "application/problem+json"];

/** A browser: HTML named in Accept, and not ranked below JSON. */
export function wantsHtml(accept: string | undefined): boolean {
  const html = acceptQuality(accept, HTML_TYPES);
  return html > 0 && html >= acceptQuality(accept, JSON_TYPES);
}

/** The answer to a request no route serves: the HTML page for a browser outside `/api`, else the envelope. */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split("?")[0] ?? "/";
  if (isApiPath(path)) return sendError(reply, notFound(request));
  reply.header("vary", "Accept");
  if ((request.method === "GET" || request.method === "HEAD") && wantsHtml(request.headers.accept)) {
    return sendNotFoundPage(reply, {
      title: "Page not found",
      message: "There is no page at this address. It may have moved, or the link may be mistyped.",
    });
  }
  return sendError(reply, notFound(request));
}
