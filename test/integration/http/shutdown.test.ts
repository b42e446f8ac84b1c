import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { startTestApp } from "../../support/app.js";

/** A connection that has sent half a request and waits: the kind of caller that used to hold a stop open. */
function halfRequest(baseUrl: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      // Headers without their closing blank line: Node waits for the rest until its 60 s headersTimeout.
      socket.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      resolve({ socket, closed: new Promise((done) => socket.once("close", () => done())) });
    });
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

describe("stopping the service", () => {
  it("ends while a caller holds a half-sent request open: the busy connection is cut once the HTTP drain's bound runs out", async () => {
    const service = await startTestApp();
    const { socket, closed } = await halfRequest(service.url);
    try {
      // Bounded by this test's timeout (30 s), half Node's header timeout: the stop cuts the connection itself.
      await service.close();
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      socket.destroy();
    }
  }, 30_000);
});
