import { randomUUID } from "node:crypto";
import { print, type DocumentNode, type OperationDefinitionNode } from "graphql";
import type { paths } from "./generated/openapi.js";
import {
  ProductBadgeSnippetsDocument,
  ResultBadgeSnippetsDocument,
  type ProductBadgeSnippetsQuery,
  type ResultBadgeSnippetsQuery,
  CompareScoresDocument,
  StartScoreDocument,
  type CompareScoresQuery,
  type CompareScoresQueryVariables,
  ResultPercentilesDocument,
  type ResultPercentilesQuery,
  type StartScoreMutation,
  type StartScoreMutationVariables,
} from "./generated/operations.js";
import { PmsApiError, PmsJobFailedError, PmsProtocolError } from "./errors.js";
import { errorStatus } from "./generated/openapi.js";
import { ProgressSocket, type BatchStep, type ProgressStep } from "./progress.js";
import { defaultRetryPolicy, parseRetryAfter, type RetryPolicy } from "./retry.js";
import { graphQLError, Transport, type Answer, type RetryNotice } from "./transport.js";

export {
  PmsApiError,
  PmsError,
  PmsJobFailedError,
  PmsNetworkError,
  PmsProtocolError,
  type ErrorCode,
} from "./errors.js";
export { pillarIds, pillarNames, pillarScores, type PillarId } from "./pillars.js";
export { defaultRetryPolicy, type RetryPolicy } from "./retry.js";
export type { BatchStep, ProgressStep } from "./progress.js";
export type { RetryNotice } from "./transport.js";

/** The JSON body of a response (or a request body) in the generated document types. */
type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type Responses<P extends keyof paths, M extends "get" | "post" | "patch" | "delete"> =
  NonNullable<paths[P][M]> extends { responses: infer R } ? R : never;
type Ok<P extends keyof paths, M extends "get" | "post" | "patch" | "delete", S extends number = 200> = Json<
  Responses<P, M>[S & keyof Responses<P, M>]
>;
type RequestBody<P extends keyof paths, M extends "post" | "patch"> =
  NonNullable<paths[P][M]> extends { requestBody: infer B } ? Json<B> : never;

/** The three scoring routes, by the mode the client names them with. */
const scoreRoutes = { full: "/api/score", quick: "/api/score/quick", product: "/api/score/product" } as const;
export type ScoreMode = keyof typeof scoreRoutes;
const jobKinds = { full: "score", quick: "quick", product: "product" } as const satisfies Record<
  ScoreMode,
  NonNullable<StartScoreMutationVariables["input"]["kind"]>
>;

export type ScoreRequest = RequestBody<"/api/score", "post">;
/** A finished score, as `GET /api/score/{id}` answers it. */
export type ScoreResult = Ok<"/api/score/{id}", "get">;
/** A scoring route's 200: the result (the product view for `product`), plus `claimToken` for anonymous callers. */
export type ScoreAnswer<M extends ScoreMode = ScoreMode> = Ok<(typeof scoreRoutes)[M], "post">;
/** A scoring route's 202: the job still runs (it is charged: follow it, do not send it again). */
export type ScoreAccepted<M extends ScoreMode = ScoreMode> = Ok<(typeof scoreRoutes)[M], "post", 202>;
export type ScoreJob = Ok<"/api/score/jobs/{id}", "get">;
export type ScoreHistory = Ok<"/api/scores", "get">;
export type Usage = Ok<"/api/usage", "get">;
export type Health = Ok<"/api/health", "get"> | Ok<"/api/health", "get", 503>;
export type Webhook = Ok<"/api/webhooks", "get">["webhooks"][number];
export type CreatedWebhook = Ok<"/api/webhooks", "post", 201>["webhook"];
export type WebhookRequest = RequestBody<"/api/webhooks", "post">;
export type LinkedScore = Ok<"/api/score/link", "post">;
/** A product with its schedule, badge switch, trend and a page of its results (`GET /api/products/{id}`). */
export type Product = Ok<"/api/products/{id}", "get">;
/** What `updateProduct` answers: the product's settings and trend. */
export type ProductSettings = Ok<"/api/products/{id}", "patch">["product"];
/** `monitor`: a schedule, or null to stop; `publicBadge`: the badge switch. Fields left out stay as they are. */
export type ProductChange = RequestBody<"/api/products/{id}", "patch">;
export type StartedScore = StartScoreMutation["startScore"];
/** A batch, as `POST /api/score/batch` (202) and `GET /api/score/batches/{id}` answer it. */
export type ScoreBatch = Ok<"/api/score/batches/{id}", "get">;
export type ScoreBatchRequest = RequestBody<"/api/score/batch", "post">;
/** A score badge: the SVG image's address, Markdown and HTML that embed it, and the SVG itself. */
export interface Badge {
  readonly url: string;
  readonly markdown: string;
  readonly html: string;
  readonly svg: string;
}
/** The change from a baseline result to another (`compare`): every delta is the result minus the baseline. */
export type ScoreComparison = CompareScoresQuery["scoreResult"]["compareTo"];
/** A result against the population of its framework version: `available`, else `reason` (docs/api.md §13). */
export type Percentiles = ResultPercentilesQuery["scoreResult"]["percentiles"];
/**
 * What `score()` answers, told apart by `status`: `completed` holds the result;
 * `accepted` means the service's wait ran out and the job goes on (it is charged:
 * follow `job.id` with `waitForJob` or `followProgress`, do not score again).
 */
