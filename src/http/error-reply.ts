import type { FastifyReply } from "fastify";
import type { AppError } from "../errors.js";
import { answeredErrorCode } from "../metrics.js";

/**
 * The one writer of an error answer on a Fastify reply (docs/api.md §4): the
 * catalogue's status, the error's own headers and its envelope (naming the request,
 * as the X-Request-Id header does), counted by code.
 * Every door that answers over HTTP (the REST table, the refusals, the error and
 * not-found handlers) sends through it; a refusal written straight to a socket
 * carries the same envelope (`rawRefusal`, src/net/raw-refusal.ts).
 */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  answeredErrorCode.set(reply, error.code);
  // A 503 says when to come back, as a 429 does: a dependency that blipped is usually back within seconds.
  const retryAfter =
    error.status === 503 && !Object.keys(error.headers).some((name) => name.toLowerCase() === "retry-after")
      ? { "Retry-After": String(SERVICE_UNAVAILABLE_RETRY_SECONDS) }
      : {};
  return reply
    .code(error.status)
    .headers({ ...error.headers, ...retryAfter })
    .send(error.toEnvelope(reply.request.id));
}

/** Retry-After of a 503 that names no wait of its own. */
export const SERVICE_UNAVAILABLE_RETRY_SECONDS = 5;
