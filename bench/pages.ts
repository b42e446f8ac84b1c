// Generated product pages for the crawler benchmarks (100–200 KB each, deterministic):
// nav, footer, prose with inline markup and classes, links, tables, scripts and styles,
// roughly a third visible text, as marketing and docs pages tend to be.

/** A seeded random number generator (mulberry32): the same seed, the same numbers. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "platform team workflow deploy secure fast reliable integration analytics dashboard customer support pricing " +
  "enterprise scale cloud data pipeline monitoring alert incident review audit compliance export import api " +
  "webhook release version changelog roadmap feature plan starter growth business onboarding migration latency " +
  "throughput region backup restore encryption single sign-on role permission report insight metric the a of to " +
  "and with for in on your our every each across without while because which that this those"
).split(" ");

export function productPage(index: number): string {
  const random = rng(index + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const sentence = () => {
    const s = words(8 + Math.floor(random() * 14));
    return s.charAt(0).toUpperCase() + s.slice(1) + ".";
  };
  const href = () =>
    pick(["/features/", "/docs/", "/blog/", "/pricing", "https://github.com/acme/", "/customers/"]) +
    words(2).replace(/ /g, "-");
  const inline = () =>
    pick([
      () => `<a href="${href()}" class="link link--inline">${words(2)}</a>`,
      () => `<strong>${words(2)}</strong>`,
      () => `<em class="em">${words(3)}</em>`,
      () => `<span class="tag" data-id="${Math.floor(random() * 1e6)}">${words(1)}</span>`,
      () => `$${Math.floor(random() * 200)}/mo`,
      () => `updated March ${1 + Math.floor(random() * 27)}, 2025`,
    ])();
  const paragraph = () => `<p class="prose">${sentence()} ${inline()} ${sentence()} ${inline()} ${sentence()}</p>`;
  const icon = () =>
    `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M${Array.from({ length: 24 }, () => Math.floor(random() * 24)).join(" ")}Z"/></svg>`;
  const menu = (n: number) =>
    `<ul class="menu">${Array.from({ length: n }, () => `<li class="menu__item"><a class="menu__link" href="${href()}">${icon()}<span>${words(2)}</span></a></li>`).join("")}</ul>`;
  const table = () =>
    `<table class="specs"><thead><tr><th>Spec</th><th>Starter</th><th>Growth</th></tr></thead><tbody>${Array.from(
      { length: 12 },
      () => `<tr><td>${words(2)}</td><td>${words(1)}</td><td>$${Math.floor(random() * 900)}</td></tr>`,
    ).join("")}</tbody></table>`;
  const css = Array.from(
    { length: 120 },
    (_, i) => `.c${i}{margin:${i}px;padding:0 ${i % 7}px;color:#${(i * 2654435).toString(16).slice(0, 6)}}`,
  ).join("\n");
  const js = (n: number) =>
    Array.from({ length: n }, (_, i) => `function f${i}(a,b){var x="${words(4)}";return a<b?x+a:x+b;}`).join("\n");
  const jsonLd = JSON.stringify({
    "@context": "https://schema.org",
    "@graph": [
      { "@type": "Organization", name: "Acme", url: "https://acme.example", sameAs: ["https://github.com/acme"] },
      {
        "@type": "Product",
        name: `Product ${index}`,
        offers: [{ "@type": "Offer", price: "49.00", priceCurrency: "USD" }],
      },
    ],
  });

  const target = 100_000 + random() * 100_000;
  const head =
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Product ${index} — Acme</title>` +
    `<meta name="description" content="${sentence()}"><meta property="og:site_name" content="Acme"><meta property="og:title" content="Product ${index}">` +
    `<link rel="canonical" href="/products/${index}">${Array.from({ length: 6 }, (_, i) => `<link rel="stylesheet" href="/css/${i}.css">`).join("")}` +
    `<style>${css}</style><script>${js(150)}</script><script type="application/ld+json">${jsonLd}</script></head>`;
  const chrome = `<body class="page"><header class="site-header"><a href="/" class="logo">Acme</a><nav aria-label="Main">${menu(40)}</nav></header><main id="content"><article><h1>Product ${index}</h1>`;
  const footer = `</article></main><footer class="site-footer">${menu(30)}<p>© 2025 Acme Inc. ${sentence()}</p></footer><script>${js(120)}</script></body></html>`;
  const parts = [head, chrome];
  let size = head.length + chrome.length + footer.length;
  while (size < target) {
    const section =
      `<section class="section"><h2>${words(3)}</h2><div class="grid">${Array.from({ length: 6 }, paragraph).join("")}</div>` +
      `${table()}<ul class="features">${Array.from({ length: 8 }, () => `<li>${icon()} ${words(5)}</li>`).join("")}</ul>` +
      `<div class="panel" hidden><h3>${words(2)}</h3>${paragraph()}</div><img src="/img/${Math.floor(random() * 1e4)}.png" alt="${words(3)}"></section>`;
    parts.push(section);
    size += section.length;
  }
  parts.push(footer);
  return parts.join("");
}
