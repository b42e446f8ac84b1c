import { lookup as systemLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { normaliseHost, parseAllowlist, type Address, type Allowlist, type Network } from "../../net/ssrf-allowlist.js";

/**
 * The crawler's SSRF guard. Addresses typed by strangers must never reach this
 * machine, the private network or a cloud metadata endpoint, so the guard works
 * as an allow-list: only plainly global unicast addresses pass. Names are checked
 * where the connection is made (the `lookup` handed to got / http), so a name
 * that answers a public address to a first query and a private one to the next
 * (DNS rebinding) is judged on the addresses actually connected to.
 */

export class RefusedAddressError extends Error {
  readonly code = "ERR_REFUSED_ADDRESS";

  constructor(
    readonly reason: string,
    readonly target: string,
  ) {
    super(`refused address ${target} (${reason})`);
    this.name = "RefusedAddressError";
  }
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

const networks = (table: ReadonlyArray<readonly [string, string]>) =>
  table.map(([cidr, reason]) => [ipaddr.parseCIDR(cidr), reason] as const);

/** Refused even inside an allow-listed network: a broad test CIDR must not open the keys to the cloud account. */
const METADATA = networks([
  ["169.254.169.254/32", "cloud metadata endpoint"],
  ["100.100.100.200/32", "cloud metadata endpoint"], // Alibaba
  ["168.63.129.16/32", "cloud metadata endpoint"], // Azure WireServer: looks public, answers only inside Azure
  ["fd00:ec2::254/128", "cloud metadata endpoint"], // AWS over IPv6
]);

/** First match names the refusal; ipaddr's own range() catches whatever this table forgets. */
const V4_REFUSED = networks([
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private network"],
  ["172.16.0.0/12", "private network"],
  ["192.168.0.0/16", "private network"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["100.64.0.0/10", "carrier-grade NAT"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation range"],
  ["198.51.100.0/24", "documentation range"],
  ["203.0.113.0/24", "documentation range"],
  ["198.18.0.0/15", "benchmarking"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
]);

const V6_REFUSED = networks([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["fc00::/7", "unique-local"],
  ["ff00::/8", "multicast"],
  // Teredo hides the client's IPv4 XOR-ed in the low bits; judging it is not worth the risk.
  ["2001::/32", "Teredo tunnel"],
  ["2001:2::/48", "benchmarking"],
  ["2001::/23", "IETF protocol assignments"],
  ["2001:db8::/32", "documentation range"],
  ["3fff::/20", "documentation range"],
  ["64:ff9b:1::/48", "local-use NAT64"],
  ["100::/64", "discard-only"],
]);

/** IPv6 forms that carry an IPv4 address: the IPv4 decides, since that is where packets end up. */
const V4_CARRIERS = [
  { network: ipaddr.parseCIDR("::ffff:0:0/96"), form: "IPv4-mapped", high: 6, passes: true },
  { network: ipaddr.parseCIDR("64:ff9b::/96"), form: "NAT64", high: 6, passes: true },
  { network: ipaddr.parseCIDR("2002::/16"), form: "6to4", high: 1, passes: true },
  // Deprecated since RFC 4291 and routed nowhere sane: refused even around a public IPv4.
  { network: ipaddr.parseCIDR("::/96"), form: "IPv4-compatible", high: 6, passes: false },
];

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

const inside = (address: Address, network: Network) => address.kind() === network[0].kind() && address.match(network);

const firstReason = (address: Address, table: ReturnType<typeof networks>) =>
  table.find(([network]) => inside(address, network))?.[1];

/**
 * Why an address is not plainly global unicast, ignoring any allow-list. The IPv4
 * inside an IPv6 form is named only when `showEmbedded`: the caller typed that
 * address, whereas for a name it would tell what the name resolves to.
 */
function classify(address: Address, showEmbedded = true): string | undefined {
  if (address instanceof ipaddr.IPv4) {
    const reason = firstReason(address, V4_REFUSED);
    if (reason) return reason;
    const range = address.range();
    return range === "unicast" ? undefined : `special-purpose (${range})`;
  }
  const reason = firstReason(address, V6_REFUSED);
  if (reason) return reason;
  const carrier = V4_CARRIERS.find(({ network }) => address.match(network));
  if (carrier) {
    const [hi = 0, lo = 0] = address.parts.slice(carrier.high, carrier.high + 2);
    const v4 = new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
    const form = showEmbedded ? `${carrier.form} ${v4.toString()}` : carrier.form;
    const inner = classify(v4);
    if (inner) return `${form}: ${inner}`;
    return carrier.passes ? undefined : `${form}: deprecated form`;
  }
  if (!address.match(GLOBAL_UNICAST_V6)) return "not global unicast";
  const range = address.range();
  return range === "unicast" ? undefined : `special-purpose (${range})`;
}

/**
 * ipaddr reads "::a.b.c.d" as IPv4-mapped, yet getaddrinfo prints IPv4-compatible
 * addresses that way: spelling the IPv4 tail in hex keeps the two apart.
 */
function parseIp(text: string): Address | undefined {
  const spelled = text.includes(":")
    ? text.replace(/:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(%.*)?$/, (whole, a, b, c, d, zone = "") => {
        const [w, x, y, z] = [a, b, c, d].map(Number) as [number, number, number, number];
        if (Math.max(w, x, y, z) > 255) return whole;
        return `:${((w << 8) | x).toString(16)}:${((y << 8) | z).toString(16)}${zone}`;
      })
    : text;
  return ipaddr.isValid(spelled) ? ipaddr.parse(spelled) : undefined;
}

/** The address packets really go to: IPv4-mapped IPv6 is the IPv4. */
const unmapped = (address: Address): Address =>
  address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;

/** Names that resolve to this machine or the local network by design, whatever DNS says today. */
function specialNameReason(host: string): string | undefined {
  const under = (suffix: string) => host === suffix || host.endsWith(`.${suffix}`);
  if (under("localhost")) return "localhost names point at this machine";
  if (under("local")) return ".local names are multicast DNS on the local network";
  if (under("internal")) return ".internal names are private by design: cloud metadata, service discovery";
  return undefined;
}

const PLAIN_PORTS = new Set(["", "80", "443"]);

export class AddressGuard {
  private readonly allowed: Allowlist;
  private readonly resolver: Resolver;

  constructor(options: { allowlist: readonly string[]; resolver?: Resolver }) {
    this.allowed = parseAllowlist(options.allowlist);
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Why an IP may not be connected to, or undefined if it may. Allow-list applied. */
  refusalReason(ip: string): string | undefined {
    return this.reasonFor(ip, false);
  }

  /** Scheme, credentials, port and (for literal IPs / special names) address checks on a URL, before any request. */
  checkUrl(url: URL): void {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new RefusedAddressError("only http: and https: may be fetched", url.protocol);
    }
    const host = normaliseHost(url.hostname);
    // Never echo the password: the target names the host only.
    if (url.username || url.password) throw new RefusedAddressError("credentials in the address", url.host);

    // Node connects to a literal IP without calling `lookup`, so literals are judged here.
    const literal = isIP(host) !== 0;
    const reason = literal ? this.refusalReason(host) : this.isAllowedHost(host) ? undefined : specialNameReason(host);
    if (reason) throw new RefusedAddressError(reason, url.host);

    const trusted = this.isAllowedHost(host) || (literal && this.inAllowedNetwork(host));
    if (!PLAIN_PORTS.has(url.port) && !trusted) {
      throw new RefusedAddressError(`port ${url.port} is neither 80 nor 443`, url.host);
    }
  }

  /** Resolves and checks every address: one refused address refuses the name, so mixed answers cannot slip through. */
  async resolve(hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
    const host = normaliseHost(hostname);
    const literal = isIP(host);
    if (literal !== 0) {
      const reason = this.refusalReason(host);
      if (reason) throw new RefusedAddressError(reason, host);
      return [{ address: host, family: literal === 6 ? 6 : 4 }];
    }
    // An allow-listed name may use any port and a special name (localhost, .internal),
    // but what it resolves to is still judged: only allow-listed networks may be
    // private. So a listed name that is re-pointed (DNS rebinding) is still refused.
    const nameReason = this.isAllowedHost(host) ? undefined : specialNameReason(host);
    if (nameReason) throw new RefusedAddressError(nameReason, host);

    const addresses = await this.resolver(hostname);
    if (addresses.length === 0) throw new RefusedAddressError("does not resolve", host);
    for (const { address } of addresses) {
      // The kind of address, never the address: the message reaches callers (a webhook's
      // creation, a delivery's lastError, a crawl's failure), and with split-horizon DNS
      // it would map internal names to internal addresses.
      const reason = this.reasonFor(address, false, false);
      if (reason) throw new RefusedAddressError(`resolves to a non-public address, ${reason}`, host);
    }
    return addresses;
  }

  /** A `dns.lookup` stand-in for got's `dnsLookup` and http's `lookup`; errors go to the callback, never thrown. */
  readonly lookup = (hostname: string, options: unknown, callback?: unknown): void => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback | undefined;
    if (typeof done !== "function") return;
    const { all, family } = lookupOptions(typeof options === "function" ? undefined : options);
    this.resolve(hostname).then(
      (addresses) => {
        // Every address was judged above; the family filter only picks which ones to hand back.
        const wanted = family ? addresses.filter((answer) => answer.family === family) : addresses;
        const first = wanted[0];
        if (!first) return done(new RefusedAddressError(`does not resolve to an IPv${family} address`, hostname));
        if (all) done(null, wanted);
        else done(null, first.address, first.family);
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  };

  private reasonFor(ip: string, trustedHost: boolean, showEmbedded = true): string | undefined {
    const text = normaliseHost(ip);
    const written = parseIp(text);
    if (!written) return "not an IP address";
    const address = unmapped(written);
    const metadata = firstReason(address, METADATA);
    if (metadata) return metadata;
    if (trustedHost || this.inAllowedNetwork(text)) return undefined;
    return classify(address, showEmbedded);
  }

  /** Matches the address as written and as IPv4 when mapped, so 127.0.0.1/32 also admits ::ffff:127.0.0.1. */
  private inAllowedNetwork(ip: string): boolean {
    const written = parseIp(normaliseHost(ip));
    const forms = written ? [written, unmapped(written)] : [];
    return this.allowed.networks.some((network) => forms.some((address) => inside(address, network)));
  }

  private isAllowedHost(host: string): boolean {
    const { hosts, domains } = this.allowed;
    return hosts.has(host) || domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  }
}

type LookupCallback = (
  error: Error | null,
  address?: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** dns.lookup takes a family number or { family: 0 | 4 | 6 | "IPv4" | "IPv6", all }. */
function lookupOptions(options: unknown): { all: boolean; family: 0 | 4 | 6 } {
  const record = typeof options === "object" && options !== null ? (options as Record<string, unknown>) : {};
  const raw = typeof options === "number" ? options : record.family;
  const family = raw === 4 || raw === "IPv4" ? 4 : raw === 6 || raw === "IPv6" ? 6 : 0;
  return { all: record.all === true, family };
}

/** A name DNS says does not exist resolves to nothing; other failures (timeouts) stay errors. */
const systemResolver: Resolver = async (hostname) => {
  try {
    const answers = await systemLookup(hostname, { all: true, verbatim: true });
    return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } catch (error) {
    if ((error as { code?: string }).code === "ENOTFOUND" || (error as { code?: string }).code === "ENODATA") return [];
    throw error;
  }
};
