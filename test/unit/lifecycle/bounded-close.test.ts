import { describe, expect, it } from "vitest";
import { closeWithin } from "../../../src/bounded-close.js";

function recorder() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (message: string) => void warnings.push(message) } };
}

describe("closeWithin", () => {
  it("answers closed, without a warning, for a part that closes", async () => {
    const { warnings, logger } = recorder();
    expect(await closeWithin(Promise.resolve(), "queue", logger, 1_000)).toBe("closed");
    expect(warnings).toEqual([]);
  });

  it("names a part that failed, and goes on", async () => {
    const { warnings, logger } = recorder();
    expect(await closeWithin(Promise.reject(new Error("gone")), "Redis", logger, 1_000)).toBe("failed");
    expect(warnings).toEqual(["Redis did not close cleanly (failed); continuing shutdown"]);
  });

  it("gives up on a part that never closes once its bound runs out, naming it", async () => {
    const { warnings, logger } = recorder();
    expect(await closeWithin(new Promise(() => undefined), "database pool", logger, 20)).toBe("timeout");
    expect(warnings).toEqual(["database pool did not close cleanly (timeout); continuing shutdown"]);
  });
});
