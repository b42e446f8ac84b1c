import { parse } from "parse5";
import { walkTree, parse5Adapter } from "./src/modules/crawl/html-tree.js";
import { canonicalUrl, isSameSite } from "./src/modules/crawl/url.js";
const { page } = await import("/tmp/pagegen.ts");
const raws = Array.from({ length: 60 }, (_, i) => walkTree(parse(page(i)), parse5Adapter));
const mod = await import("./src/modules/crawl/extract.js");
const bench = (label: string, fn: (r: (typeof raws)[number], i: number) => unknown) => {
  let best = Infinity;
  for (let k = 0; k < 5; k++) { const t = process.hrtime.bigint(); raws.forEach(fn); best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6 / raws.length); }
  console.log(label, best.toFixed(3), "ms/page");
};
bench("links", (r, i) => r.links.map((l) => { const u = canonicalUrl(l.href, `https://acme.example/products/${i}`); return u && isSameSite(u, `https://acme.example/products/${i}`); }));
bench("canonicalOnly", (r, i) => r.links.map((l) => canonicalUrl(l.href, `https://acme.example/products/${i}`)));
const DATE = /\b(\d{4})-(\d{2})-(\d{2})(?![\d])|\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b|\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{4})\b/gi;
bench("dates regex", (r) => [...r.text.matchAll(DATE)].length);
const CODES = "USD|EUR|GBP|JPY|INR|CAD|AUD|NZD|CHF|CNY|HKD|SGD|SEK|NOK|DKK|PLN|CZK|BRL|MXN|ZAR|KRW|RUB|TRY|ILS|AED|PHP";
const SYMBOL = "US\\$|CA\\$|C\\$|AU\\$|A\\$|NZ\\$|HK\\$|S\\$|R\\$|\\$|€|£|¥|₹|₩|₽|₺|₪|₱";
const AMOUNT = "\\d{1,3}(?:[,.]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?";
const PRICE = new RegExp([`(${SYMBOL})\\s?(${AMOUNT})(?![\\d\\p{L}])`, `\\b(${CODES})\\s?(${AMOUNT})(?![\\d\\p{L}])`, `(?<![\\d.,\\p{L}])(${AMOUNT})\\s?(€|£|¥|₹|zł|${CODES})(?![\\p{L}])`].join("|"), "gu");
bench("prices regex", (r) => [...r.text.matchAll(PRICE)].length);
bench("prices total", (r) => (mod as any).__test?.findPrices?.(r.text));
