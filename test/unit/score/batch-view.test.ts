import { describe, expect, it } from "vitest";
import { batchSignature, batchView } from "../../../src/modules/score/batch/batch-view.js";
import type { StoredBatchItem } from "../../../src/modules/score/batch/score-batch.repository.js";
import type { JobStatus } from "../../../src/modules/score/score-progress.js";

const item = (
  position: number,
  jobStatus: JobStatus | null,
  extra: Partial<StoredBatchItem> = {},
): StoredBatchItem => ({
  position,
  url: `https://s${position}.test/`,
  normalizedUrl: jobStatus ? `https://s${position}.test/` : null,
  jobId: jobStatus ? `job-${position}` : null,
  duplicateOf: null,
  error: jobStatus ? null : { code: "INVALID_URL", message: "bad" },
  jobStatus,
  resultId: jobStatus === "completed" ? `result-${position}` : null,
  jobError: jobStatus === "failed" ? { code: "CRAWL_FAILED", message: "down" } : null,
  totalScore: jobStatus === "completed" ? 50 : null,
  stageName: jobStatus === "completed" ? "Scaling" : null,
  ...extra,
});
const view = (...items: StoredBatchItem[]) =>
  batchView({ id: "b", accountId: "a", context: null, createdAt: new Date(0), items });

describe("a batch's status, read from its jobs", () => {
  it("is queued while no job has started, running once one has, completed when all ended", () => {
    expect(view(item(0, "queued"), item(1, null)).status).toBe("queued");
    expect(view(item(0, "crawling"), item(1, "queued")).status).toBe("running");
    expect(view(item(0, "completed"), item(1, "queued")).status).toBe("running");
    expect(view(item(0, "completed"), item(1, "failed"), item(2, null)).status).toBe("completed");
  });

  it("is completed at once when every address was refused", () => {
    expect(view(item(0, null), item(1, null)).status).toBe("completed");
  });

  it("counts items (duplicates too), and names a failed job's error on its item", () => {
    const batch = view(
      item(0, "completed"),
      item(1, "completed", { duplicateOf: 0 }),
      item(2, "failed"),
      item(3, null),
    );
    expect(batch.counts).toEqual({ total: 4, refused: 1, queued: 0, running: 0, completed: 2, failed: 1 });
    expect(batch.items[2]!.error).toEqual({ code: "CRAWL_FAILED", message: "down" });
    expect(batch.items[3]!.status).toBe("refused");
  });

  it("changes signature only when an item's status or result changes", () => {
    expect(batchSignature(view(item(0, "crawling")))).not.toBe(batchSignature(view(item(0, "scoring"))));
    expect(batchSignature(view(item(0, "queued")))).toBe(batchSignature(view(item(0, "queued"))));
  });
});
