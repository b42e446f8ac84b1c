import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import got, { type Got, type Response } from "got";
import { RefusedAddressError, type AddressGuard } from "./address-guard.js";
import { classifyContentType, sniffHtml } from "./decode.js";

/**
 * One HTTP GET of an untrusted address: every redirect hop checked by the
 * address guard before it is requested, every connection's DNS answers checked
 * by the guard's lookup, bodies streamed and cut at a size limit.
 */
export interface FetchLimits {
  readonly connectTimeoutMs: number;
  readonly pageTimeoutMs: number;
  readonly maxRedirects: number;
  readonly maxBytes: number;
}

export const defaultFetchLimits: FetchLimits = {
  connectTimeoutMs: 5_000,
  pageTimeoutMs: 15_000,
  maxRedirects: 5,
  maxBytes: 5 * 1024 * 1024,
};

export interface Fetched {
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** "html" / "xhtml" for pages; undefined for anything else when `expect` is "any". */
  readonly kind: "html" | "xhtml" | undefined;
  /** The body was longer than the limit and was cut there. */
  readonly truncated: boolean;
}

export type FetchFailureKind =
  "refused" | "unresolvable" | "timeout" | "network" | "redirects" | "not_html" | "http" | "aborted";

/** A page that could not be fetched; `reason` is short and safe to show the caller. */
export class FetchFailure extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    readonly reason: string,
    readonly url: string,
  ) {
    super(`${url}: ${reason}`);
    this.name = "FetchFailure";
  }
}

export class Fetcher {
  private readonly agents: { http: HttpAgent; https: HttpsAgent };
  /** got with this crawl's fixed options merged once, not on every request. */
  private readonly client: Got;

  constructor(
    private readonly guard: AddressGuard,
    userAgent: string,
    private readonly limits: FetchLimits = defaultFetchLimits,
    /** Connections kept per host: "a few concurrent requests per host". */
    maxSocketsPerHost = 3,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: maxSocketsPerHost, lookup: guard.lookup };
    this.agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
    this.client = got.extend({
      agent: this.agents,
      dnsLookup: guard.lookup,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: true,
      http2: false,
      timeout: {
        lookup: limits.connectTimeoutMs,
        connect: limits.connectTimeoutMs,
        secureConnect: limits.connectTimeoutMs,
      },
      headers: { "user-agent": userAgent, "accept-language": "en" },
    });
  }

  /**
   * GETs `url`. `expect: "page"` refuses anything that is not HTML/XHTML before
   * reading its body; `expect: "any"` reads text resources (robots.txt, sitemaps).
   */
  async fetch(url: string, options: { expect: "page" | "any"; signal?: AbortSignal }): Promise<Fetched> {
    const seen = new Set<string>();
    let current = url;
    for (let hop = 0; ; hop += 1) {
      if (seen.has(current)) throw new FetchFailure("redirects", "redirect loop", url);
      seen.add(current);
      const target = this.checked(current, url);
      const outcome = await this.request(target, options);
      if ("location" in outcome) {
        if (hop >= this.limits.maxRedirects) {
          throw new FetchFailure("redirects", `more than ${this.limits.maxRedirects} redirects`, url);
        }
        current = outcome.location;
        continue;
      }
      return outcome;
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private checked(href: string, original: string): URL {
    let target: URL;
    try {
      target = new URL(href);
    } catch {
      throw new FetchFailure("network", "invalid redirect target", original);
    }
    try {
      this.guard.checkUrl(target);
    } catch (error) {
      if (error instanceof RefusedAddressError) throw new FetchFailure("refused", error.message, original);
      throw error;
    }
    return target;
  }

  private async request(
    target: URL,
    options: { expect: "page" | "any"; signal?: AbortSignal },
  ): Promise<Fetched | { location: string }> {
    // One controller per request, released when it ends: AbortSignal.timeout/any would
    // keep a 15 s timer and a listener on the crawl's signal alive for every page.
    const controller = new AbortController();
    const stop = () => controller.abort();
    const timer = setTimeout(stop, this.limits.pageTimeoutMs);
    options.signal?.addEventListener("abort", stop, { once: true });
    if (options.signal?.aborted) stop();
    const stream = this.client.stream(target, {
      signal: controller.signal,
      headers: { accept: options.expect === "page" ? "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1" : "*/*" },
    });

    try {
      const response = await new Promise<Response>((resolve, reject) => {
        stream.once("response", resolve);
        stream.once("error", reject);
      });
      const status = response.statusCode;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        stream.destroy();
        return { location: new URL(location, target).toString() };
      }
      const declared = response.headers["content-type"];
      let kind = classifyContentType(declared);
      if (options.expect === "page" && declared && !kind) {
        stream.destroy();
        throw new FetchFailure("not_html", `not HTML (${declared.split(";")[0]?.trim()})`, target.toString());
      }
      const { body, truncated } = await readCapped(stream, this.limits.maxBytes);
      if (!declared && sniffHtml(body)) kind = "html";
      if (options.expect === "page" && !kind)
        throw new FetchFailure("not_html", "not HTML (no content type)", target.toString());
      return { url: response.url, status, headers: response.headers, body, kind, truncated };
    } catch (error) {
      stream.destroy();
      throw toFetchFailure(error, target.toString(), options.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", stop);
    }
  }
}

/** Reads at most `limit` bytes, then stops the transfer: a huge page never fills memory. */
async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): void }, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const room = limit - size;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      stream.destroy();
      return { body: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

function toFetchFailure(error: unknown, url: string, crawlSignal: AbortSignal | undefined): FetchFailure {
  if (error instanceof FetchFailure) return error;
  if (crawlSignal?.aborted) return new FetchFailure("aborted", "crawl time budget ended", url);
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 4; depth += 1) {
    if (cause instanceof RefusedAddressError) {
      const kind = /does not resolve/.test(cause.reason) ? "unresolvable" : "refused";
      return new FetchFailure(kind, cause.message, url);
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  const code = (error as { code?: string }).code ?? "";
  const name = (error as { name?: string }).name ?? "";
  if (
    code === "ETIMEDOUT" ||
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "ABORT_ERR" ||
    code === "ERR_ABORTED"
  ) {
    return new FetchFailure("timeout", "timed out", url);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new FetchFailure("unresolvable", "address does not resolve", url);
  if (code.startsWith("ERR_TLS") || /certificate|SSL/i.test(code)) return new FetchFailure("network", "TLS error", url);
  return new FetchFailure("network", code ? `connection failed (${code})` : "connection failed", url);
}
