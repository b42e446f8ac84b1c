import { describe, expect, it } from "vitest";
import { MemoryProgressBus } from "../../../src/modules/score/in-process-queue.js";
import { progressStream } from "../../../src/modules/score/progress-stream.js";
import type { ScoreProgress } from "../../../src/modules/score/score-progress.js";

describe("a progress stream that starts between a step's publish and its store", () => {
  it("reads the stored step once more, so a follower is not left on 'queued' while the job crawls", async () => {
    const bus = new MemoryProgressBus();
    const jobId = "7d1c6a52-0c55-4a1f-9a8e-3c1f2f1b9b10";
    // The step "page 1 of 25" went out on the bus before this stream listened, and is stored only now.
    let stored: ScoreProgress = { jobId, status: "queued" };
    const stream = await progressStream(bus, jobId, async () => stored, 20);
    stored = { jobId, status: "crawling", page: 1, pages: 25, url: "https://acme.example/" };

    expect((await stream.next()).value).toMatchObject({ status: "queued" });
    expect((await stream.next()).value).toMatchObject({ status: "crawling", page: 1 });
    // Later steps still come from the bus, and the stream ends after the job's end.
    await bus.publish({ jobId, status: "crawling", page: 2, pages: 25, url: "https://acme.example/pricing" });
    expect((await stream.next()).value).toMatchObject({ status: "crawling", page: 2 });
    await bus.publish({ jobId, status: "completed", resultId: "r1" } as ScoreProgress);
    expect((await stream.next()).value).toMatchObject({ status: "completed" });
    expect((await stream.next()).done).toBe(true);
  });

  it("does not read again for a job that has already ended", async () => {
    const bus = new MemoryProgressBus();
    const jobId = "0e4f9a35-6b8c-4d7e-8f10-2a3b4c5d6e7f";
    let reads = 0;
    const stream = await progressStream(
      bus,
      jobId,
      async () => {
        reads++;
        return { jobId, status: "failed", error: { code: "INTERNAL", message: "x" } } as ScoreProgress;
      },
      5,
    );
    expect((await stream.next()).value).toMatchObject({ status: "failed" });
    expect((await stream.next()).done).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads).toBe(1);
  });
});
