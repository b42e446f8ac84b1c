import { connect } from "node:net";

export interface RawResponse {
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The bytes after the blank line, as sent (not cut to Content-Length). */
  readonly body: string;
}

/**
 * Writes `request` as is on a new connection and reads until the server closes it:
 * for requests fetch refuses to send (TRACE, a malformed request line or header).
 */
export function rawRequest(baseUrl: string, request: string): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk) => chunks.push(chunk));
    // The server may reset a connection it refused once its answer is written.
    socket.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" && chunks.length > 0 ? undefined : reject(error),
    );
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(end + 4) });
    });
  });
}
