/**
 * Necessary conditions for a rubric pattern to match, read once from its source
 * and checked against a page's word index (`WordIndex`) before, or instead of, a
 * regex pass over the page.
 *
 * Most rubric patterns are `\b(?:webinars?|podcasts?|…)\b`: every match starts at
 * a word boundary with one of a few literal words. A page none of whose words
 * start with "webinar" or "podcast" cannot match (`mayStart`), and where some do,
 * the regex is tried only at those words (`test`). Across 27 rules' ~200 patterns
 * the regex passes are nearly all of the scorer's CPU on a long page, and most
 * patterns match few pages.
 *
 * Every condition is conservative: where a pattern's source cannot be read (a
 * lookbehind, a Unicode-mode pattern), there is none and the regex runs over the
 * whole text. So skipping never changes a result (the scorer's output is the same
 * to the character with or without it).
 */

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

// ------------------------------------------------------------------ where a match can start

/**
 * What a match must start with, read more closely than `startingWords` for the
 * scorer's word index (WordIndex): after `\b`, a whole word (`=per`), a word
 * beginning with a literal run (`encryption`, not cut to six characters) or with a
 * character of a class (`[1-5]`, `\d`); without `\b`, a literal (`#copyright`,
 * `#©`, `#(`) found anywhere, lower-cased. An optional group at the start
 * (`(?:built )?for`) contributes its own starts and those of what follows it.
 * Every match of the pattern starts at an offset one of these starts covers.
 * Null when unsure (the regex then runs over the whole text).
 */
export function matchStarts(pattern: RegExp): readonly string[] | null {
  return readPattern(pattern).startStrings;
}

/** What the scorer reads from a pattern's source once: cached per object, and per source and flags (a regex literal in a function is a new object per call). */
interface PatternReading {
  readonly startStrings: readonly string[] | null;
  readonly starts: readonly StartKey[] | null;
  readonly conditionStrings: ReadonlyArray<ReadonlyArray<readonly string[]>> | null;
  readonly condition: ReadonlyArray<ReadonlyArray<readonly StartKey[]>> | null;
  readonly literals: readonly string[] | null;
  /** The pattern, sticky, for attempts at one offset (made when first needed). */
  sticky?: RegExp;
}
const readings = new WeakMap<RegExp, PatternReading>();
const readingsBySource = new Map<string, PatternReading>();

export function readPattern(pattern: RegExp): PatternReading {
  let reading = readings.get(pattern);
  if (reading === undefined) {
    const flags = pattern.flags;
    const key = `${flags}/${pattern.source}`;
    reading = readingsBySource.get(key);
    if (reading === undefined) {
      const unicode = flags.includes("u") || flags.includes("v");
      const found = unicode || flags.includes("y") ? null : startsOfAlternatives(pattern.source, false);
      const startStrings = found === null ? null : [...new Set(found)];
      const conditionStrings =
        unicode || flags.includes("y") || flags.includes("s") ? null : conditionOfAlternatives(pattern.source);
      reading = {
        startStrings,
        starts: startStrings?.map(startKey) ?? null,
        conditionStrings,
        condition: conditionStrings?.map((required) => required.map((starts) => starts.map(startKey))) ?? null,
        literals: unicode ? null : literalsOfAlternatives(pattern.source),
      };
      // Patterns are the rules' constants; should some ever be built from data, the cache stays bounded.
      if (readingsBySource.size >= 10_000) readingsBySource.clear();
      readingsBySource.set(key, reading);
    }
    readings.set(pattern, reading);
  }
  return reading;
}

