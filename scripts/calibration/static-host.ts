import { readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  // A client-rendered site's bundles and the data they load (calibration/extract_site.py --assets).
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
};

/**
 * A built static site served on 127.0.0.1 the way a static host (GitHub Pages,
 * Netlify) serves it: `/foo` answers `foo.html`, a folder without its slash is
 * redirected to `/foo/` (so relative links resolve as they do in production),
 * `/foo/` answers `foo/index.html`, anything else is a 404. Absolute links to the
 * site's original hosts are rewritten to this server, so the crawler keeps them
 * internal, as it would on the real site.
 */
export class StaticHost {
  private server: Server | undefined;
  origin = "";

  constructor(
    private readonly root: string,
    private readonly originalHosts: readonly string[],
  ) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const answer = this.answer(request.url ?? "/");
      response.writeHead(answer.status, answer.headers);
      response.end(request.method === "HEAD" ? undefined : answer.body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.origin;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(rawUrl: string): { status: number; headers: Record<string, string>; body?: string | Buffer } {
    let path: string;
    try {
      path = decodeURIComponent(rawUrl.split(/[?#]/, 1)[0]!);
    } catch {
      return { status: 400, headers: {} };
    }
    const file = this.resolve(path);
    if (file === "redirect") return { status: 301, headers: { location: `${rawUrl.split(/[?#]/, 1)[0]}/` } };
    if (file) return { status: 200, headers: { "content-type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream" }, body: this.read(file) };
    const notFound = this.resolve("/404.html");
    return { status: 404, headers: { "content-type": TYPES[".html"]! }, body: notFound && notFound !== "redirect" ? this.read(notFound) : "Not found" };
  }

  private resolve(path: string): string | "redirect" | undefined {
    const target = normalize(join(this.root, path));
    if (target !== this.root && !target.startsWith(this.root + sep)) return undefined;
    const kind = statOf(target);
    if (kind === "file") return target;
    if (kind === "dir") {
      if (statOf(join(target, "index.html")) !== "file") return undefined;
      return path.endsWith("/") ? join(target, "index.html") : "redirect";
    }
    if (!path.endsWith("/") && statOf(`${target}.html`) === "file") return `${target}.html`;
    return undefined;
  }

  private read(file: string): string | Buffer {
    const bytes = readFileSync(file);
    if (!TYPES[extname(file).toLowerCase()]) return bytes;
    let text = bytes.toString("utf8");
    for (const host of this.originalHosts) {
      const escaped = host.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      text = text.replace(new RegExp(`(?:https?:)?//${escaped}(?::\\d+)?(?![\\w.-])`, "gi"), this.origin);
    }
    return text;
  }
}

function statOf(path: string): "file" | "dir" | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
}
