import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp, trustProxyFunction } from "../../src/http/client-ip.js";

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} }) as unknown as IncomingMessage;

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
