/**
 * A CDN's or bot-protection service's answer in place of the page: a browser
 * check ("Just a moment…"), a captcha interstitial, a block page. A wall is
 * never scored: what it lets through says nothing about the product (docs/api.md §12),
 * so the crawl names it and fails instead.
 *
 * Recognised from what the vendors send: explicit headers first (cf-mitigated,
 * x-amzn-waf-action, x-vercel-mitigated), then the interstitial's words and
 * markers, which are only looked for on answers that could be one (an error
 * status, or a page with next to no text of its own), so a real page that
 * happens to embed a captcha in its contact form is read as a page.
 */

export interface BotWall {
  /** Who put it up, as a reader would name it: "Cloudflare", "DataDome", "a captcha" … */
  readonly vendor: string;
  /** What it is: a browser check a script must pass, a captcha, or a plain refusal. */
  readonly kind: "browser check" | "captcha" | "block page";
  /** The HTTP status it came with. */
  readonly status: number;
}

export interface WallInput {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly title: string;
  /** The page's visible text (as extracted). */
  readonly text: string;
  /** The decoded HTML, for markers in scripts and iframes (looked at only when the answer could be a wall). */
  readonly html: string;
}

/** A page with more text than this is a page, whatever widget it embeds. */
const INTERSTITIAL_MAX_TEXT = 1_500;
/** Markup looked through for markers: interstitials are small, and a huge page is no interstitial. */
const MAX_HTML_SCANNED = 200_000;
const WALL_STATUSES = new Set([401, 403, 429, 503]);

interface Signature {
  readonly vendor: string;
  readonly kind: BotWall["kind"];
  /** Matched against the title and the first part of the text. */
  readonly words?: RegExp;
  /** Matched against the HTML. */
  readonly markup?: RegExp;
}

/**
 * Vendor interstitials: words or markup that only they put on a page. Markup is
 * what the interstitial itself carries (Cloudflare's challenge options, DataDome's
 * captcha frame), never the tags such vendors add to every protected page.
 */
const SIGNATURES: readonly Signature[] = [
  {
    vendor: "Cloudflare",
    kind: "browser check",
    words:
      /\bjust a moment\b|checking (?:if the site connection is secure|your browser before accessing)|verify(?:ing)? you are human by completing|needs to review the security of your connection/i,
    markup:
      /\bcf_chl_opt\b|\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\/(?:chl_page|managed|jsch)\b|\bcf-browser-verification\b/i,
  },
  {
    vendor: "Cloudflare",
    kind: "block page",
    words: /attention required!? \| cloudflare|sorry, you have been blocked|used cloudflare to restrict access/i,
  },
  { vendor: "DataDome", kind: "captcha", markup: /\bcaptcha-delivery\.com\b/i },
  {
    vendor: "HUMAN (PerimeterX)",
    kind: "captcha",
    words: /press (?:&|and) hold to confirm you are a human/i,
    markup: /\bid=["']?px-captcha\b/i,
  },
  {
    vendor: "Imperva",
    kind: "block page",
    words: /request unsuccessful\. incapsula incident id|pardon our interruption/i,
    markup: /\b_Incapsula_Resource\b/i,
  },
  { vendor: "AWS WAF", kind: "browser check", markup: /\bgokuProps\b/ },
  { vendor: "Vercel", kind: "browser check", words: /vercel security checkpoint/i },
  {
    vendor: "Akamai",
    kind: "block page",
    words: /you don't have permission to access\b[\s\S]{0,300}\breference\s+#\d+\.[0-9a-f]+/i,
  },
  {
    vendor: "Sucuri",
    kind: "block page",
    words: /sucuri website firewall - access denied|access denied - sucuri website firewall/i,
  },
  {
    vendor: "DDoS-Guard",
    kind: "browser check",
    words: /\bddos-guard\b.{0,80}\b(?:checking|protection|browser)\b|\b(?:checking|protection)\b.{0,80}\bddos-guard\b/i,
  },
  { vendor: "SiteGround", kind: "captcha", markup: /\/\.well-known\/sgcaptcha\//i },
];

/** A generic captcha interstitial: a captcha widget and words asking the reader to prove they are human. */
const CAPTCHA_WIDGET =
  /\b(?:g-recaptcha|h-captcha|cf-turnstile|frc-captcha|www\.google\.com\/recaptcha|js\.hcaptcha\.com|challenges\.cloudflare\.com\/turnstile)\b/i;
const PROVE_HUMAN =
  /\b(?:verify|confirm|prove|show)(?:ing)? (?:that )?you(?:'re| are) (?:a )?(?:human|not a (?:robot|bot))\b|\bare you (?:a )?(?:human|robot)\b|\bi'?m not a robot\b|\bsecurity check\b|\bcomplete the (?:security check|captcha)\b|\bunusual traffic\b|\bautomated (?:queries|requests|access)\b|\bbot (?:protection|detection)\b/i;

/** Whether an error answer is worth reading for a wall (a 404 or a 500 never is one). */
export function mayBeWall(status: number, headers: WallInput["headers"]): boolean {
  return (
    WALL_STATUSES.has(status) ||
    headers["cf-mitigated"] !== undefined ||
    headers["x-amzn-waf-action"] !== undefined ||
    headers["x-vercel-mitigated"] !== undefined
  );
}

export function detectBotWall(input: WallInput): BotWall | undefined {
  const { status, headers } = input;
  const header = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value.join(",") : (value ?? "")).toLowerCase();
  };
  // Explicit: the CDN says it answered with a challenge.
  if (header("cf-mitigated") === "challenge") return { vendor: "Cloudflare", kind: "browser check", status };
  const waf = header("x-amzn-waf-action");
  if (waf === "captcha" || waf === "challenge")
    return { vendor: "AWS WAF", kind: waf === "captcha" ? "captcha" : "browser check", status };
  const vercel = header("x-vercel-mitigated");
  if (vercel === "challenge" || vercel === "deny")
    return { vendor: "Vercel", kind: vercel === "deny" ? "block page" : "browser check", status };

  // Otherwise only an answer that could be an interstitial is looked at.
  const errorStatus = WALL_STATUSES.has(status);
  const thin = input.text.length <= INTERSTITIAL_MAX_TEXT;
  if (!errorStatus && !thin) return undefined;
  const words = `${input.title}\n${input.text.slice(0, 2_000)}`;
  const html = input.html.length > MAX_HTML_SCANNED ? input.html.slice(0, MAX_HTML_SCANNED) : input.html;
  for (const signature of SIGNATURES) {
    if (signature.words?.test(words) || signature.markup?.test(html))
      return { vendor: signature.vendor, kind: signature.kind, status };
  }
  if (thin && CAPTCHA_WIDGET.test(html) && PROVE_HUMAN.test(words))
    return { vendor: "a captcha", kind: "captcha", status };
  if (errorStatus && header("server").includes("cloudflare") && PROVE_HUMAN.test(words))
    return { vendor: "Cloudflare", kind: "browser check", status };
  return undefined;
}

/** "Cloudflare's browser check (HTTP 403)", "a captcha (HTTP 200)". */
export function describeWall(wall: BotWall): string {
  const owner = wall.vendor === "a captcha" ? "a captcha interstitial" : `${wall.vendor}'s ${wall.kind}`;
  return `${owner} (HTTP ${wall.status})`;
}
