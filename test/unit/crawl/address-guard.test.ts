import http from "node:http";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import got from "got";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AddressGuard, RefusedAddressError, type Resolver } from "../../../src/modules/crawl/address-guard.js";

/** A DNS that answers from a table; names it does not know have no address. No network. */
const dns =
  (table: Record<string, string[]>): Resolver =>
  async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address, family: isIP(address) === 6 ? (6 as const) : (4 as const) }));

const guard = new AddressGuard({ allowlist: [], resolver: dns({}) });

/** The RefusedAddressError `work` throws, or a failure if it does not throw one. */
function refusal(work: () => void): RefusedAddressError {
  try {
    work();
  } catch (error) {
    if (error instanceof RefusedAddressError) return error;
    throw error;
  }
  throw new Error("expected the address to be refused");
}

describe("addresses that are not plainly global unicast are refused", () => {
  it.each([
    ["10.1.2.3", "private network"],
    ["172.16.0.1", "private network"],
    ["172.31.255.254", "private network"],
    ["192.168.1.1", "private network"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["169.254.10.20", "link-local"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["169.254.169.254", "cloud metadata endpoint"],
    ["fd00:ec2::254", "cloud metadata endpoint"],
    ["100.100.100.200", "cloud metadata endpoint"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.1", "benchmarking"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation range"],
    ["198.51.100.7", "documentation range"],
    ["203.0.113.9", "documentation range"],
    ["2001:db8::1", "documentation range"],
  ])("%s: %s", (ip, reason) => {
    expect(guard.refusalReason(ip)).toBe(reason);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private network"],
    ["::ffff:a9fe:a9fe", "cloud metadata endpoint"],
    ["::127.0.0.1", "IPv4-compatible 127.0.0.1: loopback"],
    ["::7f00:1", "IPv4-compatible 127.0.0.1: loopback"],
    ["64:ff9b::10.0.0.1", "NAT64 10.0.0.1: private network"],
    ["64:ff9b::a9fe:a9fe", "NAT64 169.254.169.254: link-local"],
    ["2002:7f00:1::1", "6to4 127.0.0.1: loopback"],
    ["2002:c0a8:101::1", "6to4 192.168.1.1: private network"],
  ])("IPv6 carrying an IPv4 is judged by that IPv4: %s", (ip, reason) => {
    expect(guard.refusalReason(ip)).toBe(reason);
  });

  it("refuses Teredo outright, whatever client address it hides", () => {
    expect(guard.refusalReason("2001:0:4136:e378:8000:63bf:3fff:fdd2")).toBe("Teredo tunnel");
  });

  it("refuses IPv4-compatible addresses even around a public IPv4: the form is deprecated", () => {
    expect(guard.refusalReason("::8.8.8.8")).toBe("IPv4-compatible 8.8.8.8: deprecated form");
  });

  it("refuses IPv6 outside 2000::/3 and special-purpose blocks inside it", () => {
    expect(guard.refusalReason("::ffff:0:7f00:1")).toBe("not global unicast");
    expect(guard.refusalReason("100::1")).toBe("discard-only");
    expect(guard.refusalReason("2001:2::1")).toBe("benchmarking");
    expect(guard.refusalReason("2001:10::1")).toBe("IETF protocol assignments");
    expect(guard.refusalReason("2620:4f:8000::1")).toBe("special-purpose (as112v6)");
  });

  it("refuses what is not an IP address at all", () => {
    expect(guard.refusalReason("example.com")).toBe("not an IP address");
  });
});

describe("public addresses pass", () => {
  it.each(["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::1111", "2001:4860:4860::8888", "[2606:4700::1111]"])(
    "%s",
    (ip) => {
      expect(guard.refusalReason(ip)).toBeUndefined();
    },
  );

  it("passes IPv6 forms whose embedded IPv4 is public (mapped, NAT64, 6to4)", () => {
    expect(guard.refusalReason("::ffff:8.8.8.8")).toBeUndefined();
    expect(guard.refusalReason("64:ff9b::8.8.8.8")).toBeUndefined();
    expect(guard.refusalReason("2002:808:808::1")).toBeUndefined();
  });
});

describe("checkUrl, before any request", () => {
  it.each([
    ["http://2130706433/", "decimal"],
    ["http://0x7f.1/", "hex, short"],
    ["http://0x7f000001/", "hex"],
    ["http://0177.0.0.1/", "octal"],
    ["http://127.1/", "short"],
    ["http://127.0.0.1/", "dotted"],
  ])("refuses loopback however IPv4 is spelled: %s (%s)", (address) => {
    expect(refusal(() => guard.checkUrl(new URL(address))).reason).toBe("loopback");
  });

  it.each([
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:7f00:1]/", "loopback"],
    ["http://[fe80::1]/", "link-local"],
    ["http://[fd00:ec2::254]/", "cloud metadata endpoint"],
    ["https://169.254.169.254/latest/meta-data/", "cloud metadata endpoint"],
    ["http://10.0.0.1/", "private network"],
  ])("refuses literal IPs, IPv6 in brackets included: %s", (address, reason) => {
    expect(refusal(() => guard.checkUrl(new URL(address))).reason).toBe(reason);
  });

  it("names the refused address in the message", () => {
    const error = refusal(() => guard.checkUrl(new URL("http://10.0.0.1/admin")));
    expect(error).toMatchObject({ name: "RefusedAddressError", code: "ERR_REFUSED_ADDRESS", target: "10.0.0.1" });
    expect(error.message).toBe("refused address 10.0.0.1 (private network)");
  });

  it.each([
    "ftp://example.com/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,hi",
    "ws://example.com/",
  ])("refuses the scheme of %s", (address) => {
    expect(refusal(() => guard.checkUrl(new URL(address))).reason).toBe("only http: and https: may be fetched");
  });

  it("refuses credentials without repeating them in the message", () => {
    const error = refusal(() => guard.checkUrl(new URL("https://admin:hunter2@example.com/")));
    expect(error.reason).toBe("credentials in the address");
    expect(error.message).not.toContain("hunter2");
    expect(refusal(() => guard.checkUrl(new URL("https://admin@example.com/"))).reason).toBe(
      "credentials in the address",
    );
  });

  it("allows ports 80 and 443 only", () => {
    expect(() => guard.checkUrl(new URL("http://example.com/"))).not.toThrow();
    expect(() => guard.checkUrl(new URL("https://example.com:443/"))).not.toThrow();
    expect(() => guard.checkUrl(new URL("http://example.com:443/"))).not.toThrow();
    expect(() => guard.checkUrl(new URL("https://93.184.216.34/"))).not.toThrow();
    expect(refusal(() => guard.checkUrl(new URL("http://example.com:8080/"))).reason).toBe(
      "port 8080 is neither 80 nor 443",
    );
    expect(refusal(() => guard.checkUrl(new URL("https://[2606:4700::1111]:22/"))).reason).toBe(
      "port 22 is neither 80 nor 443",
    );
  });

  it.each([
    ["http://localhost/", "localhost names point at this machine"],
    ["http://LOCALHOST./", "localhost names point at this machine"],
    ["http://app.localhost/", "localhost names point at this machine"],
    ["http://printer.local/", ".local names are multicast DNS on the local network"],
    ["http://metadata.google.internal/", ".internal names are private by design: cloud metadata, service discovery"],
  ])("refuses names that resolve privately by design: %s", (address, reason) => {
    expect(refusal(() => guard.checkUrl(new URL(address))).reason).toBe(reason);
  });

  it("lets ordinary names through: their addresses are judged when connecting", () => {
    expect(() => guard.checkUrl(new URL("https://example.com/pricing?plan=pro"))).not.toThrow();
    expect(() => guard.checkUrl(new URL("https://localhost.example.com/"))).not.toThrow();
  });
});

describe("SSRF_ALLOWLIST", () => {
  const allowing = (...allowlist: string[]) => new AddressGuard({ allowlist, resolver: dns({}) });

  it("admits addresses inside a CIDR, on any port", () => {
    const tests = allowing("127.0.0.1/32", "::1/128", "10.20.0.0/16");
    expect(tests.refusalReason("127.0.0.1")).toBeUndefined();
    expect(tests.refusalReason("::ffff:127.0.0.1")).toBeUndefined();
    expect(tests.refusalReason("::1")).toBeUndefined();
    expect(tests.refusalReason("10.20.3.4")).toBeUndefined();
    expect(tests.refusalReason("127.0.0.2")).toBe("loopback");
    expect(tests.refusalReason("10.21.0.1")).toBe("private network");
    expect(() => tests.checkUrl(new URL("http://127.0.0.1:5173/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://[::1]:3000/"))).not.toThrow();
    expect(refusal(() => tests.checkUrl(new URL("http://example.com:5173/"))).reason).toContain("port 5173");
  });

  it("reads a bare IP as a single address", () => {
    const tests = allowing("127.0.0.1", "::1", "[fd00::5]");
    expect(tests.refusalReason("127.0.0.1")).toBeUndefined();
    expect(tests.refusalReason("127.0.0.2")).toBe("loopback");
    expect(tests.refusalReason("::1")).toBeUndefined();
    expect(tests.refusalReason("fd00::5")).toBeUndefined();
    expect(tests.refusalReason("fd00::6")).toBe("unique-local");
  });

  it("admits an exact host on any port, and nothing under it", () => {
    const tests = allowing("fixtures.test");
    expect(() => tests.checkUrl(new URL("http://fixtures.test:8080/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://FIXTURES.test.:8080/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://a.fixtures.test:8080/"))).toThrow(RefusedAddressError);
  });

  it("admits a wildcard's subdomains and its apex, but not look-alikes", () => {
    const tests = allowing("*.acme.test");
    expect(() => tests.checkUrl(new URL("http://acme.test:8080/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://api.acme.test:8080/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://a.b.acme.test:8080/"))).not.toThrow();
    expect(() => tests.checkUrl(new URL("http://notacme.test:8080/"))).toThrow(RefusedAddressError);
  });

  it("lifts the special-name rule for an allow-listed name", () => {
    expect(() => allowing("*.localhost").checkUrl(new URL("http://app.localhost:3000/"))).not.toThrow();
    expect(() => allowing("fixtures.internal").checkUrl(new URL("http://fixtures.internal/"))).not.toThrow();
  });

  it("never admits a cloud metadata endpoint, however broad the allow-list", () => {
    const broad = allowing("0.0.0.0/0", "::/0");
    expect(broad.refusalReason("10.0.0.1")).toBeUndefined();
    expect(broad.refusalReason("169.254.169.254")).toBe("cloud metadata endpoint");
    expect(broad.refusalReason("fd00:ec2::254")).toBe("cloud metadata endpoint");
  });

  it.each(["10.0.0.0/33", "::1/129", "*", "*.", "http://fixtures.test", "fixtures.test/path", "bad host"])(
    "rejects the malformed entry %j at construction",
    (entry) => {
      expect(() => allowing(entry)).toThrow(/SSRF_ALLOWLIST/);
    },
  );
});

describe("resolve: every answer is judged", () => {
  it("returns the addresses when all of them are public", async () => {
    const guard = new AddressGuard({
      allowlist: [],
      resolver: dns({ "example.com": ["93.184.216.34", "2606:2800:220:1::1"] }),
    });
    await expect(guard.resolve("example.com")).resolves.toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
  });

  it("refuses the whole name when any answer is refused (rebinding, mixed answers)", async () => {
    const guard = new AddressGuard({ allowlist: [], resolver: dns({ "rebind.test": ["93.184.216.34", "10.0.0.1"] }) });
    const error = await guard.resolve("rebind.test").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect(error).toMatchObject({ target: "rebind.test", reason: "resolves to a non-public address, private network" });
  });

  it("refuses a private IPv6 answer as well as an IPv4 one", async () => {
    const guard = new AddressGuard({
      allowlist: [],
      resolver: dns({ "six.test": ["2606:4700::1111", "::ffff:7f00:1"] }),
    });
    await expect(guard.resolve("six.test")).rejects.toThrow("resolves to a non-public address, loopback");
  });

  it("says what kind of address a name resolves to, never which one (split-horizon DNS would map internal names)", async () => {
    const answers: Record<string, [string, string]> = {
      "private.test": ["10.1.2.3", "private network"],
      "loop.test": ["127.0.0.53", "loopback"],
      "mapped.test": ["::ffff:10.4.5.6", "private network"],
      "linklocal.test": ["fe80::1234", "link-local"],
      "nat64.test": ["64:ff9b::a01:203", "NAT64: private network"],
      "sixtofour.test": ["2002:a0b:c0d::1", "6to4: private network"],
      "metadata.test": ["169.254.169.254", "cloud metadata endpoint"],
    };
    const table = Object.fromEntries(
      Object.entries(answers).map(([name, [address]]) => [name, ["93.184.216.34", address]]),
    );
    const guard = new AddressGuard({ allowlist: [], resolver: dns(table) });
    for (const [name, [address, kind]] of Object.entries(answers)) {
      const error = await guard.resolve(name).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RefusedAddressError);
      const { message, reason } = error as RefusedAddressError;
      expect(reason).toBe(`resolves to a non-public address, ${kind}`);
      expect(message).toBe(`refused address ${name} (${reason})`);
      // Neither the answer nor any IPv4 inside it (10.4.5.6, 10.1.2.3, 10.11.12.13 spelled in hex).
      for (const shown of [address, "10.1.2.3", "10.4.5.6", "10.11.12.13", "93.184.216.34"])
        expect(message).not.toContain(shown);
      expect(message).not.toMatch(/\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f:.]+/i);
    }
  });

  it("refuses a name without addresses", async () => {
    await expect(guard.resolve("nowhere.test")).rejects.toMatchObject({ reason: "does not resolve" });
  });

  it("refuses special names without asking DNS", async () => {
    const resolver = vi.fn(dns({ localhost: ["93.184.216.34"] }));
    const guard = new AddressGuard({ allowlist: [], resolver });
    await expect(guard.resolve("localhost")).rejects.toThrow("localhost names point at this machine");
    expect(resolver).not.toHaveBeenCalled();
  });

  it("still judges what an allow-listed name resolves to: only allow-listed networks may be private", async () => {
    const resolver = dns({
      "fixtures.test": ["127.0.0.1"],
      "rebound.fixtures.test": ["10.0.0.7"],
      "meta.fixtures.test": ["169.254.169.254"],
    });
    const guard = new AddressGuard({ allowlist: ["*.fixtures.test", "127.0.0.1/32"], resolver });
    await expect(guard.resolve("fixtures.test")).resolves.toEqual([{ address: "127.0.0.1", family: 4 }]);
    await expect(guard.resolve("rebound.fixtures.test")).rejects.toThrow("private network");
    await expect(guard.resolve("meta.fixtures.test")).rejects.toThrow("cloud metadata endpoint");
    const nameOnly = new AddressGuard({ allowlist: ["*.fixtures.test"], resolver });
    await expect(nameOnly.resolve("fixtures.test")).rejects.toThrow("loopback");
  });

  it("judges an IP literal itself instead of resolving it", async () => {
    await expect(guard.resolve("93.184.216.34")).resolves.toEqual([{ address: "93.184.216.34", family: 4 }]);
    await expect(guard.resolve("[::1]")).rejects.toThrow("loopback");
  });
});

