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
  // A 503 carries its Retry-After from the error itself (AppError), so GraphQL's extensions.retryAfter agrees.
  return reply.code(error.status).headers(error.headers).send(error.toEnvelope(reply.request.id));
}
