import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";

/**
 * A stand-in for an identity provider's JWKS endpoint on 127.0.0.1: serves the
 * current key set, counts requests, and can fail (HTTP 500) or hang on demand.
 */
export interface JwksServer {
  readonly url: string;
  /** Requests received so far: how often the verifier went to the provider. */
  readonly requests: number;
  keys: JWK[];
  mode: "serve" | "fail" | "hang";
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  let requests = 0;
  const state = { keys, mode: "serve" as JwksServer["mode"] };
  const server = createServer((request, response) => {
    requests += 1;
    if (state.mode === "hang") return;
    if (state.mode === "fail") {
      response.writeHead(500).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get requests() {
      return requests;
    },
    get keys() {
      return state.keys;
    },
    set keys(next) {
      state.keys = next;
    },
    get mode() {
      return state.mode;
    },
    set mode(next) {
      state.mode = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Hung requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