describe("lookup, in the shapes dns.lookup is called", () => {
  const mixed = new AddressGuard({
    allowlist: [],
    resolver: dns({ "site.test": ["2606:4700::1111", "93.184.216.34"], "evil.test": ["93.184.216.34", "127.0.0.1"] }),
  });
  const call = (...args: unknown[]) =>
    new Promise<unknown[]>((resolve) => {
      (mixed.lookup as (...parameters: unknown[]) => void)(...args, (...answer: unknown[]) => resolve(answer));
    });

  it("(hostname, callback) answers the first address and its family", async () => {
    expect(await call("site.test")).toEqual([null, "2606:4700::1111", 6]);
  });

  it("(hostname, { all: true }, callback) answers every address, as happy eyeballs asks", async () => {
    expect(await call("site.test", { all: true })).toEqual([
      null,
      [
        { address: "2606:4700::1111", family: 6 },
        { address: "93.184.216.34", family: 4 },
      ],
    ]);
  });

  it("(hostname, { all: false, family }, callback) and a bare family number pick that family", async () => {
    expect(await call("site.test", { all: false, family: 4 })).toEqual([null, "93.184.216.34", 4]);
    expect(await call("site.test", 4)).toEqual([null, "93.184.216.34", 4]);
    expect(await call("site.test", { family: "IPv6" })).toEqual([null, "2606:4700::1111", 6]);
  });

  it("hands a refusal to the callback instead of throwing, for every shape", async () => {
    for (const options of [[], [{ all: true }], [{ all: false }], [{ family: 4 }]]) {
      const [error] = await call("evil.test", ...options);
      expect(error).toBeInstanceOf(RefusedAddressError);
      expect(error).toMatchObject({ reason: "resolves to a non-public address, loopback" });
    }
  });

  it("judges all answers before filtering by family, so a private IPv6 cannot hide behind family: 4", async () => {
    const guard = new AddressGuard({ allowlist: [], resolver: dns({ "hide.test": ["93.184.216.34", "::1"] }) });
    const [error] = await new Promise<unknown[]>((resolve) =>
      guard.lookup("hide.test", { family: 4 }, (...answer: unknown[]) => resolve(answer)),
    );
    expect(error).toBeInstanceOf(RefusedAddressError);
  });

  it("passes resolver failures through, so DNS errors keep their code", async () => {
    const failing = new AddressGuard({
      allowlist: [],
      resolver: async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND gone.test"), { code: "ENOTFOUND" });
      },
    });
    const [error] = await new Promise<unknown[]>((resolve) =>
      failing.lookup("gone.test", {}, (...answer: unknown[]) => resolve(answer)),
    );
    expect(error).toMatchObject({ code: "ENOTFOUND" });
  });
});

