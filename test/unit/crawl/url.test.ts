import { getDomain } from "tldts";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import {
  canonicalUrl,
  fetchAddress,
  isSameSite,
  normalizeInputUrl,
  pageKey,
  registrableDomain,
} from "../../../src/modules/crawl/url.js";

/** The AppError a call throws, so a test can assert its code and reason. */
function rejection(input: unknown): AppError {
  try {
    normalizeInputUrl(input);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe("normalizeInputUrl: the address a caller submits", () => {
  it("accepts full http and https addresses and drops the fragment", () => {
    expect(normalizeInputUrl("https://example.com/pricing#plans").href).toBe("https://example.com/pricing");
    expect(normalizeInputUrl("http://example.com").href).toBe("http://example.com/");
  });

  it("takes a bare host or host/path as https", () => {
    expect(normalizeInputUrl("example.com").href).toBe("https://example.com/");
    expect(normalizeInputUrl("example.com/pricing").href).toBe("https://example.com/pricing");
    expect(normalizeInputUrl("//example.com/docs").href).toBe("https://example.com/docs");
    expect(normalizeInputUrl("Example.COM:8443/x").href).toBe("https://example.com:8443/x");
  });

  it("trims surrounding whitespace", () => {
    expect(normalizeInputUrl("  \n https://example.com/ \t").href).toBe("https://example.com/");
  });

  it("treats a trailing dot on the host as the same host", () => {
    expect(normalizeInputUrl("https://example.com./a").href).toBe("https://example.com/a");
  });

  it("lets test fixtures through: IP literals, ports and .test names are the SSRF guard's call", () => {
    expect(normalizeInputUrl("http://127.0.0.1:43123/").href).toBe("http://127.0.0.1:43123/");
    expect(normalizeInputUrl("http://[::1]:8080/a").href).toBe("http://[::1]:8080/a");
    expect(normalizeInputUrl("acme.test").href).toBe("https://acme.test/");
    expect(normalizeInputUrl("http://www.acme.test:8080/pricing").href).toBe("http://www.acme.test:8080/pricing");
  });

  it("rejects anything that is not a non-empty string", () => {
    for (const input of [undefined, null, 42, {}, ["https://example.com"]]) {
      expect(rejection(input).code).toBe("INVALID_URL");
    }
    expect(rejection("").message).toMatch(/empty/);
    expect(rejection("   \t ").message).toMatch(/empty/);
  });

  it("rejects addresses longer than 2,048 characters", () => {
    const path = "a".repeat(2048);
    expect(rejection(`https://example.com/${path}`).message).toMatch(/2048/);
    expect(normalizeInputUrl(`https://example.com/${"a".repeat(2000)}`).pathname).toHaveLength(2001);
  });

  it("rejects other schemes, saying only http and https can be scored", () => {
    for (const input of [
      "ftp://example.com/",
      "mailto:sales@example.com",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "data:text/html,hi",
    ]) {
      const error = rejection(input);
      expect(error.code).toBe("INVALID_URL");
      expect(error.message).toMatch(/only http and https/i);
    }
  });

  it("rejects what cannot be parsed or has no host", () => {
    expect(rejection("https://").code).toBe("INVALID_URL");
    expect(rejection("https://exa mple.com/").message).toMatch(/parsed/);
    expect(rejection("http://[::1/").message).toMatch(/parsed/);
  });

  it("rejects credentials in the address", () => {
    expect(rejection("https://user:secret@example.com/").message).toMatch(/user name or password/);
    expect(rejection("https://user@example.com/").message).toMatch(/user name or password/);
  });

  it("rejects hosts that are not domains: single labels and empty labels", () => {
    expect(rejection("https://intranet/").message).toMatch(/intranet/);
    expect(rejection("localhost:3000").message).toMatch(/localhost/);
    expect(rejection("https://a..com/").code).toBe("INVALID_URL");
  });
});

describe("canonicalUrl: one spelling per page", () => {
  const base = "https://example.com/products/";

  it("resolves relative and protocol-relative links against the page", () => {
    expect(canonicalUrl("pricing", base)).toBe("https://example.com/products/pricing");
    expect(canonicalUrl("../docs", base)).toBe("https://example.com/docs");
    expect(canonicalUrl("/about", base)).toBe("https://example.com/about");
    expect(canonicalUrl("//cdn.example.com/a", base)).toBe("https://cdn.example.com/a");
    expect(canonicalUrl("?page=2", "https://example.com/blog")).toBe("https://example.com/blog?page=2");
  });

  it("handles whitespace as browsers do: outer trimmed, inner percent-encoded", () => {
    expect(canonicalUrl("  /pricing \n", base)).toBe("https://example.com/pricing");
    expect(canonicalUrl("/case studies/acme", base)).toBe("https://example.com/case%20studies/acme");
  });

  it("answers undefined for links that are not http(s) pages or cannot be parsed", () => {
    for (const href of [
      "mailto:hi@example.com",
      "tel:+441234",
      "javascript:void(0)",
      "data:text/plain,x",
      "ftp://example.com/",
    ]) {
      expect(canonicalUrl(href, base)).toBeUndefined();
    }
    expect(canonicalUrl("https://exa mple.com/")).toBeUndefined();
    expect(canonicalUrl("/relative-without-base")).toBeUndefined();
  });

  it("drops the fragment, lowercases the host and drops default ports", () => {
    expect(canonicalUrl("HTTPS://Example.COM:443/Pricing#top")).toBe("https://example.com/Pricing");
    expect(canonicalUrl("http://example.com:80/")).toBe("http://example.com/");
    expect(canonicalUrl("http://example.com:8080/")).toBe("http://example.com:8080/");
  });

  it("drops credentials embedded in a link", () => {
    expect(canonicalUrl("https://user:secret@example.com/docs")).toBe("https://example.com/docs");
  });

  it("a tracking parameter never makes two URLs distinct", () => {
    const plain = canonicalUrl("https://example.com/pricing?plan=pro");
    const tracked = [
      "utm_source=x&utm_medium=y&utm_campaign=z&UTM_Term=w",
      "gclid=1",
      "dclid=1",
      "fbclid=1",
      "msclkid=1",
      "yclid=1",
      "mc_cid=1",
      "mc_eid=1",
      "igshid=1",
      "_ga=1",
      "_gl=1",
      "ref=producthunt",
      "ref_src=twsrc",
      "hsa_acc=1&hsa_cam=2",
      "_hsenc=1",
      "_hsmi=1",
      "vero_id=1&vero_conv=2",
      "mkt_tok=abc",
    ];
    for (const query of tracked) {
      expect(canonicalUrl(`https://example.com/pricing?${query}&plan=pro`)).toBe(plain);
    }
    expect(canonicalUrl("https://example.com/pricing?utm_source=x")).toBe("https://example.com/pricing");
  });

  it("keeps parameters that select content, and parameter order never makes two URLs distinct", () => {
    expect(canonicalUrl("https://example.com/s?q=a&page=2")).toBe(canonicalUrl("https://example.com/s?page=2&q=a"));
    expect(canonicalUrl("https://example.com/s?q=a&page=2")).toBe("https://example.com/s?page=2&q=a");
  });

  it("keeps the order of repeated parameters and their encoding, since the result is fetched", () => {
    expect(canonicalUrl("https://example.com/s?tag=b&a=1&tag=a")).toBe("https://example.com/s?a=1&tag=b&tag=a");
    expect(canonicalUrl("https://example.com/s?q=a+b&r=c%20d")).toBe("https://example.com/s?q=a+b&r=c%20d");
  });

  it("collapses trailing slashes and index files, keeping the root as /", () => {
    expect(canonicalUrl("https://example.com/pricing/")).toBe("https://example.com/pricing");
    expect(canonicalUrl("https://example.com/docs/index.html")).toBe("https://example.com/docs");
    expect(canonicalUrl("https://example.com/docs/INDEX.HTM")).toBe("https://example.com/docs");
    expect(canonicalUrl("https://example.com/index.html")).toBe("https://example.com/");
    expect(canonicalUrl("https://example.com")).toBe("https://example.com/");
    expect(canonicalUrl("https://example.com/?")).toBe("https://example.com/");
    expect(canonicalUrl("https://example.com/docs/index.html.bak")).toBe("https://example.com/docs/index.html.bak");
  });

  it("is idempotent", () => {
    const samples = [
      "HTTPS://Example.COM:443/a/b/index.html?z=1&utm_source=x&a=2#f",
      "http://example.com./pricing/?ref=x",
      "https://example.com/case studies/?q=a+b",
      "https://example.com//",
      "https://example.com/x?&&b&a=",
    ];
    for (const sample of samples) {
      const once = canonicalUrl(sample);
      expect(once).toBeDefined();
      expect(canonicalUrl(once as string)).toBe(once);
    }
  });
});

describe("registrableDomain", () => {
  it("answers the eTLD+1, ignoring private suffixes", () => {
    expect(registrableDomain("docs.example.com")).toBe("example.com");
    expect(registrableDomain("www.example.co.uk")).toBe("example.co.uk");
    expect(registrableDomain("Acme.GitHub.io")).toBe("github.io");
  });

  it("returns IP literals and single-label hosts unchanged", () => {
    expect(registrableDomain("127.0.0.1")).toBe("127.0.0.1");
    expect(registrableDomain("[::1]")).toBe("[::1]");
    expect(registrableDomain("localhost")).toBe("localhost");
  });

  it("treats .test (not a public suffix) like any unknown TLD: one label of suffix", () => {
    // tldts's default rule makes an unlisted TLD the suffix, so getDomain already answers.
    expect(getDomain("docs.acme.test", { allowPrivateDomains: false })).toBe("acme.test");
    expect(registrableDomain("www.acme.test")).toBe("acme.test");
    expect(registrableDomain("docs.acme.test")).toBe("acme.test");
  });

  it("falls back to the last two labels when tldts finds no registrable domain", () => {
    expect(getDomain("co.uk", { allowPrivateDomains: false })).toBeNull();
    expect(registrableDomain("co.uk")).toBe("co.uk");
  });
});

describe("isSameSite", () => {
  it("counts www., the apex and subdomains as the start's site, whatever the scheme", () => {
    const start = "https://www.example.com/";
    expect(isSameSite("https://example.com/pricing", start)).toBe(true);
    expect(isSameSite("https://docs.example.com/", start)).toBe(true);
    expect(isSameSite("http://www.example.com/about", start)).toBe(true);
    expect(isSameSite(new URL("https://status.example.com"), new URL(start))).toBe(true);
  });

  it("does not count other domains, look-alikes or shared public suffixes", () => {
    const start = "https://example.com/";
    expect(isSameSite("https://example.org/", start)).toBe(false);
    expect(isSameSite("https://example.com.evil.net/", start)).toBe(false);
    expect(isSameSite("https://notexample.com/", start)).toBe(false);
    expect(isSameSite("https://other.co.uk/", "https://example.co.uk/")).toBe(false);
  });

  it("works for the .test fixture hosts", () => {
    expect(isSameSite("http://www.acme.test:8080/", "http://acme.test:8080/")).toBe(true);
    expect(isSameSite("http://docs.acme.test/", "http://acme.test/")).toBe(true);
    expect(isSameSite("http://globex.test/", "http://acme.test/")).toBe(false);
  });

  it("for IP literals and single-label hosts, means the exact same host and port", () => {
    expect(isSameSite("http://127.0.0.1:4000/a", "http://127.0.0.1:4000/")).toBe(true);
    expect(isSameSite("https://127.0.0.1:4000/a", "http://127.0.0.1:4000/")).toBe(true);
    expect(isSameSite("http://127.0.0.1:4001/", "http://127.0.0.1:4000/")).toBe(false);
    expect(isSameSite("http://127.0.0.2:4000/", "http://127.0.0.1:4000/")).toBe(false);
    expect(isSameSite("http://localhost:4000/", "http://127.0.0.1:4000/")).toBe(false);
    expect(isSameSite("http://localhost:4000/x", "http://localhost:4000/")).toBe(true);
    expect(isSameSite("http://[::1]:4000/x", "http://[::1]:4000/")).toBe(true);
  });

  it("answers false for unparsable input rather than throwing", () => {
    expect(isSameSite("not a url", "https://example.com/")).toBe(false);
  });
});

describe("fetchAddress: what to request for a link", () => {
  it("keeps the final slash of a folder link, so the page's relative links resolve inside that folder", () => {
    const base = "https://acme.com/website/";
    expect(fetchAddress("tour/", base, canonicalUrl("tour/", base)!)).toBe("https://acme.com/website/tour/");
    expect(fetchAddress("docs/index.html", base, canonicalUrl("docs/index.html", base)!)).toBe(
      "https://acme.com/website/docs/",
    );
    expect(
      fetchAddress("/website/tour/?utm_source=x&b=2", base, canonicalUrl("/website/tour/?utm_source=x&b=2", base)!),
    ).toBe("https://acme.com/website/tour/?b=2");
  });

  it("fetches every other link by its canonical spelling", () => {
    const base = "https://acme.com/website/";
    expect(fetchAddress("pricing", base, canonicalUrl("pricing", base)!)).toBe("https://acme.com/website/pricing");
    expect(fetchAddress("/", base, canonicalUrl("/", base)!)).toBe("https://acme.com/");
    expect(fetchAddress("Our Team", base, canonicalUrl("Our Team", base)!)).toBe("https://acme.com/website/Our%20Team");
    expect(fetchAddress("über-uns/", base, canonicalUrl("über-uns/", base)!)).toBe(
      "https://acme.com/website/%C3%BCber-uns/",
    );
  });
});

describe("pageKey: one page, however the site links to it", () => {
  it("treats www. and the bare host as one page, and nothing else", () => {
    expect(pageKey("https://www.acme.com/pricing")).toBe(pageKey("https://acme.com/pricing"));
    expect(pageKey("http://WWW.acme.com/")).toBe("http://acme.com/");
    expect(pageKey("https://docs.acme.com/x")).not.toBe(pageKey("https://acme.com/x"));
    expect(pageKey("https://acme.com/www.thing")).toBe("https://acme.com/www.thing");
  });
});
