import type { ExtractedPage } from "./crawl.types.js";

/**
 * Menus, mega-menus and footers that a site builds from plain <div>s are not
 * recognisable as navigation from the markup, but they repeat: the same lines on
 * most pages. A line found on at least half of the pages read (and on at least
 * three) is site chrome: it stays in the text of the first page that has it (the
 * home page, usually) and moves to the boilerplate of the others, so it counts
 * once per site and cannot drown a page's own text. Mutates `pages` in place:
 * the crawler owns them until it returns.
 */
export function setRepeatedTextApart(pages: ExtractedPage[]): void {
  if (pages.length < MIN_PAGES) return;
  const pagesWith = new Map<string, number>();
  const linesOf = pages.map((page) => page.text.split("\n"));
  for (const lines of linesOf) {
    for (const line of new Set(lines)) if (line.length >= MIN_LINE) pagesWith.set(line, (pagesWith.get(line) ?? 0) + 1);
  }
  const threshold = Math.max(MIN_PAGES, Math.ceil(pages.length / 2));
  const repeated = new Set<string>();
  for (const [line, count] of pagesWith) if (count >= threshold) repeated.add(line);
  if (repeated.size === 0) return;

  const keptOnce = new Set<string>();
  pages.forEach((page, index) => {
    const own: string[] = [];
    const chrome: string[] = [];
    for (const line of linesOf[index]!) {
      if (!repeated.has(line)) own.push(line);
      else if (keptOnce.has(line)) chrome.push(line);
      else {
        keptOnce.add(line);
        own.push(line);
      }
    }
    if (chrome.length === 0) return;
    pages[index] = { ...page, text: own.join("\n"), boilerplate: [...page.boilerplate, chrome.join("\n")] };
  });
}

const MIN_PAGES = 3;
/** One- and two-character lines ("|", "©") say nothing either way. */
const MIN_LINE = 3;