describe("a real connection through the guard's lookup", () => {
  let server: http.Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = http.createServer((_request, response) => response.end("fixture"));
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const fixtureDns = dns({ "fixture.test": ["127.0.0.1"], "mixed.test": ["127.0.0.1", "10.0.0.1"] });

  /** http.get with a fresh socket (no keep-alive reuse), so every request needs a lookup. */
  const get = (host: string, guard: AddressGuard, family?: 4) =>
    new Promise<string>((resolve, reject) => {
      http
        .get({ host, port, path: "/", lookup: guard.lookup, agent: false, family }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve(body));
        })
        .on("error", reject);
    });

  it("connects when the resolved address is allow-listed (all: true, Node 20's default happy eyeballs)", async () => {
    const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"], resolver: fixtureDns });
    const before = connections;
    expect(await get("fixture.test", guard)).toBe("fixture");
    expect(connections).toBe(before + 1);
  });

  it("connects through the single-address form too (family set, no happy eyeballs)", async () => {
    const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"], resolver: fixtureDns });
    expect(await get("fixture.test", guard, 4)).toBe("fixture");
  });

  it("refuses a name resolving to loopback, and the server sees no connection at all", async () => {
    const guard = new AddressGuard({ allowlist: [], resolver: fixtureDns });
    const before = connections;
    await expect(get("fixture.test", guard)).rejects.toThrow(RefusedAddressError);
    await expect(get("fixture.test", guard, 4)).rejects.toThrow("resolves to a non-public address, loopback");
    expect(connections).toBe(before);
  });

  it("refuses mixed answers although the first address would be allowed", async () => {
    const guard = new AddressGuard({ allowlist: ["127.0.0.1/32"], resolver: fixtureDns });
    const before = connections;
    await expect(get("mixed.test", guard)).rejects.toThrow("resolves to a non-public address, private network");
    expect(connections).toBe(before);
  });

  it("works as got's dnsLookup, the refusal keeping its code", async () => {
    const allowed = new AddressGuard({ allowlist: ["127.0.0.1/32"], resolver: fixtureDns });
    const refused = new AddressGuard({ allowlist: [], resolver: fixtureDns });
    const options = { dnsLookup: allowed.lookup, retry: { limit: 0 }, agent: { http: new http.Agent() } };
    expect(await got(`http://fixture.test:${port}/`, options).text()).toBe("fixture");
    const before = connections;
    await expect(
      got(`http://fixture.test:${port}/`, { ...options, dnsLookup: refused.lookup }).text(),
    ).rejects.toMatchObject({
      code: "ERR_REFUSED_ADDRESS",
    });
    expect(connections).toBe(before);
  });
});
