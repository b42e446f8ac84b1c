import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressGuard } from "../../../src/modules/crawl/address-guard.js";
import { GuardedProxy, type ProxyRefusal } from "../../../src/modules/crawl/render/guarded-proxy.js";
import { FixtureSites, fixtureResolver, page } from "../../support/fixture-sites.js";

/**
 * The rendered page's only way out, spoken to as Chromium speaks to it: absolute-form
 * HTTP requests and CONNECT tunnels, each judged by the crawler's address guard.
 */
let sites: FixtureSites;
let echo: Server;
let forbidden: Server;
let proxy: GuardedProxy;
let proxyPort = 0;
const refusals: ProxyRefusal[] = [];
const reached: string[] = [];

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)));

beforeAll(async () => {
  sites = await new FixtureSites({ "shop.test": { "/": page("Shop", "<p>Welcome</p>") } }).start();
  echo = createServer((socket) => socket.pipe(socket));
  forbidden = createServer((socket) => {
    reached.push(String(socket.remotePort));
    socket.destroy();
  });
  await listen(echo, "127.0.0.1");
  await listen(forbidden, "127.0.0.2");
  let flips = 0;
  const resolver = fixtureResolver({ "inside.test": ["127.0.0.2"], "mixed.test": ["127.0.0.1", "10.1.2.3"] });
  proxy = new GuardedProxy(
    new AddressGuard({
      allowlist: ["127.0.0.1/32", "*.test"],
      resolver: async (host) =>
        host === "flip.test" ? [{ address: flips++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 }] : resolver(host),
    }),
    { onRefused: (refusal) => refusals.push(refusal) },
  );
  proxyPort = Number(new URL(await proxy.start()).port);
});
afterAll(async () => {
  await proxy?.close();
  await sites?.stop();
  echo?.close();
  forbidden?.close();
});

/** Sends raw bytes to the proxy and reads until it closes or `until` matches. */
function exchange(request: string, until?: RegExp, then?: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, "127.0.0.1");
    let answer = "";
    let followed = false;
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (until?.test(answer)) {
        if (then && !followed) {
          followed = true;
          then(socket);
        } else {
          socket.destroy();
          resolve(answer);
        }
      }
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.write(request);
  });
}
const port = (server: Server) => (server.address() as { port: number }).port;

describe("the guarded proxy", () => {
  it("forwards a plain request to an allowed host, with the host it asked for", async () => {
    const answer = await exchange(
      `GET http://shop.test:${sites.port}/ HTTP/1.1\r\nHost: shop.test:${sites.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain("Welcome");
    expect(sites.requestsTo("shop.test")).toHaveLength(1);
  });

  it("tunnels a CONNECT to an allowed address", async () => {
    const answer = await exchange(
      `CONNECT 127.0.0.1:${port(echo)} HTTP/1.1\r\nHost: 127.0.0.1:${port(echo)}\r\n\r\n`,
      /Established\r\n\r\n(ping)?/,
      (socket) => socket.write("ping"),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nping/);
  });

  it("refuses, with 403 and before any connection, a private, loopback, metadata or rebinding target, whatever the form", async () => {
    const forms = [
      `GET http://127.0.0.2:${port(forbidden)}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `CONNECT 127.0.0.2:${port(forbidden)} HTTP/1.1\r\n\r\n`,
      `CONNECT inside.test:${port(forbidden)} HTTP/1.1\r\n\r\n`,
      `GET http://localhost:${port(forbidden)}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `CONNECT [::ffff:127.0.0.2]:${port(forbidden)} HTTP/1.1\r\n\r\n`,
      `GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `CONNECT mixed.test:443 HTTP/1.1\r\n\r\n`,
      `GET http://upgrade.test:${port(forbidden)}/ HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`.replace(
        "upgrade.test",
        "127.0.0.2",
      ),
    ];
    for (const form of forms) expect(await exchange(form), form).toMatch(/^HTTP\/1\.1 403 /);
    // A name that answered a public-looking address first and a private one next (DNS rebinding).
    expect(
      await exchange(`GET http://flip.test:${sites.port}/ HTTP/1.1\r\nHost: flip.test\r\nConnection: close\r\n\r\n`),
    ).toMatch(/^HTTP\/1\.1 404/);
    expect(await exchange(`GET http://flip.test:${port(forbidden)}/ HTTP/1.1\r\nHost: flip.test\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 403 /,
    );
    expect(reached).toEqual([]);
    expect(refusals.map((refusal) => refusal.reason)).toEqual(
      expect.arrayContaining([
        "loopback",
        "localhost names point at this machine",
        "cloud metadata endpoint",
        "resolves to a non-public address, private network",
      ]),
    );
  });

  it("refuses ports other than 80 and 443 on hosts that are not allow-listed, and anything that is not a proxy request", async () => {
    const strict = new GuardedProxy(
      new AddressGuard({ allowlist: [], resolver: async () => [{ address: "93.184.216.34", family: 4 }] }),
    );
    const strictPort = Number(new URL(await strict.start()).port);
    try {
      const ask = (request: string) =>
        new Promise<string>((resolve) => {
          const socket = connect(strictPort, "127.0.0.1");
          let answer = "";
          socket.on("data", (chunk) => (answer += chunk.toString()));
          socket.on("close", () => resolve(answer));
          socket.write(request);
        });
      expect(await ask("CONNECT example.com:22 HTTP/1.1\r\n\r\n")).toMatch(
        /^HTTP\/1\.1 403 [\s\S]*port 22 is neither 80 nor 443/,
      );
      expect(await ask("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/);
      expect(await ask("CONNECT nonsense HTTP/1.1\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/);
    } finally {
      await strict.close();
    }
  });
});
