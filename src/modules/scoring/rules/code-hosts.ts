import type { OutboundLink } from "../../crawl/crawl.types.js";
import { registrableDomain } from "../../crawl/url.js";
import type { SiteFacts } from "../site-facts.js";

/** Words that open a company name or a title without naming anyone. */
const NOT_A_BRAND = /^(?:the|and|for|get|try|use|app|www|inc|ltd|llc|home|welcome|official|our|your)$/i;

/** Letters and digits only, lower case: "Genez-io" and "genezio" are one name (as brandKeys are kept). */
export const nameKey = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, "");
const key = nameKey;

/**
 * The names the site goes by: the first word of three letters or more of its company
 * name, and its host's name under the registrable domain (acme for www.acme.co.uk).
 * Empty when neither is usable (a company name in another script, an IP address).
 */
export function brandKeys(facts: SiteFacts): string[] {
  const keys = new Set<string>();
  // The first word that can name a brand: "The Acme Company" is Acme, not "the" (which every "thenewboston" contains).
  const word = facts.crawl.companyName
    .match(/[A-Za-z][A-Za-z0-9-]{2,}/g)
    ?.find((candidate) => !NOT_A_BRAND.test(candidate));
  if (word) keys.add(key(word));
  // The name under the registrable domain: acme for www.acme.co.uk; nothing for an IP address or "localhost".
  const domain = siteDomain(facts);
  const label = domain.includes(".") && !/^[\d.]+$|^\[/.test(domain) ? domain.split(".")[0] : undefined;
  if (label) keys.add(key(label));
  return [...keys].filter((name) => name.length >= 3);
}

/**
 * The site's own code on GitHub or GitLab, one link per organisation or repository:
 * its organisation ("github.com/acme", any repository under it) or a repository named
 * after it ("github.com/adobe/brackets" for Brackets). A theme's credit
 * ("github.com/rstudio/blogdown"), a library the product thanks, a staff member's
 * profile, or someone's app built on the product ("jane/acme-music-app") is someone
 * else's code; a repository that holds job posts ("acme/careers") is not code. The
 * issues, wiki and files of one repository are one repository. When the site's own
 * names are unknown, every code-host link is kept (one per repository).
 */
export function ownCodeHostLinks(facts: SiteFacts): string[] {
  const urls = [
    ...new Set([
      ...facts.outbound("github").map((link: OutboundLink) => link.url),
      ...facts.linksMatching(/\/\/(www\.)?(github|gitlab)\.com\//i).map((link) => link.url),
    ]),
  ];
  const brands = brandKeys(facts);
  const named = (name: string | undefined) =>
    name !== undefined && name.length >= 3 && brands.some((brand) => name.includes(brand) || brand.includes(name));
  const repositories = new Map<string, string>();
  for (const url of urls) {
    let segments: string[];
    try {
      segments = new URL(url).pathname.split("/").filter(Boolean).slice(0, 2);
    } catch {
      continue;
    }
    const [owner, repository] = segments.map(key);
    if (owner === undefined || (repository !== undefined && JOB_REPOSITORY.test(repository))) continue;
    if (brands.length > 0 && !named(owner) && !(repository !== undefined && brands.includes(repository))) continue;
    const id = segments.join("/").toLowerCase();
    if (!repositories.has(id)) repositories.set(id, url);
  }
  return [...repositories.values()];
}

/** A repository of job posts, not code. */
const JOB_REPOSITORY = /^(?:careers?|jobs|hiring|join-?us|work-?with-?us)$/;

/**
 * The site's own status page, trust centre or hosted docs among its outbound links: on its own domain
 * (status.acme.com, trust.acme.io) or naming it on a hosting service (acme.statuspage.io, trust.page/acme,
 * app.vanta.com/acme/trust). A blog post's link to someone else's (security.googleblog.com,
 * status.github.com) says nothing about the site. When the site's own names are unknown, every link is kept.
 */
export function ownOutbound(facts: SiteFacts, kind: OutboundLink["kind"]): OutboundLink[] {
  const links = facts.outbound(kind);
  const brands = brandKeys(facts);
  if (brands.length === 0) return links;
  return links.filter((link) => {
    let url: URL;
    try {
      url = new URL(link.url);
    } catch {
      return false;
    }
    if (onOwnDomain(facts, link.url)) return true;
    const names = [...url.hostname.split("."), ...url.pathname.split("/").filter(Boolean).slice(0, 2)].map(key);
    return names.some((name) => name.length >= 3 && brands.some((brand) => name === brand || name.includes(brand)));
  });
}

const siteDomains = new WeakMap<object, string>();
/** The site's registrable domain ("acme.com" for www.acme.com; "acme.co.uk" through the public suffix list), once per crawl. */
export function siteDomain(facts: SiteFacts): string {
  let domain = siteDomains.get(facts.home);
  if (domain === undefined) {
    domain = registrableDomain(new URL(facts.home.url).hostname);
    siteDomains.set(facts.home, domain);
  }
  return domain;
}

/** The address, parsed, when it is on the site's own registrable domain (app.acme.com and try.acme.com too). */
export function onOwnDomain(facts: SiteFacts, url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return registrableDomain(parsed.hostname) === siteDomain(facts) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
