import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ifNoneMatchNames } from "../net/if-none-match.js";

/** Static files of the browser pages (GraphiQL, /docs): read once at boot, each on its own route. */

export interface Asset {
  readonly contentType: string;
  readonly identity: Buffer;
  readonly gzip: Buffer | undefined;
  readonly etag: string;
}

export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";

/** An HTML page made of allow-listed assets: its CSP, never cached, no referrer, its own browsing context group. */
export function sendPage(reply: FastifyReply, html: string, contentSecurityPolicy: string): FastifyReply {
  return reply
    .type("text/html; charset=utf-8")
    .header("Content-Security-Policy", contentSecurityPolicy)
    .header("Cache-Control", "no-store")
    .header("X-Content-Type-Options", "nosniff")
    .header("Referrer-Policy", "no-referrer")
    .header("Cross-Origin-Opener-Policy", "same-origin")
    .send(html);
}

/** Root directory of an installed package, even if its exports map hides package.json. */
export function packageRoot(require: NodeJS.Require, pkg: string): string {
  try {
    return path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    let dir = path.dirname(require.resolve(pkg));
    for (;;) {
      const candidate = path.join(dir, "package.json");
      if (existsSync(candidate)) {
        const json = JSON.parse(readFileSync(candidate, "utf8")) as { name?: unknown };
        if (json.name === pkg) return dir;
      }
      const parent = path.dirname(dir);
      if (parent === dir) throw new Error(`cannot find the root of package "${pkg}"`);
      dir = parent;
    }
  }
}

export function makeAsset(contentType: string, body: Buffer): Asset {
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 27);
  // Only compress what is worth it; gzip is precomputed once, here.
  const gzip = body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
  return { contentType, identity: body, gzip, etag: hash };
}

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers["accept-encoding"];
  if (typeof header !== "string") return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  const gzip = asset.gzip !== undefined && acceptsGzip(request);
  const etag = `"${asset.etag}${gzip ? "-gz" : ""}"`;
  reply
    .header("Cache-Control", "public, max-age=86400")
    .header("ETag", etag)
    .header("X-Content-Type-Options", "nosniff")
    .header("Cross-Origin-Resource-Policy", "same-origin");
  if (asset.gzip !== undefined) reply.header("Vary", "Accept-Encoding");
  if (ifNoneMatchNames(request.headers["if-none-match"], etag)) return reply.code(304).send();
  reply.type(asset.contentType);
  if (gzip) reply.header("Content-Encoding", "gzip");
  return reply.send(gzip ? asset.gzip : asset.identity);
}

/**
 * Serves each asset at `{base}/{name}`; answers the HTML-escaped address to put in
 * a page, with the content's hash in it so a package upgrade is picked up at once
 * despite max-age.
 */
export function serveAssets(
  app: FastifyInstance,
  base: string,
  assets: ReadonlyMap<string, Asset>,
): (name: string) => string {
  for (const [name, asset] of assets) app.get(`${base}/${name}`, (request, reply) => sendAsset(request, reply, asset));
  return (name) => {
    const asset = assets.get(name);
    if (!asset) throw new Error(`no asset ${name} under ${base}`);
    return escapeHtml(`${base}/${name}?v=${asset.etag.slice(0, 12)}`);
  };
}

/** ` ws://host wss://host` for the host the browser sent (or X-Forwarded-Host under trustProxy), if it is safe to echo. */
export function sameHostWebSocketSources(request: FastifyRequest): string {
  const host = request.host;
  if (typeof host !== "string" || !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    return "";
  }
  // CSP level 3 lets 'self' match ws:/wss: on the same host; listing them keeps
  // browsers that predate that rule working.
  return ` ws://${host} wss://${host}`;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
