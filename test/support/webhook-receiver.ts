import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { IncomingHttpHeaders } from "node:http";

export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Text, or bytes as they are to be sent (a binary answer). */
  readonly body?: string | Uint8Array;
}

/**
 * An HTTPS endpoint on 127.0.0.1 for webhook tests, with a certificate of the run's
 * test CA. `answer` decides each response (default 200), and may take its time (a
 * receiver still working on a request); `received` keeps every request as it
 * arrives. It can stop and start again on the same port (a receiver that is down).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (request: ReceivedWebhook) => ReceiverAnswer | Promise<ReceiverAnswer> = () => ({ status: 200, body: "ok" });
  private server: Server | undefined;
  port = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly tls: { key: string; cert: string }) {}

  get listening(): boolean {
    return this.server !== undefined;
  }

  url(path = "/hook"): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  async start(port = this.port): Promise<this> {
    this.server = createServer({ key: this.tls.key, cert: this.tls.cert }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const received = {
          path: request.url ?? "/",
          headers: request.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
        };
        this.received.push(received);
        for (const wake of this.waiters.splice(0)) wake();
        const { status, headers, body } = await this.answer(received);
        response.writeHead(status, { "content-type": "text/plain", ...headers });
        response.end(body ?? "");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `count` requests (in all) have arrived, or rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} webhook requests, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }
}
