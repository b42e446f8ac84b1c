import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { RefusedAddressError, type AddressGuard } from "../address-guard.js";

/**
 * The only way out for a rendered page. Chromium is started with
 * `--proxy-server` pointing here and `--proxy-bypass-list=<-loopback>`, and with
 * its own name resolution switched off, so every connection a page opens
 * (documents, scripts, fetch/XHR, WebSockets, iframes, redirects, service workers,
 * `location` changes) arrives here as an absolute-form request or a CONNECT. Each
 * one is judged by the crawler's AddressGuard where the connection is made: the
 * name is resolved here, every address it resolves to is checked, and the socket
 * goes to a checked address, so neither the browser nor a rebinding DNS answer
 * can lead a page to this machine, the private network or a metadata endpoint.
 *
 * It listens on 127.0.0.1 only, on a port of its own, and refuses any request that
 * is not a proxy request (a page cannot talk to it as an origin: loopback is
 * proxied like everything else and judged by the guard).
 */

export interface ProxyRefusal {
  readonly target: string;
  readonly reason: string;
}

export interface GuardedProxyOptions {
  /** Tunnels and forwarded requests open at once; more are refused (503). */
  readonly maxConnections?: number;
  /** A connection quiet for this long is closed. */
  readonly idleTimeoutMs?: number;
  /** Told of every refusal (logs, tests). */
  readonly onRefused?: (refusal: ProxyRefusal) => void;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export class GuardedProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Duplex>();
  private open = 0;
  private readonly maxConnections: number;
  private readonly idleTimeoutMs: number;

  constructor(
    private readonly guard: AddressGuard,
    private readonly options: GuardedProxyOptions = {},
  ) {
    this.maxConnections = options.maxConnections ?? 256;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  }

  /** Starts listening on 127.0.0.1 and answers "http://127.0.0.1:<port>". */
  async start(): Promise<string> {
    // Nothing a request does may escape as an unhandled rejection (it would end the process): the connection is dropped instead.
    const server = createServer(
      { requestTimeout: 0 },
      (request, response) => void this.forward(request, response).catch(() => response.destroy()),
    );
    server.on(
      "connect",
      (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        void this.tunnel(request, socket, head).catch(() => socket.destroy()),
    );
    server.on(
      "upgrade",
      (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        void this.upgrade(request, socket, head).catch(() => socket.destroy()),
    );
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.setTimeout(this.idleTimeoutMs, () => socket.destroy());
      socket.once("close", () => this.sockets.delete(socket));
    });
    server.on("clientError", (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Plain http:// requests in absolute form ("GET http://host/path HTTP/1.1"). */
  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = absoluteTarget(request.url);
    if (!target || target.protocol !== "http:") {
      refuse(response, 400, "not a proxy request");
      return;
    }
    const address = await this.admit(target, response);
    if (!address) return;
    if (this.open >= this.maxConnections) {
      refuse(response, 503, "too many connections");
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers["host"] = target.host;
    this.open++;
    const outbound = httpRequest({
      host: address.address,
      family: address.family,
      port: Number(target.port || 80),
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      timeout: this.idleTimeoutMs,
    });
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.open--;
      }
    };
    outbound.on("response", (answer) => {
      const kept: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
      }
      response.writeHead(answer.statusCode ?? 502, kept);
      answer.pipe(response);
      answer.once("end", release);
      answer.once("error", () => response.destroy());
    });
    outbound.on("timeout", () => outbound.destroy(new Error("timed out")));
    outbound.on("error", () => {
      release();
      if (!response.headersSent) refuse(response, 502, "connection failed");
      else response.destroy();
    });
    response.once("close", () => {
      release();
      outbound.destroy();
    });
    request.pipe(outbound);
  }

  /** CONNECT host:port: https://, wss:// and anything Chromium tunnels. */
  private async tunnel(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const authority = request.url ?? "";
    const target = connectTarget(authority);
    if (!target) {
      rawRefuse(client, 400, "not a host:port");
      return;
    }
    const address = await this.admit(target, client);
    if (!address) return;
    this.splice(
      client,
      head,
      address,
      Number(target.port || (target.protocol === "https:" ? 443 : 80)),
      "HTTP/1.1 200 Connection Established\r\n\r\n",
    );
  }

