import { maxHeaderSize } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.js";
import { rawRefusal } from "../net/raw-refusal.js";
import { sendError } from "./error-reply.js";
import { notFound } from "./method-refusals.js";

/**
 * Requests refused before any route runs, each answered with the §4 envelope instead
 * of Fastify's or Node's own `{"error":"Bad Request",…}`.
 */

/**
 * `frameworkErrors`: the router could not match the path. A path whose percent-encoding
 * is not valid UTF-8 (`%ZZ`, `%FF`, the overlong `%C0%AF`) is refused as 400
 * VALIDATION_FAILED, not 404: no resource can be named by it, so the fault is the
 * caller's encoding, and a 404 would send them looking for a missing record instead.
 * A path parameter over the router's length limit names no record either; it answers
 * 404 like the same overlong id under `/api`, which the table's catch-all answers.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // No route context here, so the server's onRequest/onSend hooks do not run.
  reply
    .header("x-request-id", request.id)
    .header("x-content-type-options", "nosniff")
    .header("cache-control", "no-store");
  const path = request.url.split("?")[0];
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      return sendError(
        reply,
        new AppError("VALIDATION_FAILED", `path: ${path} holds malformed percent-encoding.`, {
          action: "Percent-encode the path as UTF-8 (for example %C3%A9 for é) and send the request again.",
        }),
      );
    case "FST_ERR_MAX_PARAM_LENGTH":
      return sendError(reply, notFound(request));
    default:
      request.log.error({ err: error }, "unexpected router error");
      return sendError(reply, new AppError("INTERNAL", "An unexpected error occurred."));
  }
}

/** What Node's parser reports on the `clientError` event. */
interface ClientError extends Error {
  code?: string;
  /** llhttp's fixed description of the fault, e.g. "Invalid header value char". */
  reason?: unknown;
}

/**
 * `clientErrorHandler`: Node's HTTP parser refused the request (headers or URL over
 * the limit, a bad Content-Length, Content-Length with Transfer-Encoding, a control
 * character in a header, an unknown HTTP version, bytes that are not HTTP), so there
 * is no request object. One short response is written, as Node does, only while the
 * socket is writable and no answer has started on it; the connection is then closed.
 */
export function answerClientError(error: ClientError, socket: Duplex, requestId: string, log: FastifyBaseLogger): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || socket.destroyed || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  log.debug({ err: error, reqId: requestId }, "malformed request refused");
  const { status, refusal } = refusalFor(error);
  socket.write(rawRefusal(status, refusal.toEnvelope(requestId), { "X-Request-Id": requestId }));
  socket.destroy(error);
}

function refusalFor(error: ClientError): { status: number; refusal: AppError } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW": {
      // No catalogue code is 431; PAYLOAD_TOO_LARGE says what to change, the status says where.
      const limit = `${Math.floor(maxHeaderSize / 1024)} KiB`;
      const refusal = new AppError("PAYLOAD_TOO_LARGE", `The request line and headers exceed ${limit}.`, {
        action: `Send a URL and headers of at most ${limit} in all; put large input in a JSON body.`,
      });
      return { status: 431, refusal };
    }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        status: 413,
        refusal: new AppError("PAYLOAD_TOO_LARGE", "The request's chunk extensions are too large."),
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        refusal: new AppError("VALIDATION_FAILED", "The request was not received in time.", {
          action: "Send the whole request without pausing.",
        }),
      };
    default: {
      // llhttp's reasons are fixed ASCII sentences; anything else is left out.
      const reason =
        typeof error.reason === "string" && /^[\x20-\x7e]{1,100}$/.test(error.reason) ? ` (${error.reason})` : "";
      const refusal = new AppError("VALIDATION_FAILED", `The request is not valid HTTP/1.1${reason}.`, {
        action: "Send a well-formed HTTP/1.1 request.",
      });
      return { status: 400, refusal };
    }
  }
}

/**
 * The JSON body parser. Fastify's own refuses `__proto__` and `constructor.prototype`
 * keys (onProtoPoisoning "error") but reports them as FST_ERR_CTP_INVALID_JSON_BODY,
 * dropping the reason, so a valid document was answered "is not valid JSON". This one
 * applies the same rule as secure-json-parse and says which it is.
 */
export function parseJsonBody(
  _request: FastifyRequest,
  text: string,
  done: (error: Error | null, body?: unknown) => void,
): void {
  if (text.length === 0) return done(new AppError("VALIDATION_FAILED", "body: is empty; send a JSON object."));
  let body: unknown;
  try {
    body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return done(new AppError("VALIDATION_FAILED", "body: is not valid JSON."));
  }
  if (holdsForbiddenKey(body))
    return done(
      new AppError("VALIDATION_FAILED", "body: contains a forbidden key (__proto__ or constructor.prototype)."),
    );
  done(null, body);
}

/** A `__proto__` key, or a `constructor` object with a `prototype` key, at any depth (walked without recursion). */
function holdsForbiddenKey(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object") continue;
    if (Object.hasOwn(node, "__proto__")) return true;
    const { constructor } = node as { constructor?: unknown };
    if (
      Object.hasOwn(node, "constructor") &&
      constructor !== null &&
      typeof constructor === "object" &&
      Object.hasOwn(constructor, "prototype")
    )
      return true;
    for (const item of Object.values(node)) pending.push(item);
  }
  return false;
}
