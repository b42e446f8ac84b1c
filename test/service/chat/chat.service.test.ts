import { randomUUID } from "node:crypto";
import { pino } from "pino";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions } from "../../../src/db/transaction.js";
import type { Viewer } from "../../../src/modules/accounts/viewer.js";
import type { CreditLedger } from "../../../src/modules/billing/ledger.service.js";
import { creditLedgerOn } from "../../support/ledger.js";
import { RateLimitDecision, type RateLimiter } from "../../../src/modules/billing/rate-limit/rate-limiter.js";
import type { ChatEngine } from "../../../src/modules/chat/chat-engine.js";
import { ChatRepository } from "../../../src/modules/chat/chat.repository.js";
import { ChatService } from "../../../src/modules/chat/chat.service.js";
import { ChatEngineError } from "../../../src/modules/chat/chat-engine.js";
import { ABANDONED_AFTER_MS } from "../../../src/modules/idempotency/idempotent-requests.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { ProductRepository } from "../../../src/modules/products/product.repository.js";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import { ProductsService } from "../../../src/modules/products/products.service.js";
import type { ScoreResultsService } from "../../../src/modules/score/score-results.service.js";
import type { ResultCore } from "../../../src/modules/score/score-result.view.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { insertAccount } from "../../support/webhook-rows.js";

/**
 * The chat service over its real repository and the real ledger (no HTTP, no app):
 * Free's 31st message of the month is refused with nothing charged or stored, and a
 * conversation belongs to its account. The short-window limiter always allows here,
 * so the month's quota is what refuses; the engine and the stored result are stand-ins.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let ledger: CreditLedger;
let chat: ChatService;
let engineCalls = 0;
const silent = pino({ level: "silent" });

const allowAll = {
  check: async (action: "chat") => new RateLimitDecision(action, "allowed", { remaining: 1, resetSeconds: 60 }),
} as unknown as RateLimiter;
const results = {
  getPublic: async (id: string) => ({ id }) as unknown as ResultCore,
} as unknown as ScoreResultsService;
const engine: ChatEngine = {
  name: "deterministic",
  reply: async () => {
    engineCalls += 1;
    return { content: "An answer.", citations: [] };
  },
};

beforeAll(async () => {
  database = await openClonedDatabase(4);
  dataSource = database.dataSource;
  ledger = creditLedgerOn(dataSource);
  chat = chatWith(engine);
});

/** The service over its real repository, ledger and limiter, with `replyEngine` as its model. */
const chatWith = (replyEngine: ChatEngine, chats: ChatRepository = new ChatRepository(dataSource)) =>
  new ChatService(
    chats,
    new Transactions(dataSource),
    ledger,
    allowAll,
    results,
    new ProductsService(
      new ProductRepository(dataSource),
      new AccountRepository(dataSource),
      new ScoreResultRepository(dataSource),
      new Transactions(dataSource),
    ),
    replyEngine,
    silent,
  );
afterAll(async () => {
  await database?.close();
});

const member = (accountId: string): Viewer => ({ kind: "member", accountId, userId: randomUUID(), via: "session" });

describe("ChatService", () => {
  it("refuses Free's 31st message of the month with QUOTA_EXCEEDED: nothing charged, nothing stored, the engine not called", async () => {
    const accountId = await insertAccount(dataSource, "chatty");
    const viewer = member(accountId);
    const first = await chat.send(viewer, { message: "What is weakest?", resultId: randomUUID() });
    for (let i = 1; i < 30; i += 1)
      await chat.send(viewer, { message: `Question ${i}`, conversationId: first.conversationId });
    const before = await ledger.usage(accountId);
    expect(before.chatMessages).toEqual({ limit: 30, used: 30 });
    const callsBefore = engineCalls;

    await expect(
      chat.send(viewer, { message: "One more", conversationId: first.conversationId }),
    ).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });

    expect(engineCalls).toBe(callsBefore);
    expect(await ledger.usage(accountId)).toEqual(before);
    const { messages } = await chat.conversation(viewer, first.conversationId, 100, undefined);
    expect(messages).toHaveLength(60);
    expect(messages.some((message) => message.content === "One more")).toBe(false);
  });

  it("keeps a conversation to its account: another account's id is NOT_FOUND, to read or to continue, and charges nothing", async () => {
    const owner = member(await insertAccount(dataSource, "owner"));
    const strangerId = await insertAccount(dataSource, "stranger");
    const stranger = member(strangerId);
    const { conversationId, reply, usage } = await chat.send(owner, { message: "Hello", resultId: randomUUID() });
    expect(reply).toMatchObject({ conversationId, role: "assistant", content: "An answer." });
    expect(usage).toEqual({ credits: 1 });

    await expect(chat.conversation(stranger, conversationId, undefined, undefined)).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(chat.send(stranger, { message: "Hijack", conversationId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await ledger.usage(strangerId)).chatMessages.used).toBe(0);
  });

  it("talks about a product's newest result only once it has one", async () => {
    const accountId = await insertAccount(dataSource, "maker");
    const [product] = (await dataSource.query(
      `INSERT INTO products (account_id, url, name) VALUES ($1, 'https://example.test', 'example') RETURNING id`,
      [accountId],
    )) as Array<{ id: string }>;
    await expect(chat.send(member(accountId), { message: "How is it?", productId: product!.id })).rejects.toMatchObject(
      { code: "VALIDATION_FAILED" },
    );
    await expect(
      chat.send(member(await insertAccount(dataSource, "other")), { message: "How is it?", productId: product!.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await ledger.usage(accountId)).chatMessages.used).toBe(0);
  });
});