export type ScoreOutcome<M extends ScoreMode = ScoreMode> =
  | { readonly status: "completed"; readonly result: ScoreAnswer<M> }
  | ({ readonly status: "accepted" } & ScoreAccepted<M>);

export interface ScoreOptions<M extends ScoreMode = ScoreMode> {
  /** full (the default: maturity framework, full crawl), quick (at most 5 pages) or product (product framework, attached to a product). */
  readonly mode?: M;
  /** Free text about the product; it informs, never outweighs, the site. */
  readonly context?: string;
  /** Makes the request safe to send again; by default a new random UUID per call, sent on each of its retries. */
  readonly idempotencyKey?: string;
}

export interface PmsClientOptions {
  /** The service, e.g. `https://api.example.com` (paths start at `/api` and `/graphql`). */
  readonly baseUrl: string;
  /** An API key (`pms_live_…`, or `pms_test_…` outside production), sent as `Authorization: Bearer <key>`; without one, only public and anonymous calls work. */
  readonly apiKey?: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Per request, except the scoring POSTs (default 30 s). */
  readonly timeoutMs?: number;
  /** The scoring POSTs wait for the result on the service (SCORE_WAIT_SECONDS, up to 600 s): default 11 minutes. */
  readonly scoreTimeoutMs?: number;
  /** Called before each retry (to tell a person why it waits). */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** For tests and other runtimes. */
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly webSocketImpl?: unknown;
  readonly userAgent?: string;
}

/**
 * A typed client of the service's REST API (types generated from its OpenAPI
 * document) plus the two GraphQL operations REST cannot express: starting a job
 * without waiting, and following its progress over graphql-ws.
 */
