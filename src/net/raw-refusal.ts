import { STATUS_CODES } from "node:http";
import type { AppError } from "../errors.js";

/**
 * A whole HTTP/1.1 response carrying the §4 envelope, for refusals written straight to a
 * socket (no Fastify reply exists yet: a malformed request, a refused WebSocket upgrade).
 */
export function rawRefusal(
  status: number,
  envelope: ReturnType<AppError["toEnvelope"]>,
  headers: Readonly<Record<string, string>> = {},
): string {
  const body = JSON.stringify(envelope);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    extra +
    "X-Content-Type-Options: nosniff\r\n" +
    "Cache-Control: no-store\r\n" +
    "Connection: close\r\n\r\n" +
    body
  );
}
