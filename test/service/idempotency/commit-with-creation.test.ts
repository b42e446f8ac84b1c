import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceFor } from "../../../src/db/database.js";
import type { AlsoInTransaction } from "../../../src/db/transaction.js";
import { IdempotencyKeyRepository } from "../../../src/modules/idempotency/idempotency-key.repository.js";
import { IdempotentRequests, type IdempotentCall } from "../../../src/modules/idempotency/idempotent-requests.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { silentLogger } from "../../support/score-services.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * An idempotency key commits with what its request made (docs/api.md §14): the creation's own transaction records
 * the key. Real PostgreSQL; the creating connection runs through a TCP relay that loses a commit's acknowledgement,
 * so the failure is a real dropped connection, not a mocked client.
 */
let database: TestDatabase;
let healthy: DataSource;
let relayed: DataSource;
let relay: TcpRelay;

beforeAll(async () => {
  database = await createTestDatabase();
  const url = new URL(database.url);
  relay = new TcpRelay({ host: url.hostname, port: Number(url.port || 5432) });
  await relay.open();
  healthy = dataSourceFor(database.url, 4);
  await healthy.initialize();
  url.hostname = "127.0.0.1";
  url.port = String(relay.port);
  relayed = dataSourceFor(url.toString(), 2);
  await relayed.initialize();
  // What the creations make: one row each, in the creation's transaction.
  await healthy.query(`CREATE TABLE made (id text PRIMARY KEY, scope text NOT NULL)`);
});
afterAll(async () => {
  await relayed?.destroy().catch(() => undefined);
  await healthy?.destroy();
  await relay?.cut();
  await database?.drop();
});

const call = (key: string): IdempotentCall & { replays: number } => {
  const recorder = { key, replays: 0, replayed: () => (recorder.replays += 1) };
  return recorder;
};
const requestsOn = (dataSource: DataSource) =>
  new IdempotentRequests(new IdempotencyKeyRepository(dataSource), silentLogger);
const madeIn = async (scope: string): Promise<string[]> =>
  ((await healthy.query(`SELECT id FROM made WHERE scope = $1 ORDER BY id`, [scope])) as Array<{ id: string }>).map(
    (row) => row.id,
  );

/**
 * A creation on the relayed pool whose commit reaches the server while its acknowledgement is lost: the relay holds
 * the server's answers from the moment the key is recorded, then resets the connection.
 */
function creationWhoseCommitIsNotAcknowledged(scope: string) {
  return async (record: AlsoInTransaction | undefined) => {
    const id = `made-${randomUUID()}`;
    await relayed.transaction(async (tx) => {
      await tx.query(`INSERT INTO made (id, scope) VALUES ($1, $2)`, [id, scope]);
      await record?.(tx, id);
      relay.stall();
      setTimeout(() => relay.drop(), 300);
    });
    return { answer: `made ${id}`, resourceId: id };
  };
}

describe("an idempotency key commits with the creation", () => {
  it("onceAtomic: a commit whose acknowledgement is lost answers what it made, and a retry replays it", async () => {
    const scope = randomUUID();
    const replay = async (id: string) => `replayed ${id}`;
    const answer = await requestsOn(relayed).onceAtomic(
      call("k-1"),
      scope,
      "webhook.create",
      { url: "u" },
      {
        run: creationWhoseCommitIsNotAcknowledged(scope),
        replay,
      },
    );
    const [made] = await madeIn(scope);
    expect(await madeIn(scope)).toHaveLength(1);
    // The request could not hear its commit; the key it committed with says what it made: that is its answer.
    expect(answer).toBe(`replayed ${made}`);
    let runs = 0;
    const retry = call("k-1");
    const again = await requestsOn(healthy).onceAtomic(
      retry,
      scope,
      "webhook.create",
      { url: "u" },
      {
        run: async () => ({ answer: `run ${++runs}`, resourceId: `other-${runs}` }),
        replay,
      },
    );
    expect(again).toBe(`replayed ${made}`);
    expect(retry.replays).toBe(1);
    expect(runs).toBe(0);
  });

  it("once with complete: a reply stored in a commit whose acknowledgement is lost is not forgotten, nor made twice", async () => {
    const scope = randomUUID();
    const replay = async (id: string) => `replayed ${id}`;
    const create = creationWhoseCommitIsNotAcknowledged(scope);
    const answer = await requestsOn(relayed).once(
      call("k-2"),
      scope,
      "chat.send",
      { message: "m" },
      {
        run: (complete) => create(complete),
        replay,
      },
    );
    const [made] = await madeIn(scope);
    expect(answer).toBe(`replayed ${made}`);
    const again = await requestsOn(healthy).once(
      call("k-2"),
      scope,
      "chat.send",
      { message: "m" },
      {
        run: async () => ({ answer: "a second reply", resourceId: "second" }),
        replay,
      },
    );
    expect(again).toBe(`replayed ${made}`);
    expect(await madeIn(scope)).toEqual([made]);
  });

  it("onceAtomic: a creation that rolls back leaves the key unused, so a retry runs as a first request", async () => {
    const scope = randomUUID();
    const failing = (record: AlsoInTransaction | undefined) =>
      healthy.transaction(async (tx) => {
        await tx.query(`INSERT INTO made (id, scope) VALUES ($1, $2)`, ["rolled-back", scope]);
        await record?.(tx, "rolled-back");
        throw new Error("the limit check failed after the insert");
      });
    const requests = requestsOn(healthy);
    await expect(
      requests.onceAtomic(
        call("k-3"),
        scope,
        "api_key.create",
        { name: "n" },
        {
          run: failing,
          replay: async (id) => id,
        },
      ),
    ).rejects.toThrow("the limit check failed");
    expect(await madeIn(scope)).toEqual([]);
    const retried = await requests.onceAtomic(
      call("k-3"),
      scope,
      "api_key.create",
      { name: "n" },
      {
        run: async () => ({ answer: "first", resourceId: "r" }),
        replay: async (id) => id,
      },
    );
    expect(retried).toBe("first");
  });

  it("onceAtomic: a concurrent duplicate waits for the first commit and replays it; its own creation rolls back", async () => {
    const scope = randomUUID();
    const requests = requestsOn(healthy);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded = 0;
    const handlers = {
      run: (record: AlsoInTransaction | undefined) =>
        healthy.transaction(async (tx) => {
          const id = `made-${randomUUID()}`;
          await tx.query(`INSERT INTO made (id, scope) VALUES ($1, $2)`, [id, scope]);
          await record!(tx, id);
          recorded += 1;
          await held;
          return { answer: `made ${id}`, resourceId: id };
        }),
      replay: async (id: string) => `made ${id}`,
    };
    const first = requests.onceAtomic(call("k-4"), scope, "webhook.create", { url: "u" }, handlers);
    for (let i = 0; i < 100 && recorded === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const secondCall = call("k-4");
    const second = requests.onceAtomic(secondCall, scope, "webhook.create", { url: "u" }, handlers);
    // The duplicate is blocked on the key the first holds, not refused: give it time to get there.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(recorded).toBe(1);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b).toBe(a);
    expect(secondCall.replays).toBe(1);
    expect(await madeIn(scope)).toHaveLength(1);
  });
});
