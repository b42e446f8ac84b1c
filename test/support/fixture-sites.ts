import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Local websites for crawler tests: one node:http server on 127.0.0.1 answers
 * for any number of made-up hosts (acme.test, docs.acme.test …), chosen by the
 * Host header. Tests point the crawler's resolver at it, so no request ever
 * leaves the machine.
 */
export type Route =
  | string
  | {
      status?: number;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Full control: hang, stream, redirect … */
      handle?: (request: IncomingMessage, response: ServerResponse) => void;
    };

export type Site = Record<string, Route>;

export interface SeenRequest {
  readonly host: string;
  readonly path: string;
  readonly userAgent: string | undefined;
  readonly at: number;
}

export class FixtureSites {
  private server: Server | undefined;
  readonly requests: SeenRequest[] = [];
  /** Bytes written per `host + path`, to check that big bodies were cut short. */
  readonly bytesSent = new Map<string, number>();
  port = 0;

  constructor(private readonly sites: Record<string, Site>) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => this.answer(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** `http://host:port/path` for a fixture host. */
  url(host: string, path = "/"): string {
    return `http://${host}:${this.port}${path}`;
  }

  requestsTo(host: string): SeenRequest[] {
    return this.requests.filter((request) => request.host === host);
  }

  private answer(request: IncomingMessage, response: ServerResponse) {
    const host = (request.headers.host ?? "").replace(/:\d+$/, "");
    const path = request.url ?? "/";
    this.requests.push({ host, path, userAgent: request.headers["user-agent"], at: performance.now() });
    const route = this.sites[host]?.[path] ?? this.sites[host]?.[path.split("?")[0] ?? path];
    if (route === undefined) {
      response
        .writeHead(404, { "content-type": "text/html" })
        .end("<!doctype html><title>Not found</title><p>Not found</p>");
      return;
    }
    if (typeof route === "string") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
      return;
    }
    if (route.handle) {
      const write = response.write.bind(response);
      response.write = ((chunk: Buffer | string, ...rest: never[]) => {
        this.bytesSent.set(host + path, (this.bytesSent.get(host + path) ?? 0) + Buffer.byteLength(chunk));
        return write(chunk, ...rest);
      }) as typeof response.write;
      route.handle(request, response);
      return;
    }
    response
      .writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8", ...route.headers })
      .end(route.body ?? "");
  }
}

/** Answers one route as the fixture server does (no `handle`), or 404: for tests that serve a site of their own. */
export function serveRoute(route: Route | undefined, response: ServerResponse): void {
  if (route === undefined) response.writeHead(404).end();
  else if (typeof route === "string")
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
  else
    response
      .writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8", ...route.headers })
      .end(route.body ?? "");
}

/** Resolves every `*.test` host to the fixture server; anything else does not exist. */
export function fixtureResolver(overrides: Record<string, string[]> = {}) {
  return async (hostname: string) => {
    const answer = overrides[hostname] ?? (hostname.endsWith(".test") || hostname === "test" ? ["127.0.0.1"] : []);
    return answer.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
}

/** A small HTML document with the given head and body. */
export function page(title: string, body: string, head = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}
