import { print } from "graphql";
import { createClient, type Client } from "graphql-ws";
import { WebSocket } from "ws";
import { PmsError, PmsNetworkError } from "./errors.js";
import {
  FollowBatchDocument,
  type FollowBatchSubscription,
  FollowScoreProgressDocument,
  type FollowScoreProgressSubscription,
  type FollowScoreProgressSubscriptionVariables,
} from "./generated/operations.js";
import { graphQLError } from "./transport.js";

/** One step of a job: queued → crawling (page n of pages, url) → scoring (dimension k of 27) → completed (resultId) | failed (error). */
export type ProgressStep = FollowScoreProgressSubscription["scoreProgress"];

const FOLLOW_QUERY = print(FollowScoreProgressDocument);
const FOLLOW_BATCH_QUERY = print(FollowBatchDocument);

/** A batch as batchProgress streams it. */
export type BatchStep = FollowBatchSubscription["batchProgress"];

/**
 * `scoreProgress` over graphql-ws at `/graphql`, one socket per client, opened on
 * the first subscription and closed when the last one ends. The API key goes in
 * `connectionParams`, where the service looks for it on a socket.
 */
export class ProgressSocket {
  private client: Client | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly webSocketImpl: unknown = WebSocket,
  ) {}

  /** The job's steps as they happen, ending after `completed` or `failed`. */
  async *follow(jobId: string): AsyncGenerator<ProgressStep, void, undefined> {
    const variables: FollowScoreProgressSubscriptionVariables = { jobId };
    const iterator = this.socket().iterate<FollowScoreProgressSubscription>({
      query: FOLLOW_QUERY,
      variables,
      operationName: "FollowScoreProgress",
    });
    try {
      for (;;) {
        let next: IteratorResult<{
          data?: FollowScoreProgressSubscription | null;
          errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>;
        }>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw streamError(error, jobId);
        }
        if (next.done) return;
        const [first] = next.value.errors ?? [];
        if (first)
          throw graphQLError(first, { status: 200, requestId: undefined, retryAfterSeconds: undefined, attempts: 1 });
        const step = next.value.data?.scoreProgress;
        if (!step) continue;
        yield step;
        if (step.status === "completed" || step.status === "failed") return;
      }
    } finally {
      await iterator.return?.();
    }
  }

  /** The batch now, then each time one of its items changes, ending once the batch is completed. */
  async *followBatch(batchId: string): AsyncGenerator<BatchStep, void, undefined> {
    const iterator = this.socket().iterate<FollowBatchSubscription>({
      query: FOLLOW_BATCH_QUERY,
      variables: { id: batchId },
      operationName: "FollowBatch",
    });
    try {
      for (;;) {
        let next: IteratorResult<{
          data?: FollowBatchSubscription | null;
          errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>;
        }>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw streamError(error, `batch ${batchId}`);
        }
        if (next.done) return;
        const [first] = next.value.errors ?? [];
        if (first)
          throw graphQLError(first, { status: 200, requestId: undefined, retryAfterSeconds: undefined, attempts: 1 });
        const batch = next.value.data?.batchProgress;
        if (!batch) continue;
        yield batch;
        if (batch.status === "completed") return;
      }
    } finally {
      await iterator.return?.();
    }
  }

  async close(): Promise<void> {
    await this.client?.dispose();
    this.client = undefined;
  }

  private socket(): Client {
    this.client ??= createClient({
      url: `${this.baseUrl.replace(/^http/, "ws").replace(/\/$/, "")}/graphql`,
      webSocketImpl: this.webSocketImpl,
      connectionParams: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      // A dropped socket is reopened and the subscription sent again: the service answers the current step first.
      retryAttempts: 2,
      lazy: true,
    });
    return this.client;
  }
}

/** What graphql-ws throws: the server's errors (a list), a close event, or the socket's error. */
function streamError(error: unknown, jobId: string): PmsError {
  if (Array.isArray(error) && error.length > 0) {
    return graphQLError(error[0] as { message: string; extensions?: Record<string, unknown> }, {
      status: 200,
      requestId: undefined,
      retryAfterSeconds: undefined,
      attempts: 1,
    });
  }
  if (error instanceof PmsError) return error;
  const event = error as { code?: unknown; reason?: unknown; message?: unknown; error?: unknown };
  if (typeof event.code === "number") {
    return new PmsNetworkError(
      `progress of job ${jobId}: the socket closed (${event.code}${event.reason ? ` ${String(event.reason)}` : ""})`,
      false,
      { cause: error },
    );
  }
  const detail =
    event.error instanceof Error
      ? event.error.message
      : typeof event.message === "string"
        ? event.message
        : String(error);
  return new PmsNetworkError(`progress of job ${jobId}: ${detail || "the socket failed"}`, false, { cause: error });
}