/** A start (see matchStarts), interned: its kind and text read once, and a number for per-text tables. */
export interface StartKey {
  readonly id: number;
  readonly key: string;
  /** 0: a whole word; 1: a word's beginning; 2: a literal anywhere in the text. */
  readonly kind: 0 | 1 | 2;
  readonly text: string;
}
const startKeys = new Map<string, StartKey>();
function startKey(key: string): StartKey {
  let interned = startKeys.get(key);
  if (!interned) {
    const first = key.charAt(0);
    interned = {
      id: startKeys.size,
      key,
      kind: first === "=" ? 0 : first === "#" ? 2 : 1,
      text: first === "=" || first === "#" ? key.slice(1) : key,
    };
    startKeys.set(key, interned);
  }
  return interned;
}

/**
 * Characters a literal start may be, besides ASCII letters and digits: none has a
 * case mapping, so "i" matches them only as themselves. (`\s`, `.` and the like
 * are classes, not literals; a space would match too often to help.)
 */
const PLAIN = /^[!"#%&',\-/:;<=>@`~©®™€£¥§—–“”‘’«»…•·×⌘]$/;
const ESCAPED = /^\\[!"#$%&'()*+,\-./:;<=>?@[\]^`{|}~]$/;

function startsOfAlternatives(source: string, boundary: boolean): string[] | null {
  const found: string[] = [];
  for (const alternative of splitTopLevel(source)) {
    const starts = startsOf(alternative, boundary);
    if (starts === null) return null;
    found.push(...starts);
  }
  return found;
}

/** The length of the quantifier at the start of `source` (`?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy), 0 if none. */
function quantifierLength(source: string): number {
  const match = /^(?:[?*+]|\{\d+(?:,\d*)?\})\??/.exec(source);
  return match ? match[0].length : 0;
}

const optionalNext = (source: string): boolean => /^(?:[?*]|\{0)/.test(source);

function startsOf(source: string, boundary: boolean): string[] | null {
  let rest = source;
  while (rest.startsWith("\\b")) {
    boundary = true;
    rest = rest.slice(2);
  }
  if (rest.startsWith("(")) {
    if (rest.startsWith("(?") && !rest.startsWith("(?:")) return null; // lookaround or named group
    const close = matchingParen(rest);
    if (close < 0) return null;
    const inner = startsOfAlternatives(rest.slice(rest.startsWith("(?:") ? 3 : 1, close), boundary);
    if (inner === null) return null;
    const after = rest.slice(close + 1);
    // A group that may be skipped: the match starts in it or in what follows it.
    if (optionalNext(after)) {
      const following = startsOf(after.slice(quantifierLength(after)), boundary);
      return following === null ? null : [...inner, ...following];
    }
    return inner;
  }
  // One character of a class: `[1-5]`, `\d`, `[—–"]`.
  const chars = rest.startsWith("\\d")
    ? "0123456789"
    : rest.startsWith("[")
      ? classChars(rest.slice(1, classEnd(rest)))
      : undefined;
  if (chars !== undefined) {
    const size = rest.startsWith("\\d") ? 2 : classEnd(rest) + 1;
    if (chars === null || chars === "" || optionalNext(rest.slice(size))) return null;
    const starts: string[] = [];
    for (const char of new Set(chars.toLowerCase())) {
      if (/[a-z0-9]/.test(char)) {
        if (!boundary) return null; // a letter or digit anywhere in a word
        starts.push(char);
      } else {
        starts.push(`#${char}`);
      }
    }
    return starts;
  }
  const literal = /^[A-Za-z0-9]+/.exec(rest)?.[0] ?? "";
  if (literal === "") {
    // A character that is not part of a word: the match starts where it occurs.
    const char = ESCAPED.test(rest.slice(0, 2)) ? rest.charAt(1) : PLAIN.test(rest.charAt(0)) ? rest.charAt(0) : "";
    if (char === "" || optionalNext(rest.slice(char === rest.charAt(0) ? 1 : 2))) return null;
    return [`#${char}`];
  }
  // A quantifier after the run makes its last character optional (`webinars?`) or repeats it.
  const after = rest.slice(literal.length);
  const next = after.charAt(0);
  const required = next === "?" || next === "*" || next === "{" ? literal.slice(0, -1) : literal;
  if (required === "") return null;
  // Without a boundary the run may sit in the middle of a word: found as text, not as a word's start.
  if (!boundary) return [`#${required.toLowerCase()}`];
  // Followed by a space or a boundary, the run is a whole word (`per (…)` needs "per", not "permission").
  const separator = next === " " ? 1 : after.startsWith("\\s") || after.startsWith("\\b") ? 2 : 0;
  const whole = required === literal && separator > 0 && !optionalNext(after.slice(separator));
  return [whole ? `=${required.toLowerCase()}` : required.toLowerCase()];
}

/** Index of the `]` closing the class that opens at 0, or -1. */
function classEnd(source: string): number {
  for (let i = 1; i < source.length; i += 1) {
    if (source[i] === "\\") i += 1;
    else if (source[i] === "]") return i;
  }
  return -1;
}

/**
 * The characters a class body (`1-5`, `—–~"”`) lists, when it is only ASCII letters
 * and digits (and ranges of them) or PLAIN characters (escaped or not); null otherwise
 * (negated, `\s`, other ranges …).
 */
function classChars(body: string): string | null {
  if (body.startsWith("^") || body === "") return null;
  let chars = "";
  for (let i = 0; i < body.length; i += 1) {
    let char = body[i]!;
    if (char === "\\") {
      const escaped = body.slice(i, i + 2);
      if (escaped === "\\d") {
        chars += "0123456789";
        i += 1;
        continue;
      }
      if (!ESCAPED.test(escaped)) return null;
      char = body[i + 1]!;
      i += 1;
    } else if (body[i + 1] === "-" && i + 2 < body.length) {
      const last = body[i + 2]!;
      const alnum = /^(?:[0-9]-[0-9]|[a-z]-[a-z]|[A-Z]-[A-Z])$/.test(`${char}-${last}`);
      if (!alnum || last < char) return null;
      for (let code = char.charCodeAt(0); code <= last.charCodeAt(0); code += 1) chars += String.fromCharCode(code);
      i += 2;
      continue;
    }
    if (!/^[A-Za-z0-9]$/.test(char) && !PLAIN.test(char)) return null;
    chars += char;
  }
  return chars;
}

/**
 * A necessary condition for a sentence-anchored pattern (`^(?=.*\bx)(?=.*\by)`) to
 * match a line: for some top-level alternative, every listed set has a start that
 * some word of the text begins with. An alternative that starts at a word reads as
 * `matchStarts` does; one that starts with `^` requires the starts of the patterns
 * its leading lookaheads (`(?=.*X)`) or a leading `.*X` look for. Null when unsure.
 */
export function lineCondition(pattern: RegExp): ReadonlyArray<ReadonlyArray<readonly string[]>> | null {
  return readPattern(pattern).conditionStrings;
}

function conditionOfAlternatives(source: string): Array<Array<readonly string[]>> | null {
  const found: Array<Array<readonly string[]>> = [];
  for (const alternative of splitTopLevel(source)) {
    const conditions = conditionOf(alternative);
    if (conditions === null) return null;
    found.push(...conditions);
  }
  return found;
}

/** The alternatives (each a list of required start sets) an alternative's match needs, or null. */
function conditionOf(source: string): Array<Array<readonly string[]>> | null {
  if (!source.startsWith("^")) {
    const starts = startsOf(source, false);
    return starts === null ? null : [[starts]];
  }
  let rest = source.slice(1);
  const required: Array<readonly string[]> = [];
  // Lookaheads right after ^: each (?=.*X) needs X somewhere on the line.
  while (rest.startsWith("(?=")) {
    const close = matchingParen(rest);
    if (close < 0) return null;
    const inner = rest.slice(3, close);
    const seek = /^\.\*\??/.exec(inner)?.[0];
    if (seek !== undefined) {
      const starts = startsOfAlternatives(inner.slice(seek.length), false);
      if (starts !== null) required.push(starts);
    }
    rest = rest.slice(close + 1);
  }
  if (rest.startsWith("(?:")) {
    // ^(?:A|B): each of A and B as if it followed ^ (a group that must be matched).
    const close = matchingParen(rest);
    if (close < 0 || quantifierLength(rest.slice(close + 1)) > 0) return required.length > 0 ? [required] : null;
    const inner = splitTopLevel(rest.slice(3, close)).map((alternative) => conditionOf(`^${alternative}`));
    if (inner.some((conditions) => conditions === null)) return required.length > 0 ? [required] : null;
    return (inner as Array<Array<Array<readonly string[]>>>).flat().map((conditions) => [...required, ...conditions]);
  }
  const seek = /^\.\*\??/.exec(rest)?.[0];
  if (seek !== undefined) {
    const starts = startsOfAlternatives(rest.slice(seek.length), false);
    if (starts !== null) required.push(starts);
  }
  return required.length > 0 ? [required] : null;
}

/**
 * A text's words (runs of [A-Za-z0-9_], as JavaScript's ASCII `\b` reads them),
 * lower-cased, sorted, each with the offsets it starts at: answers the prefilter's
 * questions and says where a match of a pattern can begin (see matchStarts).
 */
export class WordIndex {
  /** Distinct words, lower-cased, sorted. */
  private readonly words: string[];
  /** Where each word (by its place in `words`) starts in the text: offsets[from[k]] … offsets[from[k + 1] - 1]. */
  private readonly from: Int32Array;
  private readonly offsets: Int32Array;
  /** The text lower-cased (lazily), for `#` starts and requiredLiterals. */
  private lower: string | undefined;
  /** mayContain's answers, per literal. */
  private readonly literals = new Map<string, boolean>();
  /** Per start (see matchStarts), by its number: the words it covers, or where its literal is, and how many offsets in all. */
  private readonly byStart: Array<Start | undefined> = [];

  constructor(private readonly text: string) {
    const { words, from, offsets } = indexWords(text);
    this.words = words;
    this.from = from;
    this.offsets = offsets;
  }

  /** Whether some word is `key` (`=word`) or begins with it (`prefix`); `#literal` (see matchStarts): whether the lower-cased text has it. */
  has(key: string): boolean {
    return this.start(startKey(key)).count > 0;
  }

  /**
   * `pattern.test(text)` (from offset 0), with a sticky copy of the pattern tried
   * only at the offsets its starts (matchStarts) cover: the regex engine's attempts
   * at every other offset would fail, so the answer is the same. Where the starts
   * cover many offsets, one ordinary pass is cheaper and is what runs.
   */
  test(pattern: RegExp): boolean {
    const reading = readPattern(pattern);
    const starts = pattern.global ? null : reading.starts;
    if (starts !== null) {
      const limit = this.text.length * OFFSETS_PER_CHAR;
      let count = 0;
      for (const key of starts) {
        count += this.start(key).count;
        if (count > limit) break;
      }
      if (count === 0) return false;
      if (count <= limit) {
        const sticky = (reading.sticky ??= new RegExp(pattern.source, `${pattern.flags}y`));
        const text = this.text;
        for (const key of starts) {
          const start = this.start(key);
          if (start.count === 0) continue;
          if (start.at) {
            for (const offset of start.at) {
              sticky.lastIndex = offset;
              if (sticky.test(text)) return true;
            }
            continue;
          }
          for (let at = this.from[start.first]!, end = this.from[start.last]!; at < end; at += 1) {
            sticky.lastIndex = this.offsets[at]!;
            if (sticky.test(text)) return true;
          }
        }
        return false;
      }
    }
    if (reading.literals !== null && !this.mayContain(reading.literals)) return false;
    pattern.lastIndex = 0;
    return pattern.test(this.text);
  }

  /**
   * False when no match of `pattern` can start in the text: none of the starts it
   * needs (matchStarts) is there. True when one is, or when the pattern's start
   * cannot be read. A cheap necessary condition: skipping on false changes no result.
   */
  mayStart(pattern: RegExp): boolean {
    const starts = readPattern(pattern).starts;
    return starts === null || starts.some((key) => this.start(key).count > 0);
  }

  /** Whether some set of every listed alternative has a start some word begins with (see lineCondition). */
  satisfies(pattern: RegExp): boolean {
    const condition = readPattern(pattern).condition;
    return (
      condition === null ||
      condition.some((required) => required.every((starts) => starts.some((key) => this.start(key).count > 0)))
    );
  }

  /** What a start covers: a whole word, the words it begins (both a range of `words`), or where the lower-cased text has its literal. */
  private start(key: StartKey): Start {
    let found = this.byStart[key.id];
    if (found === undefined) {
      found = NO_START;
      if (key.kind === 2) {
        const lower = this.lowerText();
        if (lower === undefined) {
          found = UNKNOWN_START;
        } else {
          const literal = key.text;
          let at = lower.indexOf(literal);
          if (at >= 0) {
            const list: number[] = [];
            for (; at >= 0; at = lower.indexOf(literal, at + 1)) list.push(at);
            found = { first: 0, last: 0, at: list, count: list.length };
          }
        }
      } else {
        const first = this.lowerBound(key.text);
        let last = first;
        if (key.kind === 0) {
          if (first < this.words.length && this.words[first] === key.text) last = first + 1;
        } else {
          while (last < this.words.length && this.words[last]!.startsWith(key.text)) last += 1;
        }
        if (last > first) found = { first, last, at: undefined, count: this.from[last]! - this.from[first]! };
      }
      this.byStart[key.id] = found;
    }
    return found;
  }

  /**
   * False when the lower-cased text contains none of these (see requiredLiterals);
   * true when it may. Judged from the distinct words where a literal has a word in
   * it (`/docs` needs a word beginning "docs"), which is cheaper than searching the
   * text: a page or a list of links repeats its words many times.
   */
  mayContain(literals: readonly string[]): boolean {
    for (const literal of literals) if (this.mayContainOne(literal)) return true;
    return false;
  }

  private mayContainOne(literal: string): boolean {
    let answer = this.literals.get(literal);
    if (answer === undefined) {
      const { kind, run } = literalClue(literal);
      if (kind === "word") answer = this.start(startKey(`=${run}`)).count > 0;
      else if (kind === "prefix") answer = this.start(startKey(run)).count > 0;
      else if (kind === "suffix") answer = this.words.some((word) => word.endsWith(run));
      else if (kind === "infix") answer = this.words.some((word) => word.includes(run));
      else answer = (this.lower ??= this.text.toLowerCase()).includes(literal);
      this.literals.set(literal, answer);
    }
    return answer;
  }

  /** The text lower-cased, where offsets in it are offsets in the text (undefined when lower-casing changed the length). */
  private lowerText(): string | undefined {
    this.lower ??= this.text.toLowerCase();
    return this.lower.length === this.text.length ? this.lower : undefined;
  }

  private lowerBound(key: string): number {
    let low = 0;
    let high = this.words.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.words[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * Past this many candidate offsets per character of text, one regex pass over the
 * whole text is cheaper than a sticky attempt at each (either gives the same answer).
 */
const OFFSETS_PER_CHAR = 1 / 24;

interface Start {
  /** The range of words covered (first inclusive, last exclusive), for a word or prefix. */
  readonly first: number;
  readonly last: number;
  /** The offsets of a literal. */
  readonly at: readonly number[] | undefined;
  readonly count: number;
}
const NO_START: Start = { first: 0, last: 0, at: undefined, count: 0 };
/** Offsets not known (lower-casing changed the text's length): counts as too many to try one by one. */
const UNKNOWN_START: Start = { first: 0, last: 0, at: undefined, count: Infinity };

/**
 * A text's distinct words, lower-cased and sorted, with the offsets each starts at
 * (grouped by word in `offsets`, `from[k]` to `from[k + 1]`). One pass over the
 * characters: each word is hashed as it is read and found in an open-addressing
 * table by comparing it with the word's first occurrence, so only a word not seen
 * before is cut out of the text (most words of a page repeat).
 */
/** Scratch space for indexWords (the word and offset of each occurrence), reused from text to text. */
let scratchWord = new Int32Array(4096);
let scratchAt = new Int32Array(4096);

function indexWords(text: string): { words: string[]; from: Int32Array; offsets: Int32Array } {
  // One pass over the characters: each word is hashed as it is read and found in an
  // open-addressing table by comparing it with the word's first occurrence, so only a
  // word not seen before is cut out of the text (most words of a page repeat).
  const length = text.length;
  const most = (length >> 1) + 1;
  // (A text too long to keep scratch space for gets its own.)
  const keep = most <= 1 << 18;
  if (keep && scratchWord.length < most) {
    scratchWord = new Int32Array(most);
    scratchAt = new Int32Array(most);
  }
  const occurrenceWord = keep ? scratchWord : new Int32Array(most);
  const occurrenceAt = keep ? scratchAt : new Int32Array(most);
  let occurrences = 0;
  const firstAt: number[] = [];
  const size: number[] = [];
  const hashes: number[] = [];
  const counts: number[] = [];
  let capacity = 256;
  let table = new Int32Array(capacity); // word number + 1, 0 for empty
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    if (!isWordCode(code)) {
      i += 1;
      continue;
    }
    const start = i;
    let hash = 0x811c9dc5;
    do {
      hash = Math.imul(hash ^ (code >= 65 && code <= 90 ? code + 32 : code), 0x01000193);
      i += 1;
    } while (i < length && isWordCode((code = text.charCodeAt(i))));
    const wordSize = i - start;
    let slot = hash & (capacity - 1);
    let word = -1;
    for (let probe = table[slot]!; probe !== 0; probe = table[slot]!) {
      const candidate = probe - 1;
      if (
        hashes[candidate] === hash &&
        size[candidate] === wordSize &&
        sameText(text, firstAt[candidate]!, start, wordSize)
      ) {
        word = candidate;
        break;
      }
      slot = (slot + 1) & (capacity - 1);
    }
    if (word < 0) {
      word = firstAt.length;
      firstAt.push(start);
      size.push(wordSize);
      hashes.push(hash);
      counts.push(0);
      table[slot] = word + 1;
      if (firstAt.length * 2 > capacity) {
        capacity *= 2;
        table = new Int32Array(capacity);
        for (let entry = 0; entry < firstAt.length; entry += 1) {
          let at = hashes[entry]! & (capacity - 1);
          while (table[at] !== 0) at = (at + 1) & (capacity - 1);
          table[at] = entry + 1;
        }
      }
    }
    counts[word] = counts[word]! + 1;
    occurrenceWord[occurrences] = word;
    occurrenceAt[occurrences] = start;
    occurrences += 1;
  }
  // The distinct words sorted, and each one's offsets together, in text order.
  const distinct = firstAt.map((at, word) => text.slice(at, at + size[word]!).toLowerCase());
  const order = distinct
    .map((_, word) => word)
    .sort((a, b) => (distinct[a]! < distinct[b]! ? -1 : distinct[a]! > distinct[b]! ? 1 : 0));
  const words = order.map((word) => distinct[word]!);
  const rank = new Int32Array(order.length);
  const from = new Int32Array(order.length + 1);
  order.forEach((word, place) => {
    rank[word] = place;
    from[place + 1] = from[place]! + counts[word]!;
  });
  const next = from.slice(0, order.length);
  const offsets = new Int32Array(occurrences);
  for (let occurrence = 0; occurrence < occurrences; occurrence += 1) {
    const place = rank[occurrenceWord[occurrence]!]!;
    offsets[next[place]!] = occurrenceAt[occurrence]!;
    next[place] = next[place]! + 1;
  }
  return { words, from, offsets };
}

/** Whether the text's `size` characters at `a` and at `b` are the same word, ASCII letters compared without case. */
function sameText(text: string, a: number, b: number, size: number): boolean {
  for (let i = 0; i < size; i += 1) {
    const x = text.charCodeAt(a + i);
    const y = text.charCodeAt(b + i);
    if (x !== y && (x >= 65 && x <= 90 ? x + 32 : x) !== (y >= 65 && y <= 90 ? y + 32 : y)) return false;
  }
  return true;
}

function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

// ------------------------------------------------------------------ text a match must contain

/**
 * Literal strings, lower-cased, one of which every match of `pattern` contains
 * (`/\/(?:docs|documentation)\b/` → "/docs", "/documentation"): when a text,
 * lower-cased, contains none of them, the pattern cannot match it. For each
 * top-level alternative the most telling run of literal text is chosen; null when
 * some alternative has none.
 *
 * Lower-casing keeps this sound: with the "i" flag an ASCII letter only matches
 * ASCII letters, and only characters without case (ASCII punctuation, PLAIN) are
 * taken as literals besides ASCII letters and digits. Zero-width parts (`\b`, `^`,
 * `$`, lookarounds) do not interrupt a run: they consume nothing.
 */
export function requiredLiterals(pattern: RegExp): readonly string[] | null {
  return readPattern(pattern).literals;
}

function literalsOfAlternatives(source: string): string[] | null {
  const found = new Set<string>();
  for (const alternative of splitTopLevel(source)) {
    const { runs } = scanSequence(alternative);
    let best: readonly string[] | undefined;
    for (const run of runs) {
      if (!best || shortest(run) > shortest(best) || (shortest(run) === shortest(best) && run.length < best.length))
        best = run;
    }
    if (!best) return null;
    for (const literal of best) found.add(literal);
  }
  return [...found];
}

const shortest = (run: readonly string[]): number => Math.min(...run.map((literal) => literal.length));

/** Cross products of literal sets stop growing past this many strings. */
const MAX_RUN = 64;
/** ASCII that stands for itself outside a class (not a regex operator), besides letters and digits. */
const ASCII_LITERAL = /^[ !"#%&',\-/:;<=>@_`~]$/;

interface Sequence {
  /** Sets of strings, each set being text one of whose strings every match contains. */
  readonly runs: ReadonlyArray<readonly string[]>;
  /** The strings a match starts with ([""] when unknown). */
  readonly prefix: readonly string[];
  /** The strings a match is, when it is one of a few literals (zero-width parts aside). */
  readonly whole: readonly string[] | undefined;
}

/** Reads one alternative (no top-level `|`) item by item; anything not understood ends the current run. */
function scanSequence(source: string): Sequence {
  const runs: Array<readonly string[]> = [];
  let run: string[] = [""];
  let prefix: readonly string[] | undefined;
  let broken = false;
  const endRun = () => {
    prefix ??= run;
    broken = true;
    if (run.every((literal) => literal.length > 0)) runs.push(run);
    run = [""];
  };
  const append = (strings: readonly string[]): boolean => {
    if (run.length * strings.length > MAX_RUN) return false;
    run = run.flatMap((head) => strings.map((tail) => head + tail));
    return true;
  };
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    let item: readonly string[] | "unknown" | "zero" = "unknown";
    let whole = false; // a group that is exactly one of its literals
    let size = 1;
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      size = escapeLength(source, i);
      if (next === "b" || next === "B") item = "zero";
      else if (ESCAPED.test(`\\${next}`)) {
        item = [next];
        whole = true;
      }
    } else if (char === "[") {
      const end = classEnd(source.slice(i));
      if (end < 0) return { runs, prefix: [""], whole: undefined };
      size = end + 1;
    } else if (char === "(") {
      const close = matchingParen(source.slice(i));
      if (close < 0) return { runs, prefix: [""], whole: undefined };
      size = close + 1;
      const body = source.slice(i, i + close + 1);
      if (/^\(\?<?[=!]/.test(body)) {
        item = "zero";
      } else if (!body.startsWith("(?") || body.startsWith("(?:")) {
        const inner = splitTopLevel(body.slice(body.startsWith("(?:") ? 3 : 1, -1)).map(scanSequence);
        if (inner.every((sequence) => sequence.whole !== undefined)) {
          item = [...new Set(inner.flatMap((sequence) => sequence.whole!))];
          whole = true;
        } else {
          item = [...new Set(inner.flatMap((sequence) => sequence.prefix))];
        }
      }
    } else if (char === "^" || char === "$") {
      item = "zero";
    } else if (/^[A-Za-z0-9]$/.test(char) || ASCII_LITERAL.test(char) || PLAIN.test(char)) {
      item = [char.toLowerCase()];
      whole = true;
    }
    i += size;
    const quantifier = quantifierLength(source.slice(i));
    const optional = quantifier > 0 && optionalNext(source.slice(i));
    const repeated = quantifier > 0 && !optional;
    i += quantifier;
    if (item === "zero") continue;
    if (item === "unknown" || optional) {
      endRun();
      continue;
    }
    // Text the item starts with (or is): the run goes on through it when it is the whole item and not repeated.
    if (item.some((literal) => literal === "")) {
      endRun();
      continue;
    }
    if (!append(item)) {
      endRun();
      run = [...item];
    }
    if (!whole || repeated) endRun();
  }
  const last = run;
  const pure = !broken;
  endRun();
  return { runs, prefix: prefix ?? [""], whole: pure ? last : undefined };
}

/**
 * What a literal's presence says about the words of a text: a run of word
 * characters inside it with a non-word character on each side is a whole word
 * (`=`); one at its end after a non-word character begins a word (`prefix`); one
 * at its start before a non-word character ends a word (`suffix`); a literal that
 * is all word characters lies inside a word (`infix`). The longest run is used,
 * whole words first; a literal with no word character is searched for as text.
 */
function literalClue(literal: string): { kind: "word" | "prefix" | "suffix" | "infix" | "text"; run: string } {
  let clue = clues.get(literal);
  if (!clue) {
    const rank = { word: 4, prefix: 3, suffix: 2, infix: 1, text: 0 };
    clue = { kind: "text", run: "" };
    for (const match of literal.matchAll(/[a-z0-9_]+/g)) {
      const start = match.index;
      const end = start + match[0].length;
      const kind =
        start > 0 && end < literal.length ? "word" : start > 0 ? "prefix" : end < literal.length ? "suffix" : "infix";
      if (rank[kind] > rank[clue.kind] || (kind === clue.kind && match[0].length > clue.run.length))
        clue = { kind, run: match[0] };
    }
    clues.set(literal, clue);
  }
  return clue;
}
const clues = new Map<string, { kind: "word" | "prefix" | "suffix" | "infix" | "text"; run: string }>();

/** Characters an escape at `i` takes: `\x41`, `\u0041`, `\u{41}`, `\cA`, `\k<name>`, `\12`, or two. */
function escapeLength(source: string, i: number): number {
  const next = source[i + 1] ?? "";
  if (next === "x") return 4;
  if (next === "u") return source[i + 2] === "{" ? source.indexOf("}", i) - i + 1 : 6;
  if (next === "c") return 3;
  if (next === "k" && source[i + 2] === "<") return source.indexOf(">", i) - i + 1;
  if (/[0-9]/.test(next)) return 1 + (/^[0-9]+/.exec(source.slice(i + 1))?.[0].length ?? 1);
  return 2;
}
