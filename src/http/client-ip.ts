import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { Config } from "../config.js";

/** Whether the hop at `address` (0 = the socket's peer) is a proxy whose X-Forwarded-For we believe. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as one function, used by Fastify (`request.ip`) and by the
 * WebSocket upgrade alike, so rate limits see the same client on every door.
 * A hop count trusts that many proxies nearest the service (Express's meaning);
 * use it only where clients cannot reach the service directly.
 */
export function trustProxyFunction(setting: Config["http"]["trustProxy"]): TrustProxy {
  if (setting === false) return () => false;
  if (setting === true) return () => true;
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  return proxyAddr.compile([...setting]);
}

export function clientIp(request: IncomingMessage, trust: TrustProxy): string {
  return proxyAddr(request, trust);
}
