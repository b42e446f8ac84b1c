import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp, trustProxyFunction } from "../../src/http/client-ip.js";
import { clientNetwork } from "../../src/net/client-network.js";

const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
  }) as unknown as IncomingMessage;

describe("client address under TRUST_PROXY", () => {
  it("ignores X-Forwarded-For unless proxies are trusted (the default)", () => {
    expect(clientIp(request("203.0.113.9", "1.2.3.4"), trustProxyFunction(false))).toBe("203.0.113.9");
  });

  it("believes only the listed proxies, so a client cannot spoof its address through them", () => {
    const trust = trustProxyFunction(["10.0.0.0/8"]);
    expect(clientIp(request("10.0.0.5", "198.51.100.7"), trust)).toBe("198.51.100.7");
    // A spoofed left-most entry is ignored: the first untrusted hop from the right wins.
    expect(clientIp(request("10.0.0.5", "1.1.1.1, 198.51.100.7"), trust)).toBe("198.51.100.7");
    expect(clientIp(request("203.0.113.9", "1.1.1.1"), trust)).toBe("203.0.113.9");
  });

  it("counts hops with a number", () => {
    expect(clientIp(request("10.0.0.5", "1.1.1.1, 198.51.100.7"), trustProxyFunction(1))).toBe("198.51.100.7");
    expect(clientIp(request("10.0.0.5", "1.1.1.1, 198.51.100.7"), trustProxyFunction(2))).toBe("1.1.1.1");
  });
});

describe("the network a client counts as", () => {
  it("is an IPv4 address itself, also when written IPv4-mapped", () => {
    expect(clientNetwork("203.0.113.9")).toBe("203.0.113.9");
    expect(clientNetwork("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientNetwork("::FFFF:203.0.113.9")).toBe("203.0.113.9");
  });

  it("is an IPv6 address's /64, however the address is written", () => {
    const network = "2001:db8:aa:1::/64";
    for (const address of [
      "2001:db8:aa:1::1",
      "2001:0db8:00aa:0001:ffff:ffff:ffff:ffff",
      "2001:DB8:AA:1:0:0:0:7",
      "[2001:db8:aa:1::9]",
      "2001:db8:aa:1::1%eth0",
      "2001:db8:aa:1::1.2.3.4",
    ]) {
      expect(clientNetwork(address), address).toBe(network);
    }
    expect(clientNetwork("2001:db8:aa:2::1")).toBe("2001:db8:aa:2::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
    expect(clientNetwork("fe80::1")).toBe("fe80:0:0:0::/64");
    expect(clientNetwork("2001:db8::")).toBe("2001:db8:0:0::/64");
  });
});
