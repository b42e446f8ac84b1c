import { createHash } from "node:crypto";

/**
 * The look every page for people shares (the share page, the home page, the HTML
 * 404): one dark header band, white cards on a light grey ground. Each page puts
 * this and its own rules in one <style> element that its CSP allows by hash.
 */
export const BASE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f1f5f9;color:#0f172a;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:#4338ca;text-underline-offset:2px}
h1,h2,h3,h4{line-height:1.2;margin:0}
.wrap{max-width:1120px;margin:0 auto;padding:0 20px}
.hero{background:#0f172a;color:#f8fafc;padding:40px 0 84px}
.hero a{color:#c7d2fe}
.eyebrow{margin:0 0 8px;font-size:.75rem;letter-spacing:.12em;text-transform:uppercase;color:#94a3b8;font-weight:600}
.hero h1{font-size:clamp(1.75rem,5vw,2.75rem);font-weight:750;overflow-wrap:anywhere}
.lede{margin:14px 0 0;color:#94a3b8;max-width:36em}
main.wrap{margin-top:-52px;padding-top:0;padding-bottom:8px}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:14px;padding:22px;margin-bottom:22px;box-shadow:0 1px 2px rgba(15,23,42,.04)}
footer{color:#64748b;font-size:.85rem;padding:28px 0 40px;border-top:1px solid #e2e8f0;margin-top:28px}
footer p{margin:4px 0}
@media (max-width:760px){.wrap{padding:0 16px}.hero{padding:28px 0 72px}.card{padding:18px}}
`.trim();

/** `'sha256-…'` sources for every <style> element of a page. */
export function styleHashes(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (match) =>
      `'sha256-${createHash("sha256")
        .update(match[1] ?? "", "utf8")
        .digest("base64")}'`,
  );
}

/** A page with no script: its <style> elements by hash, data: images, nothing else. */
export function styleOnlyCsp(html: string): string {
  const hashes = styleHashes(html);
  return [
    "default-src 'none'",
    `style-src ${hashes.length ? hashes.join(" ") : "'none'"}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