describe("ChatService.refundAbandoned: a chat whose process died between charge and reply", () => {
  const later = () => new Date(Date.now() + ABANDONED_AFTER_MS + 60_000);
  const questionsOf = async (accountId: string) =>
    (await dataSource.query(
      `SELECT m.outcome FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
        WHERE c.account_id = $1 AND m.role = 'user'`,
      [accountId],
    )) as Array<{ outcome: string | null }>;

  it("gives the credit back once, 10 minutes on, and leaves a reply stored late unrefunded", async () => {
    const accountId = await insertAccount(dataSource, "dies-mid-reply");
    const before = await ledger.usage(accountId);
    let finish: (reply: { content: string; citations: [] }) => void = () => undefined;
    const hanging = chatWith({
      name: "deterministic",
      reply: () => new Promise((resolve) => (finish = resolve)),
    });
    // Charged, question stored; the model call never returns: as if the process died here.
    const lost = hanging.send(member(accountId), { message: "Still there?", resultId: randomUUID() });
    for (let i = 0; i < 100 && (await questionsOf(accountId)).length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await ledger.usage(accountId)).chatMessages.used).toBe(1);

    // Not before it is abandoned: a reply may still be on its way.
    expect(await chat.refundAbandoned(new Date())).toBe(0);
    expect(await chat.refundAbandoned(later())).toBeGreaterThanOrEqual(1);
    expect(await ledger.usage(accountId)).toEqual(before);
    expect(await questionsOf(accountId)).toEqual([{ outcome: "abandoned" }]);
    // Swept again (by this process or another): nothing more.
    expect(await chat.refundAbandoned(later())).toBe(0);
    expect(await ledger.usage(accountId)).toEqual(before);

    // The process was only frozen: its reply lands after the refund. It is stored; it is not charged again.
    finish({ content: "Late answer.", citations: [] });
    expect((await lost).reply.content).toBe("Late answer.");
    expect(await ledger.usage(accountId)).toEqual(before);
  });

  it("never refunds a chat that was replied to, nor one whose failure was settled by the refund rules", async () => {
    const repliedId = await insertAccount(dataSource, "replied");
    await chat.send(member(repliedId), { message: "Hello", resultId: randomUUID() });
    const failedId = await insertAccount(dataSource, "failed");
    const failing = chatWith({
      name: "deterministic",
      reply: async () => {
        throw new ChatEngineError("unusable", "The model's reply was unusable.");
      },
    });
    await expect(failing.send(member(failedId), { message: "Hello", resultId: randomUUID() })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
    });
    const [replied, failed] = [await ledger.usage(repliedId), await ledger.usage(failedId)];
    expect(await questionsOf(repliedId)).toEqual([{ outcome: "replied" }]);
    expect(await questionsOf(failedId)).toEqual([{ outcome: "failed" }]);
    await chat.refundAbandoned(later());
    expect(await ledger.usage(repliedId)).toEqual(replied);
    expect(await ledger.usage(failedId)).toEqual(failed);
  });

  it("keeps the charge of a reply whose commit went through though its acknowledgement was lost", async () => {
    const accountId = await insertAccount(dataSource, "lost-ack");
    /** The reply commits, then its caller hears an error: as when the connection drops after COMMIT. */
    class LostAcknowledgement extends ChatRepository {
      override async addReply(...args: Parameters<ChatRepository["addReply"]>): Promise<never> {
        await super.addReply(...args);
        throw new Error("Connection terminated unexpectedly");
      }
    }
    const lossy = chatWith(engine, new LostAcknowledgement(dataSource));
    await expect(lossy.send(member(accountId), { message: "Hello", resultId: randomUUID() })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringMatching(/stored/),
    });
    expect((await ledger.usage(accountId)).chatMessages.used).toBe(1);
    expect(await questionsOf(accountId)).toEqual([{ outcome: "replied" }]);
    expect(await chat.refundAbandoned(later())).toBe(0);
    expect((await ledger.usage(accountId)).chatMessages.used).toBe(1);
  });
});
