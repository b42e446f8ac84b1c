import { describe, expect, it } from "vitest";
import { CandidateQueue, RELEASES_PER_CATEGORY } from "../../../src/modules/crawl/candidate-queue.js";
import {
  describePage,
  pagePriority,
  type PageCategory,
  type PageDescription,
} from "../../../src/modules/crawl/page-priority.js";

/** The queue as it was: one linear scan per take over every known page. The heaps must give the same order. */
class LinearQueue {
  private readonly queued = new Map<string, PageDescription & { url: string; text: string; hops: number }>();
  private readonly taken = new Map<PageCategory, number>();
  offer(key: string, url: string, text: string, hops: number): void {
    const known = this.queued.get(key);
    if (known && known.hops <= hops && (known.text || !text)) return;
    const bestText = known?.text || text;
    const fetchUrl = known?.url ?? url;
    this.queued.set(key, {
      url: fetchUrl,
      text: bestText,
      hops: Math.min(hops, known?.hops ?? hops),
      ...describePage(fetchUrl, bestText, "/"),
    });
  }
  take(): string | undefined {
    let bestKey: string | undefined;
    let best: { hops: number; url: string } | undefined;
    let bestWorth = -1;
    for (const [key, candidate] of this.queued) {
      const worth = pagePriority(candidate.category, candidate.depth, this.taken.get(candidate.category) ?? 0);
      const ties =
        best &&
        (candidate.hops !== best.hops
          ? candidate.hops < best.hops
          : candidate.url.length !== best.url.length
            ? candidate.url.length < best.url.length
            : candidate.url < best.url);
      if (worth > bestWorth || (worth === bestWorth && ties)) [bestKey, best, bestWorth] = [key, candidate, worth];
    }
    if (bestKey === undefined) return undefined;
    const chosen = this.queued.get(bestKey)!;
    this.queued.delete(bestKey);
    this.taken.set(chosen.category, (this.taken.get(chosen.category) ?? 0) + 1);
    return bestKey;
  }
}

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const paths = [
  "pricing",
  "docs",
  "blog",
  "changelog",
  "security",
  "about",
  "careers",
  "customers",
  "integrations",
  "api",
  "legal/privacy",
  "status",
  "news",
  "guides",
  "features",
  "solutions/banks",
  "team",
  "contact",
];
const texts = [
  "",
  "Pricing",
  "Read the docs",
  "Blog",
  "What's new",
  "Security",
  "Careers",
  "Case studies",
  "Integrations",
  "Learn more",
];

describe("CandidateQueue", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    "takes pages in the same order as a linear scan over every candidate (seed %i)",
    (seed) => {
      const next = random(seed);
      const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
      const heaps = new CandidateQueue();
      const linear = new LinearQueue();
      const order: Array<[string | undefined, string | undefined]> = [];
      for (let step = 0; step < 1_500; step += 1) {
        if (next() < 0.8) {
          const path = `/${pick(paths)}${next() < 0.5 ? `/${Math.floor(next() * 40)}` : ""}${next() < 0.2 ? "/deeper/page" : ""}`;
          const url = `https://acme.test${path}`;
          const [text, hops] = [pick(texts), 1 + Math.floor(next() * 4)];
          heaps.offer(path, url, text, hops);
          linear.offer(path, url, text, hops);
        } else {
          order.push([heaps.take()?.key, linear.take()]);
        }
      }
      for (let drained = 0; drained < 2_000; drained += 1) {
        const pair: [string | undefined, string | undefined] = [heaps.take()?.key, linear.take()];
        order.push(pair);
        if (pair[0] === undefined && pair[1] === undefined) break;
      }
      expect(order.map(([a]) => a)).toEqual(order.map(([, b]) => b));
      expect(heaps.size).toBe(0);
    },
  );

  it("gives a kind its first-page worth back when a page taken of that kind gave nothing to read", () => {
    const queue = new CandidateQueue();
    queue.offer("/team", "https://acme.test/team", "", 1);
    queue.offer("/about-us", "https://acme.test/about-us", "", 1);
    queue.offer("/integrations/jira", "https://acme.test/integrations/jira", "", 1);
    // /team (45) first; then /integrations/jira (30) beats a second about page (45 × 0.3 = 13.5) …
    expect(queue.take()).toMatchObject({ key: "/team", category: "about" });
    const counted = new CandidateQueue();
    for (const path of ["/team", "/about-us", "/integrations/jira"])
      counted.offer(path, `https://acme.test${path}`, "", 1);
    counted.take();
    expect(counted.take()?.key).toBe("/integrations/jira");
    // … unless /team was a dead link: then /about-us is the first about page again.
    queue.release("about");
    expect(queue.take()?.key).toBe("/about-us");
    // Releasing a kind with nothing taken changes nothing.
    queue.release("pricing");
    expect(queue.take()?.key).toBe("/integrations/jira");
  });

  it("gives a kind back at most RELEASES_PER_CATEGORY dead links: past that they count against it", () => {
    const queue = new CandidateQueue();
    for (let i = 0; i < 40; i += 1) queue.offer(`/careers/dead-${i}`, `https://acme.test/careers/dead-${i}`, "", 1);
    queue.offer("/feature", "https://acme.test/feature", "", 1);
    // Each dead careers page (35 each at depth 2) is tried and given back, until the kind has used its releases.
    const taken: string[] = [];
    for (let i = 0; i < RELEASES_PER_CATEGORY + 3; i += 1) {
      const next = queue.take()!;
      taken.push(next.key);
      queue.release(next.category);
    }
    // After five releases, the sixth dead careers page counts: the next is worth 35 × 0.3 = 10.5, below /feature (20).
    expect(taken.slice(0, RELEASES_PER_CATEGORY + 1).every((key) => key.startsWith("/careers/"))).toBe(true);
    expect(taken).toContain("/feature");
  });
});
