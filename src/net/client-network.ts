import { isIPv4, isIPv6 } from "node:net";

/**
 * The network a client address stands for, as per-address limits count it: an IPv4
 * address itself (IPv4-mapped IPv6 included), an IPv6 address's /64. One IPv6
 * subscriber is handed a whole /64 and can pick a fresh address for every request,
 * so counting addresses would let them through without limit.
 */
export function clientNetwork(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, "").split("%")[0]!;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return bare;
  const mapped =
    /^(?:0{0,4}:){0,5}ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const groups = expandIPv6(bare);
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case, as written without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => "0"), ...right].map(
    (group) => group.replace(/^0+(?=.)/, "") || "0",
  );
}