export class PmsClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly progress: ProgressSocket;
  private readonly scoreTimeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: PmsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.scoreTimeoutMs = options.scoreTimeoutMs ?? 660_000;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      fetch: options.fetch ?? globalThis.fetch,
      sleep: this.sleep,
      retry: { ...defaultRetryPolicy, ...options.retry },
      timeoutMs: options.timeoutMs ?? 30_000,
      userAgent: options.userAgent ?? "pms-client",
      onRetry: options.onRetry,
    });
    this.progress = new ProgressSocket(this.baseUrl, options.apiKey, options.webSocketImpl);
  }

  /**
   * Scores an address and waits on the service (`POST /api/score`, `/quick` or
   * `/product`): `{status: "completed", result}` when it finished within the
   * service's wait, else `{status: "accepted", job}` to follow (`waitForJob`).
   */
  async score<M extends ScoreMode = "full">(url: string, options: ScoreOptions<M> = {}): Promise<ScoreOutcome<M>> {
    const body: ScoreRequest = { url, ...(options.context === undefined ? {} : { context: options.context }) };
    const answer = await this.transport.send({
      method: "POST",
      path: scoreRoutes[options.mode ?? "full"],
      body,
      headers: { "idempotency-key": options.idempotencyKey ?? randomUUID() },
      timeoutMs: this.scoreTimeoutMs,
    });
    if (answer.status === 202)
      return { status: "accepted", ...(answer.body as object) } as { status: "accepted" } & ScoreAccepted<M>;
    return { status: "completed", result: answer.body as ScoreAnswer<M> };
  }

  /** Scores and waits to the end, following the job when the service's wait ran out; answers the stored result. */
  async scoreToCompletion(url: string, options: ScoreOptions = {}): Promise<ScoreResult | ScoreAnswer> {
    const answer = await this.score(url, options);
    if (answer.status === "completed") return answer.result;
    const job = await this.waitForJob(answer.job.id);
    return this.result(job.resultId!);
  }

  /**
   * Starts a job and answers at once (GraphQL `startScore` over HTTP, same
   * Idempotency-Key, charging and retry policy as the REST routes): follow it
   * with `followProgress`, then read `result(resultId)`.
   */
  async startScore(url: string, options: ScoreOptions = {}): Promise<StartedScore> {
    const variables: StartScoreMutationVariables = {
      input: { url, kind: jobKinds[options.mode ?? "full"], context: options.context ?? null },
    };
    const answer = await this.transport.send({
      method: "POST",
      path: "/graphql",
      body: { query: print(StartScoreDocument), variables, operationName: "StartScore" },
      headers: { "idempotency-key": options.idempotencyKey ?? randomUUID() },
      refusal: graphQLRefusal,
    });
    const data = (answer.body as { data?: StartScoreMutation | null }).data;
    if (!data)
      throw new PmsProtocolError(
        "startScore answered no data",
        answer.status,
        answer.headers.get("x-request-id") ?? undefined,
      );
    return data.startScore;
  }

  /** The job's steps as they happen over graphql-ws, ending after `completed` or `failed`. */
  followProgress(jobId: string): AsyncGenerator<ProgressStep, void, undefined> {
    return this.progress.follow(jobId);
  }

  /** `GET /api/score/jobs/{id}`. */
  async job(id: string): Promise<ScoreJob> {
    return (await this.get(`/api/score/jobs/${encodeURIComponent(id)}`)).body as ScoreJob;
  }

  /**
   * Polls the job until it ends (REST only, for where a socket cannot go);
   * a failed job throws PmsJobFailedError.
   */
  async waitForJob(
    id: string,
    options: { intervalMs?: number; timeoutMs?: number; onProgress?: (job: ScoreJob) => void } = {},
  ): Promise<ScoreJob & { resultId: string }> {
    const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
    for (;;) {
      const job = await this.job(id);
      options.onProgress?.(job);
      if (job.status === "completed" && job.resultId) return job as ScoreJob & { resultId: string };
      if (job.status === "failed") throw jobFailure(job.id, job.error);
      if (Date.now() > deadline) throw new Error(`job ${id} is still ${job.status}`);
      await this.sleep(options.intervalMs ?? 1_000);
    }
  }

  /**
   * `POST /api/score/batch`: 1 to 100 addresses scored together (Business and
   * Enterprise plans). Answers at once with the batch: refused addresses listed with
   * their error (not charged), the rest queued and charged together. Follow it with
   * `followBatch` or `batch`.
   */
  async scoreBatch(
    urls: readonly string[],
    options: { readonly context?: string; readonly idempotencyKey?: string } = {},
  ): Promise<ScoreBatch> {
    const body: ScoreBatchRequest = {
      urls: [...urls],
      ...(options.context === undefined ? {} : { context: options.context }),
    };
    const answer = await this.transport.send({
      method: "POST",
      path: "/api/score/batch",
      body,
      headers: { "idempotency-key": options.idempotencyKey ?? randomUUID() },
    });
    return answer.body as ScoreBatch;
  }

  /** `GET /api/score/batches/{id}`: the batch, its items' status and results. */
  async batch(id: string): Promise<ScoreBatch> {
    return (await this.get(`/api/score/batches/${encodeURIComponent(id)}`)).body as ScoreBatch;
  }

  /** `GET /api/score/batches/{id}` with `Accept: text/csv`: url, status, result_id, total_score, stage, error_code, error_message. */
  async batchCsv(id: string): Promise<string> {
    const answer = await this.transport.send({
      method: "GET",
      path: `/api/score/batches/${encodeURIComponent(id)}`,
      headers: { accept: "text/csv" },
      text: true,
    });
    return answer.body as string;
  }

  /** The batch over graphql-ws: as it is now, then each time an item changes, ending once it is completed. */
  followBatch(id: string): AsyncGenerator<BatchStep, void, undefined> {
    return this.progress.followBatch(id);
  }

  /** `GET /api/score/{id}`: public, for share links. */
  async result(id: string): Promise<ScoreResult> {
    return (await this.get(`/api/score/${encodeURIComponent(id)}`)).body as ScoreResult;
  }

  /**
   * A result's badge (`GET /r/{id}/badge.svg`; public, like the result): the image's
   * address and the Markdown and HTML that embed it, linking to the share page.
   * GraphQL `scoreResult.badge`, since the image route answers the SVG alone.
   */
  async badge(resultId: string): Promise<Badge> {
    return (await this.query<ResultBadgeSnippetsQuery>(ResultBadgeSnippetsDocument, { id: resultId })).scoreResult
      .badge;
  }

  /**
   * A product's public badge (`GET /api/products/{id}/badge.svg`): its latest
   * result's, for anyone, while its owner has publicBadge on; NOT_FOUND otherwise.
   */
  async productBadge(productId: string): Promise<Badge> {
    return (await this.query<ProductBadgeSnippetsQuery>(ProductBadgeSnippetsDocument, { id: productId })).productBadge;
  }

  /**
   * The change from `otherId` (the baseline, usually the earlier result) to `id`:
   * GraphQL `scoreResult(id).compareTo(id: otherId)`, the same answer as
   * `GET /api/score/{id}/compare/{otherId}`. Public. Results of two framework
   * versions are refused (VALIDATION_FAILED, `param: allowVersionMismatch`) unless
   * `allowVersionMismatch`; two frameworks always; an unknown id is NOT_FOUND.
   */
  async compare(
    id: string,
    otherId: string,
    options: { allowVersionMismatch?: boolean } = {},
  ): Promise<ScoreComparison> {
    const variables: CompareScoresQueryVariables = {
      id,
      otherId,
      allowVersionMismatch: options.allowVersionMismatch ?? false,
    };
    const answer = await this.transport.send({
      method: "POST",
      path: "/graphql",
      body: { query: print(CompareScoresDocument), variables, operationName: "CompareScores" },
      refusal: graphQLRefusal,
    });
    const data = (answer.body as { data?: CompareScoresQuery | null }).data;
    if (!data)
      throw new PmsProtocolError(
        "compareTo answered no data",
        answer.status,
        answer.headers.get("x-request-id") ?? undefined,
      );
    return data.scoreResult.compareTo;
  }

  /**
   * The result's percentiles among the latest full results of distinct sites of its
   * framework version (GraphQL `scoreResult.percentiles`; REST answers them in the
   * product view only). Public, like `result`.
   */
  async percentiles(resultId: string): Promise<Percentiles> {
    const answer = await this.transport.send({
      method: "POST",
      path: "/graphql",
      body: {
        query: print(ResultPercentilesDocument),
        variables: { id: resultId },
        operationName: "ResultPercentiles",
      },
      refusal: graphQLRefusal,
    });
    const data = (answer.body as { data?: ResultPercentilesQuery | null }).data;
    if (!data)
      throw new PmsProtocolError(
        "scoreResult answered no data",
        answer.status,
        answer.headers.get("x-request-id") ?? undefined,
      );
    return data.scoreResult.percentiles;
  }

  /** `GET /api/scores`: the account's results, newest first. */
  async history(options: { limit?: number; cursor?: string } = {}): Promise<ScoreHistory> {
    return (await this.get("/api/scores", { limit: options.limit, cursor: options.cursor })).body as ScoreHistory;
  }

  /** `POST /api/score/link`: moves a held anonymous result into the account's history. */
  async link(resultId: string, claimToken: string): Promise<LinkedScore> {
    const body: RequestBody<"/api/score/link", "post"> = { resultId, claimToken };
    return (await this.transport.send({ method: "POST", path: "/api/score/link", body })).body as LinkedScore;
  }

  /** `GET /api/usage`: credits and quotas of this cycle. */
  async usage(): Promise<Usage> {
    return (await this.get("/api/usage")).body as Usage;
  }

  /** `GET /api/health`: the body of a 200 (pass, warn) or of a 503 (fail). */
  async health(): Promise<Health> {
    return (await this.transport.send({ method: "GET", path: "/api/health", bodyStatuses: [503] })).body as Health;
  }

  /** `GET /api/products/{id}`: the product, its monitor schedule, its trend (`trend` points, 1–52) and a page of results. */
  async product(id: string, options: { limit?: number; cursor?: string; trend?: number } = {}): Promise<Product> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.cursor !== undefined) query.set("cursor", options.cursor);
    if (options.trend !== undefined) query.set("trend", String(options.trend));
    const suffix = query.size > 0 ? `?${query}` : "";
    return (await this.get(`/api/products/${encodeURIComponent(id)}${suffix}`)).body as Product;
  }

  /**
   * `PATCH /api/products/{id}`: monitor the product (`{monitor: {interval: "weekly"}}`),
   * stop (`{monitor: null}`), or switch its public badge (`{publicBadge: true}`).
   */
  async updateProduct(id: string, change: ProductChange): Promise<ProductSettings> {
    const answer = await this.transport.send({
      method: "PATCH",
      path: `/api/products/${encodeURIComponent(id)}`,
      body: change,
    });
    return (answer.body as Ok<"/api/products/{id}", "patch">).product;
  }

  readonly webhooks = {
    /** `GET /api/webhooks`, newest first. */
    list: async (): Promise<Webhook[]> =>
      ((await this.get("/api/webhooks")).body as Ok<"/api/webhooks", "get">).webhooks,
    /** `POST /api/webhooks`: the answer holds the signing secret, shown this once. */
    create: async (url: string, options: { events?: WebhookRequest["events"] } = {}): Promise<CreatedWebhook> => {
      const body: WebhookRequest = { url, ...(options.events ? { events: options.events } : {}) };
      return (
        (await this.transport.send({ method: "POST", path: "/api/webhooks", body })).body as Ok<
          "/api/webhooks",
          "post",
          201
        >
      ).webhook;
    },
    /** `GET /api/webhooks/{id}`. */
    get: async (id: string): Promise<Webhook> =>
      ((await this.get(`/api/webhooks/${encodeURIComponent(id)}`)).body as Ok<"/api/webhooks/{id}", "get">).webhook,
    /** `DELETE /api/webhooks/{id}`, with its delivery log. */
    delete: async (id: string): Promise<void> => {
      await this.transport.send({ method: "DELETE", path: `/api/webhooks/${encodeURIComponent(id)}` });
    },
  };

  /** Closes the progress socket, if one is open. */
  async close(): Promise<void> {
    await this.progress.close();
  }

  /** A read over GraphQL (POST /graphql), with the same retry policy and errors as REST. */
  private async query<TData>(document: DocumentNode, variables: Record<string, unknown>): Promise<TData> {
    const operationName = (document.definitions[0] as OperationDefinitionNode).name?.value;
    const answer = await this.transport.send({
      method: "POST",
      path: "/graphql",
      body: { query: print(document), variables, operationName },
      refusal: graphQLRefusal,
    });
    const data = (answer.body as { data?: TData | null }).data;
    if (!data)
      throw new PmsProtocolError(
        `${operationName} answered no data`,
        answer.status,
        answer.headers.get("x-request-id") ?? undefined,
      );
    return data;
  }

  private get(path: string, query?: Record<string, string | number | undefined>): Promise<Answer> {
    return this.transport.send({ method: "GET", path, ...(query ? { query } : {}) });
  }
}

/** A GraphQL answer's first error, as the service's catalogue says it (code, action, retryable). */
function graphQLRefusal(answer: Answer, attempt: number): PmsApiError | undefined {
  const [first] =
    (answer.body as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }).errors ?? [];
  if (!first) return undefined;
  return graphQLError(first, {
    status: answer.status,
    requestId: answer.headers.get("x-request-id") ?? undefined,
    retryAfterSeconds: parseRetryAfter(answer.headers.get("retry-after")),
    attempts: attempt,
  });
}

/** A failed job's error, with the status its code has in the catalogue (CRAWL_FAILED, INVALID_URL …). */
export function jobFailure(
  jobId: string,
  error: { code: string; message: string } | null | undefined,
): PmsJobFailedError {
  return new PmsJobFailedError(
    jobId,
    error,
    (errorStatus as Partial<Record<string, number>>)[error?.code ?? ""] ?? 500,
  );
}
