import { describe, expect, it } from "vitest";
import { detectBotWall, describeWall, mayBeWall } from "../../../src/modules/crawl/bot-wall.js";
import { readPage } from "../../../src/modules/crawl/extract.js";

const wallOf = (status: number, html: string, headers: Record<string, string> = {}) => {
  const { page } = readPage({ url: "https://acme.example/", status, body: html, kind: "html", headers });
  return detectBotWall({ status, headers, title: page.title, text: page.text, html });
};

const CLOUDFLARE_CHALLENGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><div class="main-wrapper"><h1>acme.example</h1><h2>Checking if the site connection is secure</h2><p>acme.example needs to review the security of your connection before proceeding.</p></div><script>(function(){window._cf_chl_opt={cvId: '2',cZone: "acme.example"};var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8';})();</script></body></html>`;

describe("bot walls", () => {
  it("knows Cloudflare's browser check by its words and its challenge script, on 403, 429 and 503", () => {
    for (const status of [403, 429, 503]) {
      expect(wallOf(status, CLOUDFLARE_CHALLENGE, { server: "cloudflare" })).toEqual({
        vendor: "Cloudflare",
        kind: "browser check",
        status,
      });
    }
    expect(
      wallOf(403, "<title>Just a moment...</title><p>Enable JavaScript and cookies to continue</p>"),
    ).toMatchObject({ vendor: "Cloudflare" });
  });

  it("believes the CDN's own headers whatever the body (cf-mitigated, x-amzn-waf-action, x-vercel-mitigated)", () => {
    expect(wallOf(403, "<p>denied</p>", { "cf-mitigated": "challenge" })).toEqual({
      vendor: "Cloudflare",
      kind: "browser check",
      status: 403,
    });
    expect(wallOf(405, "", { "x-amzn-waf-action": "captcha" })).toMatchObject({ vendor: "AWS WAF", kind: "captcha" });
    expect(wallOf(429, "", { "x-vercel-mitigated": "challenge" })).toMatchObject({ vendor: "Vercel" });
    expect(mayBeWall(405, { "x-amzn-waf-action": "captcha" })).toBe(true);
    expect(mayBeWall(404, {})).toBe(false);
  });

  it("knows a captcha interstitial answered with 200", () => {
    const interstitial = `<title>Security check</title><h1>Please verify you are a human</h1><p>We noticed unusual traffic from your network.</p><div class="h-captcha" data-sitekey="x"></div><script src="https://js.hcaptcha.com/1/api.js"></script>`;
    expect(wallOf(200, interstitial)).toEqual({ vendor: "a captcha", kind: "captcha", status: 200 });
    expect(wallOf(200, `<iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe>`)).toMatchObject(
      { vendor: "DataDome" },
    );
    expect(
      wallOf(403, `<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human (and not a bot).</p>`),
    ).toMatchObject({ vendor: "HUMAN (PerimeterX)" });
    expect(wallOf(200, `<title>Vercel Security Checkpoint</title><p>We're verifying your browser</p>`)).toMatchObject({
      vendor: "Vercel",
    });
    expect(describeWall({ vendor: "a captcha", kind: "captcha", status: 200 })).toBe(
      "a captcha interstitial (HTTP 200)",
    );
    expect(describeWall({ vendor: "Cloudflare", kind: "browser check", status: 403 })).toBe(
      "Cloudflare's browser check (HTTP 403)",
    );
  });

  it("does not take a real page for a wall: a contact form with a captcha, a page under bot management, a plain 403", () => {
    const contact = `<title>Contact us</title><h1>Contact sales</h1><p>Tell us about your team and we will get back within a day.</p><form><input name="email"><div class="g-recaptcha" data-sitekey="x"></div></form><script src="https://www.google.com/recaptcha/api.js"></script>`;
    expect(wallOf(200, contact)).toBeUndefined();
    // Cloudflare adds its bot-management script to every page it serves: that is not a challenge.
    const managed = `<title>Pricing | Acme</title><h1>Pricing</h1><p>Team $20 per user per month.</p><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>`;
    expect(wallOf(200, managed, { server: "cloudflare" })).toBeUndefined();
    expect(
      wallOf(
        403,
        "<title>403 Forbidden</title><h1>Forbidden</h1><p>You don't have permission to access this resource.</p>",
        { server: "nginx" },
      ),
    ).toBeUndefined();
    const long = `<title>Security</title><p>${"We protect accounts against automated requests and bot protection is built in. ".repeat(40)}</p><div class="h-captcha"></div>`;
    expect(wallOf(200, long)).toBeUndefined();
  });
});
