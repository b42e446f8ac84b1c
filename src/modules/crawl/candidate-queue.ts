import { describePage, pagePriority, type PageCategory, type PageDescription } from "./page-priority.js";

/** Dead links per kind that do not count against it (see CandidateQueue.release). */
export const RELEASES_PER_CATEGORY = 5;

interface Queued extends PageDescription {
  /** The address to fetch (the queue is keyed by the page's dedup key). */
  readonly url: string;
  readonly text: string;
  /** Link hops from the home page: breaks ties only. */
  readonly hops: number;
}

/**
 * Pages known but not yet read. `take()` hands out the most valuable next page,
 * counting what each category already got (pages read, not addresses tried: see release), so the crawl reads pricing, docs,
 * changelog, security … before the tenth blog post. Each URL is described once
 * when offered. A page's worth depends only on its category, its depth and how many
 * pages of its category were taken, so candidates wait in one heap per
 * (category, depth), ordered by the tie-break (fewer hops, shorter URL,
 * alphabetical): a take compares the heads of those few heaps instead of scanning
 * every known link (a marketing site offers thousands). The order is the same as
 * rankCandidates'.
 */
export class CandidateQueue {
  private readonly queued = new Map<string, Queued & { readonly version: number }>();
  private readonly buckets = new Map<
    string,
    { readonly category: PageCategory; readonly depth: number; readonly heap: Heap }
  >();
  private readonly taken = new Map<PageCategory, number>();
  /** How many taken pages of each kind gave nothing to read and were given back (see release). */
  private readonly released = new Map<PageCategory, number>();
  private version = 0;

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
    const candidate = {
      url: fetchUrl,
      text: bestText,
      hops: Math.min(hops, known?.hops ?? hops),
      ...describePage(fetchUrl, bestText, this.basePath),
      version: ++this.version,
    };
    // A replaced entry stays in its heap and is skipped when it surfaces (its version is stale).
    this.queued.set(key, candidate);
    const bucketKey = `${candidate.category}\u0000${candidate.depth}`;
    let bucket = this.buckets.get(bucketKey);
    if (!bucket)
      this.buckets.set(
        bucketKey,
        (bucket = { category: candidate.category, depth: candidate.depth, heap: new Heap() }),
      );
    bucket.heap.push({ key, version: candidate.version, hops: candidate.hops, url: candidate.url });
  }

  take(): { key: string; url: string; text: string; depth: number; category: PageCategory } | undefined {
    let bestBucket: { readonly heap: Heap; readonly category: PageCategory } | undefined;
    let bestHead: HeapEntry | undefined;
    let bestWorth = -1;
    for (const bucket of this.buckets.values()) {
      const head = this.liveHead(bucket.heap);
      if (!head) continue;
      const worth = pagePriority(bucket.category, bucket.depth, this.taken.get(bucket.category) ?? 0);
      if (worth > bestWorth || (worth === bestWorth && bestHead && before(head, bestHead))) {
        bestBucket = bucket;
        bestHead = head;
        bestWorth = worth;
      }
    }
    if (!bestBucket || !bestHead) return undefined;
    bestBucket.heap.pop();
    const best = this.queued.get(bestHead.key)!;
    this.queued.delete(bestHead.key);
    this.taken.set(best.category, (this.taken.get(best.category) ?? 0) + 1);
    return { key: bestHead.key, url: best.url, text: best.text, depth: best.hops, category: best.category };
  }

  /**
   * A taken page that gave nothing to read (a 404, a page already read at another address, a redirect to one,
   * a path robots.txt closes): its category has not got a page yet, so its next candidate is worth a first page
   * again. Without this, a dead "/team/" link discounted the live "/about-us/" below the tenth integration page.
   * A kind gets this back at most RELEASES_PER_CATEGORY times: past that, its dead links count against it as
   * before, so a site with a hundred dead careers links does not spend the crawl's time on them.
   */
  release(category: PageCategory): void {
    const taken = this.taken.get(category) ?? 0;
    const released = this.released.get(category) ?? 0;
    if (taken === 0 || released >= RELEASES_PER_CATEGORY) return;
    this.taken.set(category, taken - 1);
    this.released.set(category, released + 1);
  }

  /** The heap's first entry that is still the page's current description. */
  private liveHead(heap: Heap): HeapEntry | undefined {
    for (let head = heap.peek(); head; head = heap.peek()) {
      if (this.queued.get(head.key)?.version === head.version) return head;
      heap.pop();
    }
    return undefined;
  }
}

interface HeapEntry {
  readonly key: string;
  readonly version: number;
  readonly hops: number;
  readonly url: string;
}

/** Fewer hops, then the shorter URL, then alphabetical: the order rankCandidates uses. */
function before(a: { hops: number; url: string }, b: { hops: number; url: string }): boolean {
  if (a.hops !== b.hops) return a.hops < b.hops;
  if (a.url.length !== b.url.length) return a.url.length < b.url.length;
  return a.url < b.url;
}

/** A binary min-heap in `before` order. */
class Heap {
  private readonly items: HeapEntry[] = [];

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  push(item: HeapEntry): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): HeapEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && before(items[left]!, items[smallest]!)) smallest = left;
        if (right < items.length && before(items[right]!, items[smallest]!)) smallest = right;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest]!, items[i]!];
        i = smallest;
      }
    }
    return top;
  }
}
