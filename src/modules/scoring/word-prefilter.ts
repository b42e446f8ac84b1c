/**
 * A necessary condition for a rubric pattern to match, checked against a page's
 * words before the regex scans the page.
 *
 * Most rubric patterns are `\b(?:webinars?|podcasts?|…)\b`: every match starts at
 * a word boundary with one of a few literal words. A page none of whose words
 * start with "web" or "pod" cannot match, and saying so from a set of word
 * prefixes costs one lookup per alternative instead of a regex pass over 20k
 * characters. Across 27 rules' ~200 patterns that pass is nearly all of the
 * scorer's CPU on a long page, and most patterns match few pages.
 *
 * The condition is conservative: where a pattern's start cannot be read as
 * "a word boundary, then a literal" (a lookahead, `^`, `\d`, an optional group),
 * there is no prefilter and the regex always runs. So skipping never changes a
 * result (the scorer's output is the same to the character with or without it).
 */

/** A text's words, lower-cased: whole (`=word`) and by their first one to six characters. */
export type WordPrefixes = ReadonlySet<string>;

const PREFIX = 6;

export function wordPrefixes(text: string): WordPrefixes {
  // JavaScript's \b is ASCII: a word is a run of [A-Za-z0-9_]. (Split before lower-casing:
  // a few non-ASCII letters lower-case to ASCII ones and would join words the regex keeps apart.)
  const words = new Set<string>(text.split(/[^A-Za-z0-9_]+/));
  const prefixes = new Set<string>();
  for (const raw of words) {
    if (raw === "") continue;
    const word = raw.toLowerCase();
    prefixes.add(`=${word}`);
    for (let length = Math.min(PREFIX, word.length); length >= 1; length -= 1) prefixes.add(word.slice(0, length));
  }
  return prefixes;
}

const cache = new WeakMap<RegExp, readonly string[] | null>();

/** Whether `pattern` can match a text with these words (true when unsure). */
export function mayMatch(pattern: RegExp, prefixes: WordPrefixes): boolean {
  let starts = cache.get(pattern);
  if (starts === undefined) {
    starts = startingWords(pattern);
    cache.set(pattern, starts);
  }
  return starts === null || starts.some((start) => prefixes.has(start));
}

/**
 * What every match must start with: a whole word (`=per`) or a word's first
 * characters (`encryp`), lower-cased; null when the pattern's start cannot be
 * read that way.
 */
export function startingWords(pattern: RegExp): readonly string[] | null {
  if (pattern.flags.includes("u") || pattern.flags.includes("v")) return null; // Unicode case folding: stay out of it
  const found = alternativesStart(pattern.source, false);
  return found === null ? null : [...new Set(found)];
}

function alternativesStart(source: string, boundary: boolean): string[] | null {
  const found: string[] = [];
  for (const alternative of splitTopLevel(source)) {
    const starts = alternativeStart(alternative, boundary);
    if (starts === null) return null;
    found.push(...starts);
  }
  return found;
}

function alternativeStart(source: string, boundary: boolean): string[] | null {
  let rest = source;
  while (rest.startsWith("\\b")) {
    boundary = true;
    rest = rest.slice(2);
  }
  if (rest.startsWith("(")) {
    if (rest.startsWith("(?") && !rest.startsWith("(?:")) return null; // lookaround or named group
    const close = matchingParen(rest);
    if (close < 0) return null;
    if (/^[?*]|^\{0/.test(rest.slice(close + 1))) return null; // an optional group: the match may start after it
    const inner = rest.slice(rest.startsWith("(?:") ? 3 : 1, close);
    return alternativesStart(inner, boundary);
  }
  if (!boundary) return null; // the match may start in the middle of a word
  const literal = /^[A-Za-z0-9]+/.exec(rest)?.[0] ?? "";
  if (literal === "") return null;
  // A quantifier after the run makes its last character optional (`webinars?`).
  const after = rest.slice(literal.length);
  const next = after.charAt(0);
  const required = next === "?" || next === "*" || next === "{" ? literal.slice(0, -1) : literal;
  if (required === "") return null;
  // Followed by a space or a boundary, the run is a whole word (`per (…)` needs "per", not "permission").
  // (Not when the space itself is optional: `SOC ?2` matches "SOC2".)
  const separator = next === " " ? 1 : after.startsWith("\\s") || after.startsWith("\\b") ? 2 : 0;
  const optional = /^[?*]|^\{0/.test(after.slice(separator));
  const whole = required === literal && separator > 0 && !optional;
  return [whole ? `=${required.toLowerCase()}` : required.slice(0, PREFIX).toLowerCase()];
}

/**
 * Visits a regex source's characters outside character classes and escapes, in
 * order, until `visit` returns true; answers the index it stopped at, or -1.
 */
export function scanSource(source: string, visit: (char: string, index: number) => boolean | void): number {
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]!;
    if (char === "\\") i += 1;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (visit(char, i) === true) return i;
  }
  return -1;
}

/** Splits at `|` outside groups and character classes. */
function splitTopLevel(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  scanSource(source, (char, i) => {
    if (char === "(") depth += 1;
    else if (char === ")") depth -= 1;
    else if (char === "|" && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  });
  parts.push(source.slice(start));
  return parts;
}

/** Index of the `)` closing the group that opens at 0, or -1. */
function matchingParen(source: string): number {
  let depth = 0;
  return scanSource(source, (char) => {
    if (char === "(") depth += 1;
    else if (char === ")") {
      depth -= 1;
      return depth === 0;
    }
    return false;
  });
}
