import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take minutes, mostly waiting on child processes (a fresh clone's
 * `npm ci`, `npm start` and `npm test`; the process tests; the packed client's
 * install), start first, so the rest of the run overlaps them instead of waiting
 * for them at the end. A clean checkout has no cached durations, so without this
 * vitest orders by file size and the longest file started last.
 */
const SLOW_FIRST = [
  "test/integration/newcomer-clone.test.ts",
  "test/integration/process.test.ts",
  "test/integration/client/package.test.ts",
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FIRST.findIndex((slow) => file.moduleId.endsWith(slow));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    // Array.prototype.sort is stable: every other file keeps vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
