/**
 * robots.txt as RFC 9309 reads it (the rules Google's open-source parser applies),
 * plus the two widespread extensions we honour: crawl-delay and sitemap.
 * Pure: the caller fetches the file and decides what a missing or failed file means.
 */

export interface RobotsRules {
  /** Whether our crawler may fetch this path (with its query, if any), e.g. "/docs?page=2". */
  isAllowed(pathAndQuery: string): boolean;
  /** Seconds to wait between requests, from the group that applies to us; at most 30. */
  readonly crawlDelaySeconds: number | undefined;
  /** Sitemap addresses as written, from anywhere in the file, deduplicated. */
  readonly sitemaps: string[];
}

/** What applies when a site has no robots.txt (a 4xx answer, per RFC 9309 §2.3.1.3). */
export const ALLOW_ALL: RobotsRules = Object.freeze({
  isAllowed: () => true,
  crawlDelaySeconds: undefined,
  // A fresh array each time, so no caller can alter the shared value.
  get sitemaps(): string[] {
    return [];
  },
});

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; what follows is ignored. */
const MAX_ROBOTS_CHARS = 500 * 1024;
const MAX_CRAWL_DELAY_SECONDS = 30;

interface Rule {
  readonly allow: boolean;
  /** Normalised pattern; its length decides which rule is the most specific. */
  readonly pattern: string;
}

interface Group {
  readonly agents: string[];
  readonly rules: Rule[];
  crawlDelay: number | undefined;
}

type Directive = "user-agent" | "allow" | "disallow" | "crawl-delay" | "sitemap";

/** Spellings seen in the wild that Google also accepts. */
const DIRECTIVES: Record<string, Directive> = {
  "user-agent": "user-agent",
  useragent: "user-agent",
  "user agent": "user-agent",
  allow: "allow",
  disallow: "disallow",
  dissallow: "disallow",
  dissalow: "disallow",
  disalow: "disallow",
  diasllow: "disallow",
  disallaw: "disallow",
  "crawl-delay": "crawl-delay",
  crawldelay: "crawl-delay",
  sitemap: "sitemap",
  "site-map": "sitemap",
};

export function parseRobots(text: string, productToken: string): RobotsRules {
  const groups: Group[] = [];
  const sitemaps = new Set<string>();
  let current: Group | undefined;
  // A user-agent line after a rule starts a new group; consecutive ones share a group.
  let lastWasAgent = false;

  for (const line of text
    .slice(0, MAX_ROBOTS_CHARS)
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\r|\n/)) {
    const content = line.replace(/#.*$/, "");
    const colon = content.indexOf(":");
    if (colon < 0) continue;
    const directive = DIRECTIVES[content.slice(0, colon).trim().toLowerCase()];
    const value = content.slice(colon + 1).trim();
    if (directive === undefined) continue;

    if (directive === "sitemap") {
      if (value !== "") sitemaps.add(value);
      continue;
    }
    if (directive === "user-agent") {
      if (!lastWasAgent || current === undefined) {
        current = { agents: [], rules: [], crawlDelay: undefined };
        groups.push(current);
      }
      current.agents.push(agentToken(value));
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    // Rules before the first user-agent line belong to no group.
    if (current === undefined) continue;
    if (directive === "crawl-delay") {
      current.crawlDelay ??= parseCrawlDelay(value);
    } else if (value !== "") {
      // An empty Disallow (or Allow) matches nothing, which is to say: allow all.
      current.rules.push({ allow: directive === "allow", pattern: normalisePattern(value) });
    }
  }

  const token = agentToken(productToken.trim());
  const ours = groups.filter((group) => group.agents.includes(token));
  const chosen = ours.length > 0 ? ours : groups.filter((group) => group.agents.includes("*"));
  const rules = chosen.flatMap((group) => group.rules);
  const crawlDelaySeconds = chosen.map((group) => group.crawlDelay).find((delay) => delay !== undefined);

  return {
    isAllowed: (pathAndQuery) => isAllowed(rules, pathAndQuery),
    crawlDelaySeconds,
    sitemaps: [...sitemaps],
  };
}

/**
 * RFC 9309 §2.2.1: the product token is matched case-insensitively; like Google,
 * we read it as the leading run of letters, "_" and "-", so "Googlebot/2.1" is "googlebot".
 */
function agentToken(value: string): string {
  if (value.startsWith("*")) return "*";
  return (/^[a-z_-]+/i.exec(value)?.[0] ?? "").toLowerCase();
}

function parseCrawlDelay(value: string): number | undefined {
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value)) return undefined;
  return Math.min(Number(value), MAX_CRAWL_DELAY_SECONDS);
}

