// Seeded random text for the scoring equivalence check and the word-index tests:
// sentences stitched from the rubric patterns' own words, odd characters and casing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");

/** The regex literals of the scoring and crawl code (sources, flags), sorted by file. */
export function rubricPatterns(): RegExp[] {
  const patterns: RegExp[] = [];
  for (const file of sourceFiles()) {
    for (const match of readFileSync(file, "utf8").matchAll(LITERAL)) {
      try {
        patterns.push(new RegExp(match[1]!, match[2]!));
      } catch {
        // not a regex literal (a division, a path in a comment)
      }
    }
  }
  return patterns;
}

const LITERAL = /\/((?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])+)\/([dgimsuyv]*)/g;

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith(".ts")) files.push(join(dir, entry.name));
    }
  };
  walk(join(root, "src/modules/scoring"));
  walk(join(root, "src/modules/crawl"));
  return files.sort();
}

/** Phrases from the scoring code's regex literals, regex syntax stripped: text that nearly matches, or matches, the rubric. */
export function rubricPhrases(): string[] {
  const phrases = new Set<string>();
  for (const file of sourceFiles()) {
    for (const match of readFileSync(file, "utf8").matchAll(LITERAL)) {
      const source = match[1]!;
      try {
        new RegExp(source);
      } catch {
        continue;
      }
      for (const part of source.split("|")) {
        const phrase = part
          .replace(/\\d(\{\d+(,\d*)?\}|[+*?])?/g, () => "42")
          .replace(/\\s[+*?]?(\{\d+(,\d*)?\})?/g, " ")
          .replace(/\\w[+*]?(\{\d+(,\d*)?\})?/g, "foo")
          .replace(/\[\^?([^\]]*)\]([+*?]|\{\d+(,\d*)?\})?/g, (_, chars: string) =>
            chars.includes(" ")
              ? " "
              : chars.includes("-") && !chars.startsWith("-")
                ? (chars[0] ?? "")
                : chars.includes("\\/")
                  ? "/"
                  : (chars[0] ?? ""),
          )
          .replace(/\(\?(?:<?[=!]|:)?/g, "")
          .replace(/\\b|\\B|[()^$]/g, "")
          .replace(/(\w)\?/g, "$1")
          .replace(/\{\d+(,\d*)?\}|[?*+]/g, "")
          .replace(/\\(.)/g, "$1")
          .replace(/\s+/g, " ")
          .trim();
        if (phrase.length >= 2 && phrase.length <= 60) phrases.add(phrase);
      }
    }
  }
  return [...phrases].sort();
}

const SPECIALS = [
  "n't",
  "never",
  "not",
  "no",
  "we don't train on your data",
  "We never train models on your content.",
  "zero data retention",
  "opt-out of model training",
  "© 2019 Acme",
  "(c) 2014–2021",
  "Copyright 2011-2025",
  "founded in 2012",
  "since 1998",
  "TODO",
  "FIXME:",
  "(TODO)",
  "Lorem ipsum dolor sit amet",
  "Your headline here",
  "coming soon",
  "“It changed everything.” — Jane Doe, CEO at Foo",
  "Jane Doe, VP of Engineering",
  "- Bob Stone, Head of Data",
  "Maria García, co-founder",
  "Acme vs Zendesk",
  "alternatives to Intercom",
  "99.99% uptime",
  "uptime SLA",
  "SOC 2 Type II",
  "ISO 27001",
  "HIPAA-compliant",
  "GDPR",
  "$49/mo",
  "$1,200 per year",
  "per seat",
  "€19 per user per month",
  "10x faster",
  "38%",
  "3× faster",
  "20 hours saved",
  "4.8/5 on G2",
  "4.7 stars",
  "state of the art",
  "State of DevOps 2024",
  "10,000+ customers",
  "2M users",
  "120ms p99",
  "p95",
  "v2.3.1",
  "API v1",
  "⌘K",
  "Ctrl+K",
  "café",
  "naïve",
  "straße",
  "İstanbul",
  "ſecure",
  "\u212Aelvin",
  "résumé",
  "東京",
  "🚀",
  "\u00a0",
  "\t",
  "\r",
  "\u2028",
  "...",
  "—",
  "–",
  "2021-03-04",
  "March 3, 2024",
  "GPT-4o",
  "Claude",
  "Llama 3",
  "LLMs",
  "A.I.",
  "AI-powered",
  "AI agents",
  "machine learning",
  "RAG",
  "embeddings",
  "choose your model",
  "pick any LLM",
  "fallback to another provider when routing models",
  "download the SOC 2 report",
  "request our ISO certificate",
];

const FILLER =
  "the a of to and with for in on your our every each across without while because which that this those team product work customers plan data page help".split(
    " ",
  );

export function fuzzText(random: () => number, phrases: readonly string[], length: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const casing = (text: string) => {
    const roll = random();
    return roll < 0.1 ? text.toUpperCase() : roll < 0.3 ? text.replace(/\b\w/g, (c) => c.toUpperCase()) : text;
  };
  let text = "";
  while (text.length < length) {
    const words: string[] = [];
    const count = 1 + Math.floor(random() * 18);
    for (let i = 0; i < count; i += 1) {
      const roll = random();
      words.push(roll < 0.35 ? casing(pick(phrases)) : roll < 0.45 ? pick(SPECIALS) : pick(FILLER));
    }
    let sentence = words.join(random() < 0.9 ? " " : pick(["  ", " - ", ", ", "/", ""]));
    if (random() < 0.7) sentence = sentence.charAt(0).toUpperCase() + sentence.slice(1);
    text +=
      sentence +
      pick([". ", ". ", "! ", "? ", "\n", "\n\n", " ", ": ", "; ", ".\n", " — ", "…", '."', ". 2024 ", ".”\n"]);
  }
  return text;
}
