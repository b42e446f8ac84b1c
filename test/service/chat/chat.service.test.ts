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
  chat = new ChatService(
    new ChatRepository(dataSource),
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
    engine,
    silent,
  );
});
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