  /** A WebSocket upgrade in absolute form (ws:// through an HTTP proxy). */
  private async upgrade(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const target = absoluteTarget(request.url);
    if (!target || target.protocol !== "http:") {
      rawRefuse(client, 400, "not a proxy request");
      return;
    }
    const address = await this.admit(target, client);
    if (!address) return;
    const lines = [`${request.method} ${target.pathname}${target.search} HTTP/1.1`];
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i]!;
      if (/^proxy-/i.test(name)) continue;
      lines.push(`${name}: ${name.toLowerCase() === "host" ? target.host : request.rawHeaders[i + 1]}`);
    }
    this.splice(client, head, address, Number(target.port || 80), undefined, `${lines.join("\r\n")}\r\n\r\n`);
  }

  private splice(
    client: Duplex,
    head: Buffer,
    address: { address: string; family: 4 | 6 },
    port: number,
    established?: string,
    preamble?: string,
  ): void {
    if (this.open >= this.maxConnections) {
      rawRefuse(client, 503, "too many connections");
      return;
    }
    this.open++;
    const upstream = connect({ host: address.address, family: address.family, port });
    this.sockets.add(upstream);
    upstream.setTimeout(this.idleTimeoutMs, () => upstream.destroy());
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      this.open--;
      this.sockets.delete(upstream);
      upstream.destroy();
      client.destroy();
    };
    upstream.once("connect", () => {
      if (established) client.write(established);
      if (preamble) upstream.write(preamble);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", () => {
      if (!upstream.connecting || established === undefined) return end();
      rawRefuse(client, 502, "connection failed");
      end();
    });
    upstream.once("close", end);
    client.once("error", end);
    client.once("close", end);
  }

  /**
   * The guard's two checks, as the crawler's fetcher makes them: the URL (scheme,
   * port, literal addresses, special names), then every address the name resolves
   * to. Answers the address to connect to, or refuses and answers undefined.
   */
  private async admit(
    target: URL,
    answer: ServerResponse | Duplex,
  ): Promise<{ address: string; family: 4 | 6 } | undefined> {
    try {
      this.guard.checkUrl(target);
      const [first] = await this.guard.resolve(target.hostname);
      if (!first) throw new RefusedAddressError("does not resolve", target.hostname);
      return first;
    } catch (error) {
      const reason = error instanceof RefusedAddressError ? error.reason : "could not be resolved";
      try {
        this.options.onRefused?.({ target: target.host, reason });
      } catch {
        // Whoever listens may fail; the refusal still goes out.
      }
      if ("writeHead" in answer) refuse(answer, 403, `refused: ${reason}`);
      else rawRefuse(answer, 403, `refused: ${reason}`);
      return undefined;
    }
  }
}

/** "http://host/path" as a proxy receives it; undefined for origin-form requests ("/path"). */
function absoluteTarget(url: string | undefined): URL | undefined {
  if (!url || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** "host:443" of a CONNECT, as the URL the guard judges: port 443 is https, 80 is http, others are as they are. */
function connectTarget(authority: string): URL | undefined {
  if (!/^(?:\[[0-9a-f:.]+\]|[^\s/:@[\]]+):\d{1,5}$/i.test(authority)) return undefined;
  const port = Number(authority.slice(authority.lastIndexOf(":") + 1));
  if (!(port > 0 && port < 65_536)) return undefined;
  try {
    return new URL(`${port === 80 ? "http" : "https"}://${authority}/`);
  } catch {
    return undefined;
  }
}

function refuse(response: ServerResponse, status: number, reason: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end(`${reason}\n`);
}

function rawRefuse(socket: Duplex, status: number, reason: string): void {
  const text =
    { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable" }[status] ?? "Error";
  if (!socket.destroyed)
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`,
    );
}
