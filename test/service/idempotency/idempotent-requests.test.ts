import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyKeyRepository } from "../../../src/modules/idempotency/idempotency-key.repository.js";
import {
  ABANDONED_AFTER_MS,
  IdempotentRequests,
  type IdempotentCall,
} from "../../../src/modules/idempotency/idempotent-requests.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { silentLogger } from "../../support/score-services.js";

/** The idempotency store of the creating POSTs, on a database of its own: replays, conflicts, in-progress. */
let database: ClonedDatabase;
// Records are stamped by the database clock: the service's clock starts from the real time.
let now = new Date();
let requests: IdempotentRequests;

beforeAll(async () => {
  database = await openClonedDatabase(4);
  requests = new IdempotentRequests(new IdempotencyKeyRepository(database.dataSource), silentLogger, () => now);
});
afterAll(async () => {
  await database?.close();
});

function call(key: string | undefined): IdempotentCall & { replays: number } {
  const recorder = { key, replays: 0, replayed: () => (recorder.replays += 1) };
  return recorder;
}

describe("IdempotentRequests.once", () => {
  it("runs once per key and body, replays what it made, and tells a concurrent duplicate the first is in progress", async () => {
    const scope = randomUUID();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const handlers = {
      run: async () => {
        runs += 1;
        await held;
        return { answer: "made-1", resourceId: "resource-1" };
      },
      replay: async (id: string) => `replayed ${id}`,
    };
    const firstCall = call("k-1");
    const first = requests.once(firstCall, scope, "webhook.create", { url: "u" }, handlers);
    // The first has reserved the key and is still running: a duplicate is told so, retryable, with a wait.
    for (let i = 0; i < 50 && runs === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const duplicate = await rejectionOf(requests.once(call("k-1"), scope, "webhook.create", { url: "u" }, handlers));
    expect(duplicate).toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS", retryable: true, retryAfterSeconds: 1 });

    release();
    expect(await first).toBe("made-1");
    expect(firstCall.replays).toBe(0);
    const again = call("k-1");
    expect(await requests.once(again, scope, "webhook.create", { url: "u" }, handlers)).toBe("replayed resource-1");
    expect(again.replays).toBe(1);
    expect(runs).toBe(1);

    // Another body, or the same body for another operation: a conflict.
    expect(
      await rejectionOf(requests.once(call("k-1"), scope, "webhook.create", { url: "v" }, handlers)),
    ).toMatchObject({ code: "IDEMPOTENCY_CONFLICT" });
    expect(
      await rejectionOf(requests.once(call("k-1"), scope, "api_key.create", { url: "u" }, handlers)),
    ).toMatchObject({ code: "IDEMPOTENCY_CONFLICT" });
    // Field order and absent-or-null do not make another body.
    const reordered = call("k-1");
    await requests.once(reordered, scope, "webhook.create", { events: null, url: "u" }, handlers);
    expect(reordered.replays).toBe(1);
  });

  it("runs as a first request after a failure, and after a first request abandoned mid-way", async () => {
    const scope = randomUUID();
    const failing = {
      run: async (): Promise<{ answer: string; resourceId: string }> => {
        throw new Error("provider down");
      },
      replay: async (id: string) => id,
    };
    await expect(requests.once(call("k-2"), scope, "checkout.start", {}, failing)).rejects.toThrow("provider down");
    let runs = 0;
    const working = {
      run: async () => ({ answer: `run ${++runs}`, resourceId: `r-${runs}` }),
      replay: async (id: string) => `replayed ${id}`,
    };
    expect(await requests.once(call("k-2"), scope, "checkout.start", {}, working)).toBe("run 1");

    // A first request that never records what it made (its process died mid-way) holds the key "in progress"…
    void requests.once(
      call("k-3"),
      scope,
      "checkout.start",
      {},
      {
        run: () => new Promise<never>(() => undefined),
        replay: async (id: string) => id,
      },
    );
    const stuck = () => requests.once(call("k-3"), scope, "checkout.start", {}, working);
    for (let i = 0; i < 50; i += 1) {
      const [row] = (await database.dataSource.query(
        `SELECT count(*)::int AS n FROM idempotency_keys WHERE scope = $1 AND resource_id IS NULL`,
        [scope],
      )) as Array<{ n: number }>;
      if (row!.n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await rejectionOf(stuck())).toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS" });
    // … until it is taken to be abandoned: then the key runs as a first request.
    now = new Date(Date.now() + ABANDONED_AFTER_MS + 60_000);
    expect(await stuck()).toBe("run 2");
  });

  it("does nothing of the kind without a key", async () => {
    let runs = 0;
    const handlers = { run: async () => ({ answer: ++runs, resourceId: "x" }), replay: async () => -1 };
    await requests.once(call(undefined), randomUUID(), "chat.send", {}, handlers);
    await requests.once(call(undefined), randomUUID(), "chat.send", {}, handlers);
    expect(runs).toBe(2);
  });
});
