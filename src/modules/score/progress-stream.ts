import { isTerminal, type ProgressBus, type ScoreProgress } from "./score-progress.js";

/** How long after a stream starts it reads the stored step again (a progress store takes a few ms). */
const SETTLE_MS = 500;

/** Orders steps so a stream never goes backwards: queued < crawling (by page) < scoring (by dimension) < end. */
function rank(progress: ScoreProgress): number {
  switch (progress.status) {
    case "queued":
      return 0;
    case "crawling":
      return 1 + progress.page / 10_000;
    case "scoring":
      return 2 + progress.dimension / 10_000;
    default:
      return 3;
  }
}

/**
 * A job's progress as an async iterator: the step it is at now, then each later
 * step from the bus, ending after completed or failed. It listens before reading
 * the current step, so nothing falls between the two; a step that is not newer
 * than the last one sent is dropped. A step is published at once and stored a
 * moment later (best effort), so one published just before this stream listened
 * may not be stored yet when it reads: it reads the stored step once more after
 * `settleMs`, which is bounded (one read per stream). `return()` (the client
 * unsubscribed) stops listening at once, even while waiting.
 */
export async function progressStream(
  bus: ProgressBus,
  jobId: string,
  current: () => Promise<ScoreProgress>,
  settleMs = SETTLE_MS,
): Promise<AsyncIterableIterator<ScoreProgress>> {
  const buffered: ScoreProgress[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const unsubscribe = await bus.subscribe(jobId, (progress) => {
    buffered.push(progress);
    wake?.();
  });
  let last = -1;
  let first: ScoreProgress | undefined = await current();
  if (!isTerminal(first.status)) {
    setTimeout(() => {
      if (finished) return;
      current().then(
        (stored) => {
          buffered.push(stored);
          wake?.();
        },
        () => undefined, // A failed re-read changes nothing: the bus still brings every later step.
      );
    }, settleMs).unref();
  }

  const stop = async (): Promise<IteratorResult<ScoreProgress>> => {
    if (!finished) {
      finished = true;
      wake?.();
      await unsubscribe();
    }
    return { done: true, value: undefined };
  };

  const iterator: AsyncIterableIterator<ScoreProgress> = {
    async next() {
      while (!finished) {
        const progress = first ?? buffered.shift();
        first = undefined;
        if (!progress) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if (rank(progress) <= last) continue;
        last = rank(progress);
        if (isTerminal(progress.status)) {
          // Sent, then the stream ends on the following next().
          await unsubscribe();
          finished = true;
          return { done: false, value: progress };
        }
        return { done: false, value: progress };
      }
      return { done: true, value: undefined };
    },
    return: stop,
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
