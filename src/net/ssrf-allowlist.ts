import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * SSRF_ALLOWLIST, parsed: the entries the crawler's and the webhooks' address guard
 * let through although they are not global unicast. A leaf, so the config (which
 * refuses a bad entry at boot) and the guard (which applies it) read it the same way.
 */

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Network = [Address, number];

/** Lower case, no brackets around IPv6, no trailing root dot ("localhost." is localhost). */
export const normaliseHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.+$/, "");

export interface Allowlist {
  readonly networks: readonly Network[];
  readonly hosts: ReadonlySet<string>;
  /** From `*.acme.test`: acme.test itself and every name under it. */
  readonly domains: readonly string[];
}

/** Throws an Error starting "SSRF_ALLOWLIST:" naming the first entry that is not a CIDR, an IP, a hostname or a *.wildcard. */
export function parseAllowlist(entries: readonly string[]): Allowlist {
  const allowed = { networks: [] as Network[], hosts: new Set<string>(), domains: [] as string[] };
  for (const raw of entries) {
    const entry = normaliseHost(raw.trim());
    if (!entry) continue;
    const [ip = "", prefix, ...rest] = entry.split("/");
    if (isIP(ip) && rest.length === 0) {
      const address = ipaddr.parse(ip);
      const max = address.kind() === "ipv4" ? 32 : 128;
      const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
      if (!(bits >= 0 && bits <= max)) throw new Error(`SSRF_ALLOWLIST: "${raw}" has an invalid prefix length`);
      allowed.networks.push([address, bits]);
    } else if (entry.startsWith("*.")) {
      allowed.domains.push(hostnameOf(entry.slice(2), raw));
    } else {
      allowed.hosts.add(hostnameOf(entry, raw));
    }
  }
  return allowed;
}

/** The name as URL.hostname would spell it (lower case, punycode), so comparisons are exact. */
function hostnameOf(name: string, raw: string): string {
  const invalid = new Error(`SSRF_ALLOWLIST: "${raw}" is not a CIDR, an IP, a hostname or a *.wildcard`);
  if (!/^[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*$/u.test(name)) throw invalid;
  try {
    return normaliseHost(new URL(`http://${name}/`).hostname);
  } catch {
    throw invalid;
  }
}
