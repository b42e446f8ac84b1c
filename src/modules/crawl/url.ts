import { isIP } from "node:net";
import { getDomain } from "tldts";
import { AppError } from "../../errors.js";
import { MAX_URL_LENGTH as MAX_INPUT_LENGTH } from "../../limits.js";

/**
 * URL handling for the crawler: what a caller may submit, the one spelling of a
 * page we deduplicate on, and which links belong to the site being scored.
 * Pure: no DNS, no network. Whether an address is safe to fetch (private ranges,
 * ports) is the SSRF guard's decision, not ours.
 */

/** "scheme:" at the start, unless what follows the colon is a port ("example.com:8080/x"). */
const SCHEME_PREFIX = /^([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))/i;

/** Refuses the address a caller sent, which is always the `url` field of the request. */
const invalid = (why: string) => new AppError("INVALID_URL", why, { param: "url" });

/**
 * The address a caller typed, made absolute and checked. Scheme-less input
 * ("example.com/pricing", "//example.com") is taken as https. The fragment is
 * dropped: it never reaches the server.
 */
export function normalizeInputUrl(input: unknown): URL {
  if (typeof input !== "string") throw invalid("The address must be a string.");
  const trimmed = input.trim();
  if (trimmed === "") throw invalid("The address is empty.");
  if (trimmed.length > MAX_INPUT_LENGTH) throw invalid(`The address is longer than ${MAX_INPUT_LENGTH} characters.`);

  const scheme = SCHEME_PREFIX.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
    throw invalid("Only http and https addresses can be scored.");
  }
  const absolute =
    scheme !== undefined ? trimmed : trimmed.startsWith("//") ? `https:${trimmed}` : `https://${trimmed}`;

  let url: URL;
  try {
    url = new URL(absolute);
  } catch {
    throw invalid("The address could not be parsed as a URL.");
  }
  if (url.hostname === "") throw invalid("The address has no host name.");
  if (url.username !== "" || url.password !== "")
    throw invalid("The address must not contain a user name or password.");

  stripTrailingDot(url);
  if (!isIpLiteral(url.hostname) && !hasDomainShape(url.hostname)) {
    throw invalid(`"${url.hostname}" is not a public host name; use a full domain such as example.com.`);
  }
  url.hash = "";
  if (url.href.length > MAX_INPUT_LENGTH)
    throw invalid(`The address is longer than ${MAX_INPUT_LENGTH} characters once encoded.`);
  return url;
}

/**
 * Parameters that identify a campaign or a click, never content: two links that
 * differ only in these are the same page.
 */
const TRACKING_PARAMETERS = new Set([
  "gclid",
  "dclid",
  "fbclid",
  "msclkid",
  "yclid",
  "mc_cid",
  "mc_eid",
  "igshid",
  "_ga",
  "_gl",
  "ref",
  "ref_src",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
]);
const TRACKING_PREFIXES = ["utm_", "hsa_", "vero_"];

const isTrackingParameter = (name: string): boolean => {
  const lower = name.toLowerCase();
  return TRACKING_PARAMETERS.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix));
};

/**
 * The single spelling of a link that the crawler deduplicates and fetches on, or
 * undefined when it is not an http(s) page (mailto:, tel:, javascript:, data:)
 * or cannot be parsed. Applying it twice changes nothing.
 */
export function canonicalUrl(href: string, base?: string | URL): string | undefined {
  return resolveLink(href, base)?.url;
}

/**
 * A link's canonical spelling (`canonicalUrl`) and whether it was written as a
 * folder ("/tour/", "/tour/index.html"), from one parse: what `canonicalUrl` and
 * `fetchAddress` answer, for the price of the first.
 */
