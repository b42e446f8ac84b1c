import { isErrorEnvelope, PmsApiError, PmsNetworkError, PmsProtocolError, type ErrorCode } from "./errors.js";
import { errorStatus } from "./generated/openapi.js";
import { formatWait, graphQLRetryAfter, parseRetryAfter, retryDelayMs, type RetryPolicy } from "./retry.js";

/** What a retry is about to do: the refusal it follows and the wait before the next send. */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: PmsApiError;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly fetch: typeof fetch;
  readonly sleep: (ms: number) => Promise<void>;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly onRetry: ((notice: RetryNotice) => void) | undefined;
}

export interface Call {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses answered with a body that is not the error envelope (health's 503). */
  readonly bodyStatuses?: readonly number[];
  /** GraphQL over HTTP: `{errors}` answers (any status) are read by `refusal`, which names the error to act on. */
  readonly refusal?: (answer: Answer, attempt: number) => PmsApiError | undefined;
  readonly timeoutMs?: number;
  /** A successful answer is text (a CSV), not JSON: its body is the string. */
  readonly text?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body; undefined for 204. */
  readonly body: unknown;
}

/**
 * One HTTP exchange with the service, under the retry policy: the same request
 * (same headers, so the same Idempotency-Key) is sent again after a throttling
 * 429, and nothing else is retried.
 */
export class Transport {
  constructor(private readonly options: TransportOptions) {}

  async send(call: Call): Promise<Answer> {
    const url = new URL(call.path, this.options.baseUrl);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": this.options.userAgent,
      ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      ...call.headers,
    };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.exchange(url, call.method, headers, body, call.timeoutMs ?? this.options.timeoutMs);
      const answer = await this.read(response, call, attempt);
      const refusal = answer instanceof PmsApiError ? answer : call.refusal?.(answer, attempt);
      if (!refusal) return answer as Answer;
      const delayMs = refusal.throttled
        ? retryDelayMs(this.options.retry, attempt, refusal.retryAfterSeconds)
        : undefined;
      if (delayMs === undefined) throw this.unretried(refusal);
      this.options.onRetry?.({ attempt, delayMs, error: refusal });
      await this.options.sleep(delayMs);
    }
  }

  /**
   * The refusal as thrown: one whose wait is longer than the policy's longest
   * (an anonymous caller's hour) is answered at once, saying the wait.
   */
  private unretried(refusal: PmsApiError): PmsApiError {
    const seconds = refusal.retryAfterSeconds;
    if (refusal.throttled && seconds !== undefined && seconds * 1_000 > this.options.retry.maxDelayMs) {
      const longest = Math.round(this.options.retry.maxDelayMs / 1_000);
      refusal.message = `${refusal.message} Not retried: the service asks to wait ${seconds} s (${formatWait(seconds)}), beyond the client's longest wait of ${longest} s.`;
    }
    return refusal;
  }

  private async exchange(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<Response> {
    try {
      return await this.options.fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      });
    } catch (error) {
      const timedOut = (error as Error | undefined)?.name === "TimeoutError";
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = timedOut
        ? `no answer within ${timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new PmsNetworkError(`${method} ${url.origin}${url.pathname}: ${detail}`, timedOut, { cause: error });
    }
  }

  /** The answer, or the PmsApiError it carries (returned, so the loop can decide to retry). */
  private async read(response: Response, call: Call, attempt: number): Promise<Answer | PmsApiError> {
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const text = await response.text().catch(() => "");
    if (call.text && response.ok) return { status: response.status, headers: response.headers, body: text };
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new PmsProtocolError(
          `${call.method} ${call.path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 120)}`,
          response.status,
          requestId,
        );
      }
    }
    const graphQLAnswer =
      call.refusal !== undefined && typeof body === "object" && body !== null && ("errors" in body || "data" in body);
    if (response.ok || response.status === 304 || graphQLAnswer || call.bodyStatuses?.includes(response.status))
      return { status: response.status, headers: response.headers, body };
    if (!isErrorEnvelope(body)) {
      throw new PmsProtocolError(
        `${call.method} ${call.path} answered ${response.status} without the error envelope`,
        response.status,
        requestId,
      );
    }
    const { error } = body;
    return new PmsApiError(
      response.status,
      error.code,
      error.message,
      error.action,
      error.retryable,
      // The body names the request too; the header is there even when a proxy wrote the body.
      requestId ?? error.requestId,
      parseRetryAfter(response.headers.get("retry-after")),
      attempt,
      { param: error.param, docUrl: error.docUrl },
    );
  }
}

/**
 * A GraphQL error's `extensions` as the service formats them (the same catalogue
 * as REST); its wait is `extensions.retryAfter`, else the answer's Retry-After.
 */
export function graphQLError(
  error: { message: string; extensions?: Record<string, unknown> },
  answer: { status: number; requestId: string | undefined; retryAfterSeconds: number | undefined; attempts: number },
): PmsApiError {
  const extensions = error.extensions ?? {};
  const code = (typeof extensions.code === "string" ? extensions.code : "INTERNAL") as ErrorCode;
  const status = (errorStatus as Partial<Record<string, number>>)[code] ?? (answer.status >= 400 ? answer.status : 500);
  return new PmsApiError(
    status,
    code,
    error.message,
    typeof extensions.action === "string" ? extensions.action : "",
    extensions.retryable === true,
    answer.requestId ?? (typeof extensions.requestId === "string" ? extensions.requestId : undefined),
    graphQLRetryAfter(extensions) ?? answer.retryAfterSeconds,
    answer.attempts,
    {
      param: typeof extensions.param === "string" ? extensions.param : undefined,
      docUrl: typeof extensions.docUrl === "string" ? extensions.docUrl : undefined,
    },
  );
}
