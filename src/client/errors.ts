import type { components } from "./generated/openapi.js";

/** Every code the service's error envelope can carry (from the OpenAPI document). */
export type ErrorCode = components["schemas"]["Error"]["error"]["code"];
export type ErrorEnvelope = components["schemas"]["Error"];

/** Anything the client throws. */
export abstract class PmsError extends Error {}

/**
 * The service refused the request with its error envelope
 * (`{"error": {code, message, action, retryable, param?, requestId, docUrl}}`,
 * docs/api.md §4), over REST or GraphQL.
 */
export class PmsApiError extends PmsError {
  override readonly name: string = "PmsApiError";
  /** The path of the one field at fault (`url`, `Pms-Version`), when the service named one. */
  readonly param: string | undefined;
  /** Where the service's reference explains the code (relative to the service, e.g. `/docs#section/Errors/…`). */
  readonly docUrl: string | undefined;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** What to do about it, in the service's words. */
    readonly action: string,
    /** Whether the same request may succeed later (the client retries only retryable 429s). */
    readonly retryable: boolean,
    /** The X-Request-Id of the answer: quote it to support. */
    readonly requestId: string | undefined,
    /** Seconds the service asked to wait (Retry-After), when it said. */
    readonly retryAfterSeconds: number | undefined,
    /** How many times the request was sent, retries included. */
    readonly attempts: number,
    details: { readonly param?: string | undefined; readonly docUrl?: string | undefined } = {},
  ) {
    super(message);
    this.param = details.param;
    this.docUrl = details.docUrl;
  }

  /** Throttling the contract says to retry: 429 and retryable (not QUOTA_EXCEEDED, a monthly ceiling). */
  get throttled(): boolean {
    return this.status === 429 && this.retryable;
  }
}

/** A scoring job that ran and failed (its credits were refunded): the catalogue error it ended with. */
export class PmsJobFailedError extends PmsApiError {
  override readonly name: string = "PmsJobFailedError";

  constructor(
    readonly jobId: string,
    error: { code: string; message: string } | null | undefined,
    status: number,
  ) {
    super(
      status,
      (error?.code ?? "INTERNAL") as ErrorCode,
      error?.message ?? "Scoring failed.",
      "",
      false,
      undefined,
      undefined,
      1,
    );
  }
}

/** The service could not be reached, or the connection broke before an answer (no status to act on). */
export class PmsNetworkError extends PmsError {
  override readonly name = "PmsNetworkError";

  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An answer outside the contract: not JSON, or an error without the envelope (a proxy's page, say). */
export class PmsProtocolError extends PmsError {
  override readonly name = "PmsProtocolError";

  constructor(
    message: string,
    readonly status: number,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

/** Whether a parsed body is the error envelope. */
export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return (
    typeof error === "object" &&
    error !== null &&
    typeof error.code === "string" &&
    typeof error.message === "string" &&
    typeof error.retryable === "boolean"
  );
}
