import { rankCandidates, type Candidate, type PageCategory } from "./page-priority.js";

/**
 * Pages known but not yet read. `take()` hands out the most valuable next page,
 * counting what each category already got, so the crawl reads pricing, docs,
 * changelog, security … before the tenth blog post.
 */
export class CandidateQueue {
  private readonly candidates = new Map<string, Candidate>();
  private readonly taken = new Map<PageCategory, number>();

  get size(): number {
    return this.candidates.size;
  }

  /** Keeps the first link text and the fewest hops seen for a URL. */
  offer(url: string, text: string, depth: number): void {
    const known = this.candidates.get(url);
    if (!known) this.candidates.set(url, { url, text, depth });
    else if (depth < known.depth || (!known.text && text)) this.candidates.set(url, { url, text: known.text || text, depth: Math.min(depth, known.depth) });
  }

  take(): Candidate | undefined {
    const [best] = rankCandidates([...this.candidates.values()], this.taken);
    if (!best) return undefined;
    this.candidates.delete(best.url);
    this.taken.set(best.category, (this.taken.get(best.category) ?? 0) + 1);
    return best;
  }
}
