import type { FoundPrice } from "./crawl.types.js";

/**
 * Dates and prices read out of a page's visible text: the facts the scorer dates
 * cadences with and reads pricing from.
 */

// ---------------------------------------------------------------- dates

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const DATE_FORMS = new RegExp(
  [
    "\\b(\\d{4})-(\\d{2})-(\\d{2})(?![\\d])", // 2025-03-05
    // March 5, 2025 · October 21 - 2021 (a news card's "day - year")
    `\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+|\\s*[-–]\\s*)(\\d{4})\\b`,
    `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})\\b`, // 5 March 2025 · 24 Nov, 2021
    // 2017.07.17 · 2017/07/17: one separator throughout, and not a longer version number ("2017.07.17.1")
    "\\b(\\d{4})([./])(\\d{2})\\11(\\d{2})(?![\\d]|\\.\\d)",
  ].join("|"),
  "gi",
);

export function findDates(text: string, timeValues: readonly string[]): string[] {
  const found = new Set<string>();
  const lastYear = new Date().getUTCFullYear() + 1;
  const add = (year: number, month: number, day: number) => addDate(found, lastYear, year, month, day);
  for (const value of timeValues) {
    const iso = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(value);
    if (iso) add(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  }
  DATE_FORMS.lastIndex = 0;
  for (let m = DATE_FORMS.exec(text); m; m = DATE_FORMS.exec(text)) {
    if (m[1] !== undefined) add(Number(m[1]), Number(m[2]), Number(m[3]));
    else if (m[4] !== undefined) add(Number(m[6]), monthNumber(m[4]), Number(m[5]));
    else if (m[7] !== undefined) add(Number(m[9]), monthNumber(m[8]), Number(m[7]));
    else add(Number(m[10]), Number(m[12]), Number(m[13]));
  }
  return [...found].sort();
}

const monthNumber = (name: string | undefined): number => MONTHS[(name ?? "").slice(0, 3).toLowerCase()] ?? 0;

/** Days in each month of a non-leap year; February of leap years is checked apart. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function addDate(found: Set<string>, lastYear: number, year: number, month: number, day: number): void {
  if (year < 1995 || year > lastYear || month < 1 || month > 12 || day < 1) return;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (DAYS_IN_MONTH[month - 1] ?? 0) + (leap ? 1 : 0)) return; // no 31 April, no 29 February 2025
  found.add(`${year}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`);
}

// ---------------------------------------------------------------- prices

const MAX_PRICES = 50;
const SNIPPET = 80;
const SYMBOLS: Record<string, string> = {
  US$: "USD",
  CA$: "CAD",
  C$: "CAD",
  AU$: "AUD",
  A$: "AUD",
  NZ$: "NZD",
  HK$: "HKD",
  S$: "SGD",
  R$: "BRL",
  $: "USD",
  "€": "EUR",
  "£": "GBP",
  "¥": "JPY",
  "₹": "INR",
  "₩": "KRW",
  "₽": "RUB",
  "₺": "TRY",
  "₪": "ILS",
  "₱": "PHP",
  zł: "PLN",
};
const CODES = "USD|EUR|GBP|JPY|INR|CAD|AUD|NZD|CHF|CNY|HKD|SGD|SEK|NOK|DKK|PLN|CZK|BRL|MXN|ZAR|KRW|RUB|TRY|ILS|AED|PHP";
const SYMBOL = "US\\$|CA\\$|C\\$|AU\\$|A\\$|NZ\\$|HK\\$|S\\$|R\\$|\\$|€|£|¥|₹|₩|₽|₺|₪|₱";
// 1,299.99 · 1.299,99 · 1299 · 49.5 — thousands groups, then an optional decimal part.
const AMOUNT = "\\d{1,3}(?:[,.]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?";
/**
 * Where an amount ends: not in a digit, a decimal part or a word ("$1.9B", "$5M" are figures, not prices), except a billing
 * period or unit written against it when markup drops the space ("$15Per Month" from "$<b>15</b>Per Month").
 */
const PRICE_END = "(?![.,]\\d)(?=[Pp]er\\b|[Mm]o(?:nth)?\\b|[Yy](?:ea)?r\\b|[Uu]ser|[Ss]eat|[^\\d\\p{L}]|$)";
const PRICE_FORMS = new RegExp(
  [
    `(${SYMBOL})\\s?(${AMOUNT})${PRICE_END}`, // $49, €29, ¥1000, $15Per Month
    `\\b(${CODES})\\s?(${AMOUNT})${PRICE_END}`, // USD 49
    `(?<![\\d.,\\p{L}])(${AMOUNT})\\s?(€|£|¥|₹|zł|${CODES})(?![\\p{L}])`, // 29 €, 49 USD
  ].join("|"),
  "gu",
);

export function findPrices(text: string): FoundPrice[] {
  const prices: FoundPrice[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(PRICE_FORMS)) {
    const [symbol, written] = m[1] !== undefined ? [m[1], m[2]] : m[3] !== undefined ? [m[3], m[4]] : [m[6], m[5]];
    const currency = SYMBOLS[symbol ?? ""] ?? symbol ?? "";
    const amount = parseAmount(written ?? "");
    if (!Number.isFinite(amount)) continue;
    const snippet = snippetAround(text, m.index, m[0].length);
    const key = `${currency} ${amount} ${snippet}`;
    if (seen.has(key)) continue;
    seen.add(key);
    prices.push({ currency, amount, text: snippet });
    if (prices.length >= MAX_PRICES) break;
  }
  return prices;
}

/** "1,299.99" → 1299.99; "1.299,99" → 1299.99; "29,99" → 29.99; "1,299" → 1299. */
function parseAmount(written: string): number {
  const decimal = /[.,](\d{1,2})$/.exec(written);
  const whole = (decimal ? written.slice(0, decimal.index) : written).replace(/[.,]/g, "");
  return Number(decimal ? `${whole}.${decimal[1]}` : whole);
}

/** The words around a match on its own line, at most 80 characters, the match kept whole. */
function snippetAround(text: string, index: number, length: number): string {
  const matchEnd = index + length;
  const lineStart = text.lastIndexOf("\n", index) + 1;
  const newline = text.indexOf("\n", matchEnd);
  const lineEnd = newline === -1 ? text.length : newline;
  const room = Math.max(0, SNIPPET - length);
  let after = Math.min(lineEnd - matchEnd, Math.ceil(room / 2));
  const before = Math.min(index - lineStart, room - after);
  after = Math.min(lineEnd - matchEnd, room - before);
  let start = index - before;
  let end = matchEnd + after;
  // Do not start or end on half a word.
  if (start > lineStart && text[start - 1] !== " ") start = Math.min(index, text.indexOf(" ", start) + 1 || index);
  if (end < lineEnd && text[end] !== " ") end = Math.max(matchEnd, text.lastIndexOf(" ", end));
  return text.slice(start, end).trim().slice(0, SNIPPET);
}