export function resolveLink(href: string, base?: string | URL): { url: string; folder: boolean } | undefined {
  let url: URL;
  try {
    // The WHATWG parser trims outer whitespace and percent-encodes inner spaces, as browsers do.
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.hostname === "") return undefined;

  // Every URL setter re-parses the whole address, so only those that change something are called.
  // In a parsed http(s) address "#" can only start the fragment and "?" the query (anywhere else they are percent-encoded).
  if (url.href.includes("#")) url.hash = "";
  // Credentials a page embeds in a link are never sent on, and never make a page distinct.
  if (url.username !== "" || url.password !== "") {
    url.username = "";
    url.password = "";
  }
  stripTrailingDot(url);
  const pathname = url.pathname;
  const folder = FOLDER_PATH.test(pathname);
  const path = canonicalPath(pathname);
  if (path !== pathname) url.pathname = path;
  const search = url.search;
  const query = canonicalQuery(search);
  // An empty query ("/a?") reads as "" but is still spelled: setting "" drops the "?".
  if (query !== search || (search === "" && url.href.includes("?"))) url.search = query;
  return { url: url.href, folder };
}

/**
 * "#/pricing" (or "#!/pricing") when a fragment is a client-side route of a
 * hash-routed app: a page of its own, which only a browser can show. Undefined
 * for a place in a page ("#top") and for the root route ("#/", "#!/"), which is
 * the page itself.
 */
export function hashRoute(hash: string): string | undefined {
  const match = /^#(!?)(\/[^#]*)$/.exec(hash);
  if (!match) return undefined;
  const path = match[2]!.replace(/\/+$/, "");
  return path === "" ? undefined : `#${match[1]}${path}`;
}

/**
 * The address of a hash-routed page: the canonical spelling of the document it
 * lives in, with its route ("https://acme.example/#/pricing"). Undefined when the
 * link is not to a hash route.
 */
export function routeAddress(href: string, base?: string | URL): string | undefined {
  const hashAt = href.indexOf("#");
  if (hashAt === -1) return undefined;
  let route: string | undefined;
  try {
    route = hashRoute(new URL(href, base).hash);
  } catch {
    return undefined;
  }
  if (route === undefined) return undefined;
  const canonical = canonicalUrl(href, base);
  return canonical === undefined ? undefined : canonical + route;
}

/** An address split into the document to fetch and its hash route, if it has one. */
export function splitRoute(address: string): { document: string; route: string | undefined } {
  const hashAt = address.indexOf("#");
  if (hashAt === -1) return { document: address, route: undefined };
  return { document: address.slice(0, hashAt), route: hashRoute(address.slice(hashAt)) };
}

/** "https://x.example:8443" of a canonical address (`canonicalUrl` always has a path after the host). */
export const originOf = (canonical: string): string =>
  canonical.slice(0, canonical.indexOf("/", canonical.indexOf("//") + 2));

/** A path written as a folder: a final "/", or an index file after it. */
const FOLDER_PATH = /\/(?:index\.html?)?$/i;

/**
 * The address to fetch for a link whose canonical spelling is `canonical`: the
 * same, except that a folder link keeps its final "/" ("/website/tour/"). Servers
 * that answer "/tour" and "/tour/" alike without a redirect would otherwise hand
 * back a page whose relative links resolve one folder too high, as they would in
 * a browser that followed the link without its slash.
 */
export function fetchAddress(href: string, base: string | URL | undefined, canonical: string): string {
  let written: URL;
  try {
    written = new URL(href, base);
  } catch {
    return canonical;
  }
  return FOLDER_PATH.test(written.pathname) ? folderAddress(canonical) : canonical;
}

/** `canonical` with the folder's final "/" put back (before the query); the root has it already. */
export function folderAddress(canonical: string): string {
  // The canonical spelling has no fragment and no final "/" except at the root: add it before the query.
  const query = canonical.indexOf("?");
  const path = query === -1 ? canonical : canonical.slice(0, query);
  return path.endsWith("/") ? canonical : `${path}/${query === -1 ? "" : canonical.slice(query)}`;
}

