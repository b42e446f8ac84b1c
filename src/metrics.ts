import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ScoreJobRepository } from "./modules/score/score-job.repository.js";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** The error code an HTTP answer carried (set where the envelope is sent, read when the response ends). */
export const answeredErrorCode = new WeakMap<object, string>();

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The service's Prometheus metrics (prom-client), one registry per process (not the
 * library's global one, so several apps in one test process stay apart). Every label
 * is bounded: route patterns, schema root fields, the error catalogue, job kinds and
 * statuses; nothing a caller types becomes a label.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: "pms_http_request_duration_seconds",
    help: "HTTP requests by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly graphqlOperations = new Counter({
    name: "pms_graphql_operations_total",
    help: "GraphQL operations over /graphql by root field and outcome (ok or the first error code).",
    labelNames: ["field", "outcome"] as const,
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: "pms_errors_total",
    help: "Error envelopes answered, by code (rate-limit and quota refusals among them).",
    labelNames: ["code"] as const,
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: "pms_jobs_finished_total",
    help: "Scoring jobs that ended, by kind and status.",
    labelNames: ["kind", "status"] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: "pms_job_duration_seconds",
    help: "Run time of a scoring job (one attempt), by kind and status.",
    labelNames: ["kind", "status"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly pagesCrawled = new Counter({
    name: "pms_pages_crawled_total",
    help: "Pages read by the crawler for jobs that completed.",
    registers: [this.registry],
  });
  readonly creditsSpent = new Counter({
    name: "pms_credits_spent_total",
    help: "Credits charged, by action (score, chat, api_call).",
    labelNames: ["action"] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: "pms_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered, retry (failed, another attempt scheduled), failed (given up or disabled).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  constructor(jobs?: Pick<ScoreJobRepository, "countUnfinished">) {
    collectDefaultMetrics({ register: this.registry, prefix: "pms_" });
    if (jobs) {
      const registry = this.registry;
      new Gauge({
        name: "pms_jobs",
        help: "Unfinished scoring jobs by state: queued (waiting for a worker) and running (held by a live lease).",
        labelNames: ["state"] as const,
        registers: [registry],
        // One index walk over unfinished jobs at each scrape.
        async collect() {
          const { queued, running } = await jobs.countUnfinished();
          this.set({ state: "queued" }, queued);
          this.set({ state: "running" }, running);
        },
      });
    }
  }

  /** `GET /metrics` on its own port (METRICS_PORT), apart from the API. */
  async serve(port: number, host: string): Promise<{ url: string; close(): Promise<void> }> {
    const server: Server = createServer((request, response) => {
      if (request.method !== "GET" || (request.url ?? "").split("?")[0] !== "/metrics") {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      this.registry.metrics().then(
        (text) => response.writeHead(200, { "content-type": this.registry.contentType }).end(text),
        () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
      );
    });
    // A port in use is an error to report, not an 'error' event nobody listens to (which would crash the process).
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    return {
      url: `http://${host}:${address.port}/metrics`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
}
