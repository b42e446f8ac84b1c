import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { AppError, SERVICE_UNAVAILABLE_RETRY_SECONDS } from "../../../src/errors.js";
import { sendError } from "../../../src/http/error-reply.js";
import { answeredErrorCode } from "../../../src/metrics.js";
import { rawRefusal } from "../../../src/net/raw-refusal.js";

async function answerOf(error: AppError) {
  const app = Fastify();
  let code: string | undefined;
  app.get("/", (_request, reply) => {
    const sent = sendError(reply, error);
    code = answeredErrorCode.get(reply);
    return sent;
  });
  const response = await app.inject("/");
  await app.close();
  return { response, code };
}

describe("the error reply (docs/api.md §4)", () => {
  it("answers the catalogue's status, the error's headers and its envelope, and names the code for the metrics", async () => {
    const { response, code } = await answerOf(
      new AppError("METHOD_NOT_ALLOWED", "DELETE is not allowed on /x.", { headers: { allow: "GET, OPTIONS" } }),
    );
    expect(response.statusCode).toBe(405);
    expect(response.headers["allow"]).toBe("GET, OPTIONS");
    expect(response.headers["retry-after"]).toBeUndefined();
    // The body names the request, as its X-Request-Id would.
    expect(response.json()).toEqual(
      new AppError("METHOD_NOT_ALLOWED", "DELETE is not allowed on /x.").toEnvelope(response.json().error.requestId),
    );
    expect(response.json().error.requestId).toMatch(/^req-/);
    expect(code).toBe("METHOD_NOT_ALLOWED");
  });

  it("gives a 503 a Retry-After unless it names its own", async () => {
    const plain = await answerOf(new AppError("SERVICE_UNAVAILABLE", "The database is away."));
    expect(plain.response.statusCode).toBe(503);
    expect(plain.response.headers["retry-after"]).toBe(String(SERVICE_UNAVAILABLE_RETRY_SECONDS));
    const own = await answerOf(new AppError("SERVICE_UNAVAILABLE", "Draining.", { headers: { "retry-after": "30" } }));
    expect(own.response.headers["retry-after"]).toBe("30");
  });

  it("writes the same envelope as a whole HTTP/1.1 response for a raw socket", () => {
    const envelope = new AppError("PAYLOAD_TOO_LARGE", "Too large.").toEnvelope();
    const text = rawRefusal(431, envelope, { "X-Request-Id": "req_1" });
    const body = JSON.stringify(envelope);
    expect(text).toBe(
      "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: req_1\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
});