function normalisePattern(value: string): string {
  const pattern = normaliseEncoding(value);
  // The RFC requires a leading "/"; a bare "private" is taken as "/private" rather than dropped.
  return pattern.startsWith("/") || pattern.startsWith("*") ? pattern : `/${pattern}`;
}

function isAllowed(rules: readonly Rule[], pathAndQuery: string): boolean {
  const path = normaliseEncoding(pathAndQuery.startsWith("/") ? pathAndQuery : `/${pathAndQuery}`);
  if (path === "/robots.txt" || path.startsWith("/robots.txt?")) return true;

  let best: Rule | undefined;
  for (const rule of rules) {
    if (!matches(rule.pattern, path)) continue;
    const longer = best === undefined || rule.pattern.length > best.pattern.length;
    // On equally specific rules the least restrictive wins (RFC 9309 §2.2.2).
    const tieGoesToAllow = best !== undefined && rule.pattern.length === best.pattern.length && rule.allow;
    if (longer || tieGoesToAllow) best = rule;
  }
  return best?.allow ?? true;
}

/**
 * Prefix match with "*" for any run of characters and a final "$" anchoring the
 * end. Walks a set of candidate positions instead of compiling a RegExp: the file
 * comes from the site we crawl, and "/*a*a*a*a*b" patterns make backtracking
 * regular expressions explode. Cost is O(pattern × path).
 */
function matches(pattern: string, path: string): boolean {
  let positions = [0];
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char === "$" && i === pattern.length - 1) return positions.includes(path.length);
    if (char === "*") {
      const first = positions[0];
      if (first === undefined) return false;
      positions = Array.from({ length: path.length - first + 1 }, (_, k) => first + k);
      continue;
    }
    const next: number[] = [];
    for (const position of positions) {
      if (path[position] === char) next.push(position + 1);
    }
    if (next.length === 0) return false;
    positions = next;
  }
  return true;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * One spelling for patterns and paths before comparing them (RFC 9309 §2.2.2):
 * percent-escapes of unreserved characters are decoded ("%7E" → "~"), other
 * escapes are upper-cased ("%2f" → "%2F", which stays distinct from "/"), and
 * characters outside printable ASCII are UTF-8 percent-encoded.
 */
function normaliseEncoding(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i += 1) {
    const char = value[i] as string;
    if (char === "%" && /^[0-9a-f]{2}$/i.test(value.slice(i + 1, i + 3))) {
      const decoded = String.fromCharCode(Number.parseInt(value.slice(i + 1, i + 3), 16));
      out += UNRESERVED.test(decoded) ? decoded : `%${value.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) >= 0x7f) {
      const codePoint = value.codePointAt(i) as number;
      out += encodeCodePoint(codePoint);
      if (codePoint > 0xffff) i += 1;
    } else {
      out += char;
    }
  }
  return out;
}

/** A lone surrogate cannot be UTF-8 encoded; it becomes U+FFFD, as a decoder would make it. */
function encodeCodePoint(codePoint: number): string {
  try {
    return encodeURIComponent(String.fromCodePoint(codePoint));
  } catch {
    return "%EF%BF%BD";
  }
}
