import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay between the service and a real server (PostgreSQL, Redis) that a
 * test can cut (unreachable) or stall (connected but silent) and open again, so an
 * outage is real, not a mocked client.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  private readonly held: Array<() => void> = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const [socket, peer] of [[client, upstream], [upstream, client]] as const) {
        this.sockets.add(socket);
        socket.on("close", () => {
          this.sockets.delete(socket);
          peer.destroy();
        });
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream);
      upstream.on("data", (chunk: Buffer) => {
        if (this.stalled) this.held.push(() => client.write(chunk));
        else client.write(chunk);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    const address = this.server.address();
    if (typeof address === "object" && address) this.port = address.port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** The server's answers are held back: requests go out, nothing comes back. */
  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const deliver of this.held.splice(0)) deliver();
  }
}
