import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay between the service and a real server (PostgreSQL, Redis) that a
 * test can cut (unreachable), stall (connected but silent) or slow down (answers
 * delayed) and open again, so an outage is real, not a mocked client.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  private delayMs = 0;
  private readonly held: Array<() => void> = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const [socket, peer] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
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
        // Equal delays keep the chunks in order: timers of the same length fire in the order they were set.
        else if (this.delayMs > 0) setTimeout(() => client.write(chunk), this.delayMs);
        else client.write(chunk);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    const address = this.server.address();
    if (typeof address === "object" && address) this.port = address.port;
  }

  /** Accepting connections (opened, and not cut since). */
  get listening(): boolean {
    return this.server !== undefined;
  }

  async cut(): Promise<void> {
    // Answers held by a stall belonged to connections that are gone.
    this.held.length = 0;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** The open connections are reset (their held answers lost), while new ones are accepted and work. */
  drop(): void {
    this.held.length = 0;
    this.stalled = false;
    for (const socket of this.sockets) socket.destroy();
  }

  /** The server's answers are held back: requests go out, nothing comes back. */
  stall(): void {
    this.stalled = true;
  }

  /** The server's answers arrive `ms` late (0: at once again); the server itself stays healthy. */
  delay(ms: number): void {
    this.delayMs = ms;
  }

  resume(): void {
    this.stalled = false;
    for (const deliver of this.held.splice(0)) deliver();
  }
}