/**
 * What two addresses of one page have in common, for deduplication only: the
 * canonical spelling, with "www." dropped from the host, because a site that
 * links to itself with and without "www." serves the same page at both.
 */
export function pageKey(canonical: string): string {
  return canonical.replace(/^(https?:\/\/)www\./i, "$1");
}

function canonicalPath(pathname: string): string {
  const withoutIndex = pathname.replace(/\/index\.html?$/i, "/");
  const withoutSlash = withoutIndex.replace(/\/+$/, "");
  return withoutSlash === "" ? "/" : withoutSlash;
}

/**
 * Filters and sorts the raw "name=value" pairs without decoding and re-encoding
 * them: the result is fetched, and servers can tell "%20" from "+". The sort is
 * stable on names, so repeated names keep their order ("?a=2&a=1" differs from "?a=1&a=2").
 */
function canonicalQuery(search: string): string {
  if (search === "") return "";
  const pairs = search
    .replace(/^\?/, "")
    .split("&")
    .filter((pair) => pair !== "")
    .map((pair) => ({ pair, name: decodeName(pair.split("=", 1)[0] ?? "") }))
    .filter(({ name }) => !isTrackingParameter(name));
  pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pairs.length === 0 ? "" : `?${pairs.map(({ pair }) => pair).join("&")}`;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/**
 * The registrable domain ("eTLD+1") of a host: "docs.acme.co.uk" → "acme.co.uk".
 * Private suffixes are ignored on purpose (allowPrivateDomains: false), so
 * "a.github.io" → "github.io". IP literals and single-label hosts are returned as
 * they are; a dotted host with no registrable domain (itself a public suffix,
 * like "co.uk") falls back to its last two labels.
 */
export function registrableDomain(host: string): string {
  const hostname = host.toLowerCase().replace(/\.$/, "");
  if (isIpLiteral(hostname) || !hostname.includes(".")) return hostname;
  return getDomain(hostname, { allowPrivateDomains: false }) ?? hostname.split(".").slice(-2).join(".");
}

/**
 * Whether a link belongs to the site being scored: same registrable domain, so
 * www., apex and subdomains such as docs. count, whatever the scheme. Hosts
 * without a registrable domain (IP literals, "localhost") only match themselves,
 * port included: two services on one machine are not one site.
 */
export function isSameSite(candidate: URL | string, start: URL | string): boolean {
  const a = toUrl(candidate);
  const b = toUrl(start);
  if (a === undefined || b === undefined) return false;
  const hostA = a.hostname.replace(/\.$/, "");
  const hostB = b.hostname.replace(/\.$/, "");
  if (hasNoRegistrableDomain(hostA) || hasNoRegistrableDomain(hostB)) {
    // url.host carries the port only when it is not the scheme's default.
    return a.host.replace(/\.(?=:|$)/, "") === b.host.replace(/\.(?=:|$)/, "");
  }
  return registrableDomain(hostA) === registrableDomain(hostB);
}

function toUrl(value: URL | string): URL | undefined {
  if (value instanceof URL) return value;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

const hasNoRegistrableDomain = (hostname: string): boolean => isIpLiteral(hostname) || !hostname.includes(".");

/** URL.hostname keeps IPv6 brackets ("[::1]"); node's isIP wants them off. */
const isIpLiteral = (hostname: string): boolean => isIP(hostname.replace(/^\[(.*)\]$/, "$1")) !== 0;

/** At least two non-empty labels: rejects "intranet", ".com" and "a..com". */
const hasDomainShape = (hostname: string): boolean => {
  const labels = hostname.split(".");
  return labels.length >= 2 && labels.every((label) => label !== "");
};

/** "example.com." and "example.com" are the same host; keep the shorter spelling. */
function stripTrailingDot(url: URL): void {
  if (url.hostname.endsWith(".") && !isIpLiteral(url.hostname)) url.hostname = url.hostname.slice(0, -1);
}
