import { describePage, pagePriority, type PageCategory, type PageDescription } from "./page-priority.js";

interface Queued extends PageDescription {
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

  get size(): number {
    return this.queued.size;
  }

  /** Keeps the fewest hops seen for a URL, and the first link text that says something. */
  offer(url: string, text: string, hops: number): void {
    const known = this.queued.get(url);
    if (known && known.hops <= hops && (known.text || !text)) return;
    const bestText = known?.text || text;
    this.queued.set(url, { url, text: bestText, hops: Math.min(hops, known?.hops ?? hops), ...describePage(url, bestText) });
  }

  take(): { url: string; depth: number } | undefined {
    let best: Queued | undefined;
    let bestWorth = -1;
    for (const candidate of this.queued.values()) {
      const worth = pagePriority(candidate.category, candidate.depth, this.taken.get(candidate.category) ?? 0);
      if (worth > bestWorth || (worth === bestWorth && best && breaksTie(candidate, best))) {
        best = candidate;
        bestWorth = worth;
      }
    }
    if (!best) return undefined;
    this.queued.delete(best.url);
    this.taken.set(best.category, (this.taken.get(best.category) ?? 0) + 1);
    return { url: best.url, depth: best.hops };
  }
}

/** Fewer hops, then the shorter URL, then alphabetical: the order rankCandidates uses. */
function breaksTie(a: Queued, b: Queued): boolean {
  if (a.hops !== b.hops) return a.hops < b.hops;
  if (a.url.length !== b.url.length) return a.url.length < b.url.length;
  return a.url < b.url;
}
