import { isTerminal, type JobStatus, type ProgressBus } from "../score-progress.js";
import type { Viewer } from "../../accounts/viewer.js";
import { batchSignature, type BatchView } from "./batch-view.js";

/** Live progress of a batch its caller may see, as the batchProgress subscription reads it. */
export interface BatchProgressStreams {
  batchProgress(viewer: Viewer, batchId: string): Promise<AsyncIterable<BatchView>>;
}

/**
 * A batch as an async iterator: the batch as it is now, then the batch again each
 * time one of its items changes status (a job starts, completes or fails; the
 * steps within a crawl are not changes of the batch), ending after the batch is
 * completed. It listens to every job before the first read, so nothing falls
 * between the two; the bus also hears jobs' stored ends (a lost message is found on
 * its recheck). `return()` stops listening at once.
 */
export async function batchProgressStream(
  bus: ProgressBus,
  jobIds: readonly string[],
  read: () => Promise<BatchView>,
): Promise<AsyncIterableIterator<BatchView>> {
  const lastStatus = new Map<string, JobStatus>();
  let changed = false;
  let wake: (() => void) | undefined;
  let finished = false;
  const unsubscribes = await Promise.all(
    [...new Set(jobIds)].map((jobId) =>
      bus.subscribe(jobId, (progress) => {
        if (lastStatus.get(jobId) === progress.status && !isTerminal(progress.status)) return;
        lastStatus.set(jobId, progress.status);
        changed = true;
        wake?.();
      }),
    ),
  );
  let sent: string | undefined;
  const stop = async (): Promise<IteratorResult<BatchView>> => {
    if (!finished) {
      finished = true;
      wake?.();
      await Promise.all(unsubscribes.map((unsubscribe) => unsubscribe()));
    }
    return { done: true, value: undefined };
  };
  const iterator: AsyncIterableIterator<BatchView> = {
    async next() {
      while (!finished) {
        if (sent !== undefined && !changed) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        changed = false;
        const view = await read();
        const signature = batchSignature(view);
        if (signature === sent) continue;
        sent = signature;
        // Sent, then the stream ends on the following next().
        if (view.status === "completed") await stop();
        return { done: false, value: view };
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
