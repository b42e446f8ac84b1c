import { describePage, pagePriority, type PageCategory, type PageDescription } from "./page-priority.js";

interface Queued extends PageDescription {
  /** The address to fetch (the queue is keyed by the page's dedup key). */
  readonly url: string;
  readonly text: string;
  /** Link hops from the home page: breaks ties only. */
  readonly hops: number;
}

/**
 * Pages known but not yet read. `take()` hands out the most valuable next page,
 * counting what each category already got, so the crawl reads pricing, docs,
 * changelog, security … before the tenth blog post. Each URL is described once
 * when offered; a take is one linear scan (the same order as rankCandidates).
 */
export class CandidateQueue {
  private readonly queued = new Map<string, Queued>();
  private readonly taken = new Map<PageCategory, number>();

  /** `basePath`: the folder the site lives under ("/" at the root, "/website/", "/en-us/"). */
  constructor(private readonly basePath = "/") {}

  get size(): number {
    return this.queued.size;
  }

  /**
   * Keeps the fewest hops seen for a page, and the first link text that says
   * something. `key` identifies the page ("/docs" and "/docs/" are one page);
   * `url` is the address to fetch, as first linked.
   */
  offer(key: string, url: string, text: string, hops: number): void {
    const known = this.queued.get(key);
    if (known && known.hops <= hops && (known.text || !text)) return;
    const bestText = known?.text || text;
    const fetchUrl = known?.url ?? url;
    this.queued.set(key, { url: fetchUrl, text: bestText, hops: Math.min(hops, known?.hops ?? hops), ...describePage(fetchUrl, bestText, this.basePath) });
  }

  take(): { key: string; url: string; text: string; depth: number } | undefined {
    let best: Queued | undefined;
    let bestKey = "";
    let bestWorth = -1;
    for (const [key, candidate] of this.queued) {
      const worth = pagePriority(candidate.category, candidate.depth, this.taken.get(candidate.category) ?? 0);
      if (worth > bestWorth || (worth === bestWorth && best && breaksTie(candidate, best))) {
        best = candidate;
        bestKey = key;
        bestWorth = worth;
      }
    }
    if (!best) return undefined;
    this.queued.delete(bestKey);
    this.taken.set(best.category, (this.taken.get(best.category) ?? 0) + 1);
    return { key: bestKey, url: best.url, text: best.text, depth: best.hops };
  }
}

/** Fewer hops, then the shorter URL, then alphabetical: the order rankCandidates uses. */
function breaksTie(a: Queued, b: Queued): boolean {
  if (a.hops !== b.hops) return a.hops < b.hops;
  if (a.url.length !== b.url.length) return a.url.length < b.url.length;
  return a.url < b.url;
}
