import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { wsClient } from "../../support/progress.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/** Chat with the deterministic engine (no OPENAI_API_KEY): charging, limits, access, conversations. */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;
let owner: Caller;
let productId: string;
let result: {
  id: string;
  dimensions: Array<{ dimensionId: string; score: number; evidenceItems: Array<{ url: string | null; text: string }> }>;
};

beforeAll(async () => {
  service = await startScoringApp();
  api = apiClient(service);
  graphql = graphqlClient(service);
  owner = await signIn(service, "owner@chat.test");
  const scored = await api("/api/score/product", {
    method: "POST",
    cookie: owner.cookie,
    body: { url: service.siteUrl("leader.test") },
  });
  expect(scored.status).toBe(200);
  result = await scored.json();
  productId = (result as unknown as { productId: string }).productId;
});
afterAll(() => service?.close());

const chat = (caller: { cookie?: string; bearer?: string }, body: unknown) =>
  api("/api/chat", { method: "POST", ...caller, body });
const usageOf = async (caller: Caller) => (await api("/api/usage", { cookie: caller.cookie })).json();
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});
const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);

describe("chat", () => {
  it("answers from the stored score with citations of real evidence, charging exactly 1 credit and 1 chat message", async () => {
    const before = await usageOf(owner);
    const response = await chat(owner, { message: "How is our pricing doing, and what would raise it?", productId });
    expect(response.status).toBe(200);
    const answer = await response.json();
    expect(answer).toMatchObject({
      conversationId: expect.any(String),
      reply: { role: "assistant", content: expect.stringMatching(/Pricing & Packaging: \d+\/100/) },
      usage: { credits: 1 },
    });
    const pricing = result.dimensions.find((dimension) => dimension.dimensionId === "pricing_packaging")!;
    expect(answer.reply.content).toContain(`Pricing & Packaging: ${pricing.score}/100`);
    for (const citation of answer.reply.citations) {
      const dimension = result.dimensions.find((candidate) => candidate.dimensionId === citation.dimensionId)!;
      expect(
        dimension.evidenceItems.some((item) => item.text === citation.quote && (item.url ?? null) === citation.url),
      ).toBe(true);
    }
    expect(answer.reply.citations.map((citation: { dimensionId: string }) => citation.dimensionId)).toContain(
      "pricing_packaging",
    );
    const after = await usageOf(owner);
    expect(after.credits.used - before.credits.used).toBe(1);
    expect(after.chatMessages.used - before.chatMessages.used).toBe(1);

    // The same question about the same result gets the same answer.
    const again = await (
      await chat(owner, { message: "How is our pricing doing, and what would raise it?", resultId: result.id })
    ).json();
    expect(again.reply.content).toBe(answer.reply.content);
  });

  it("answers about gaps in the result's own gap order, and keeps the conversation readable over REST and GraphQL", async () => {
    const first = await (await chat(owner, { message: "What should we work on first?", resultId: result.id })).json();
    expect(first.reply.content).toMatch(/^The weakest areas/);
    const second = await (
      await chat(owner, { message: "And our strengths?", conversationId: first.conversationId })
    ).json();
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.reply.content).toMatch(/^The strongest areas/);

    const read = await (await api(`/api/chat/${first.conversationId}`, { cookie: owner.cookie })).json();
    expect(read).toMatchObject({ conversationId: first.conversationId, resultId: result.id, nextCursor: null });
    expect(read.messages.map((message: { role: string }) => message.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    const viaGraphql = await graphql(
      `
        query ($id: ID!) {
          conversation(id: $id, limit: 2) {
            id
            messages {
              role
              content
            }
            nextCursor
          }
        }
      `,
      { id: first.conversationId },
      { cookie: owner.cookie },
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect(
      (viaGraphql.data as { conversation: { messages: unknown[]; nextCursor: string | null } }).conversation.messages,
    ).toHaveLength(2);
    expect((viaGraphql.data as { conversation: { nextCursor: string | null } }).conversation.nextCursor).not.toBeNull();
  });

  it("pages a conversation one message at a time without losing messages written in the same millisecond", async () => {
    const first = await (await chat(owner, { message: "What should we work on first?", resultId: result.id })).json();
    await chat(owner, { message: "And our strengths?", conversationId: first.conversationId });
    // Four messages in one millisecond, microseconds apart (as writes in one transaction, or close ones, can be).
    const ids = (
      (await service.app.database.dataSource.query(`SELECT id FROM chat_messages WHERE conversation_id = $1`, [
        first.conversationId,
      ])) as Array<{ id: string }>
    ).map((row) => row.id);
    expect(ids).toHaveLength(4);
    for (const [index, id] of ids.entries()) {
      await service.app.database.dataSource.query(
        `UPDATE chat_messages SET created_at = $2::timestamptz WHERE id = $1`,
        [id, `2026-01-01T00:00:00.123${100 + index * 200}Z`],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (
        await api(`/api/chat/${first.conversationId}?limit=1${cursor ? `&cursor=${cursor}` : ""}`, {
          cookie: owner.cookie,
        })
      ).json()) as { messages: Array<{ id: string }>; nextCursor: string | null };
      seen.push(...page.messages.map((message) => message.id));
      cursor = page.nextCursor;
    } while (cursor && seen.length < 10);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("refuses anonymous callers (401), empty or oversized messages and a missing subject (400), another account's product or conversation (404), charging nothing", async () => {
    const other = await signIn(service, "other@chat.test");
    const before = await usageOf(other);
    expect((await chat({}, { message: "hi", resultId: result.id })).status).toBe(401);
    expect(await errorOf(await chat(other, { message: "x".repeat(4_001), resultId: result.id }))).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/^message: /),
    });
    expect(await errorOf(await chat(other, { message: "  ", resultId: result.id }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^message: /),
    });
    expect(await errorOf(await chat(other, { message: "hi" }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^resultId: /),
    });
    expect(await errorOf(await chat(other, { message: "hi", productId }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    const { conversationId } = await (await chat(owner, { message: "Overall?", resultId: result.id })).json();
    expect(await errorOf(await chat(other, { message: "hi", conversationId }))).toMatchObject({ status: 404 });
    expect((await api(`/api/chat/${conversationId}`, { cookie: other.cookie })).status).toBe(404);
    expect((await usageOf(other)).chatMessages.used).toBe(before.chatMessages.used);
  });

  it("refuses the 31st message in 60 s with 429 and Retry-After: 60, charging nothing", async () => {
    const busy = await signIn(service, "busy@chat.test");
    for (let i = 0; i < 30; i += 1)
      expect((await chat(busy, { message: `question ${i}`, resultId: result.id })).status, `message ${i + 1}`).toBe(
        200,
      );
    const before = await usageOf(busy);
    const refused = await chat(busy, { message: "one more", resultId: result.id });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await refused.json()).error.message).toMatch(/chat messages/);
    const after = await usageOf(busy);
    expect([after.credits.used, after.chatMessages.used]).toEqual([before.credits.used, before.chatMessages.used]);
    expect(after.chatMessages.used).toBe(30);
  });

  it("refuses Free's 31st chat of the month with QUOTA_EXCEEDED, charging nothing", async () => {
    const thrifty = await signIn(service, "thrifty@chat.test");
    expect((await chat(thrifty, { message: "first", resultId: result.id })).status).toBe(200);
    await sql(`UPDATE credit_balances SET chat_count = 30 WHERE account_id = $1`, [thrifty.accountId]);
    const before = await usageOf(thrifty);
    expect(await errorOf(await chat(thrifty, { message: "thirty-first", resultId: result.id }))).toMatchObject({
      status: 429,
      code: "QUOTA_EXCEEDED",
    });
    expect((await usageOf(thrifty)).credits.used).toBe(before.credits.used);
  });

  it("is one GraphQL mutation per operation, like scoring: two are refused before anything runs or is charged", async () => {
    const before = await usageOf(owner);
    const answer = await graphql(
      `
        mutation ($input: SendChatMessageInput!) {
          a: sendChatMessage(input: $input) {
            conversationId
          }
          b: sendChatMessage(input: $input) {
            conversationId
          }
        }
      `,
      { input: { message: "twice?", resultId: result.id } },
      { cookie: owner.cookie },
    );
    expect(answer.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
    expect(answer.errors?.[0]?.message).toMatch(/sendChatMessage/);
    expect(answer.data ?? null).toBeNull();
    expect((await usageOf(owner)).chatMessages.used).toBe(before.chatMessages.used);
  });

  it("streams the deterministic reply as one chunk over chatReply, and refuses an anonymous subscriber", async () => {
    const collect = async (headers: Record<string, string>) => {
      const client = wsClient(service.url, headers);
      const events: Array<{ token: string | null; done: boolean; reply: { content: string } | null }> = [];
      try {
        await new Promise<void>((resolve, reject) => {
          client.subscribe(
            {
              query: `subscription($input: SendChatMessageInput!) { chatReply(input: $input) { token done reply { content } } }`,
              variables: { input: { message: "What about our docs?", resultId: result.id } },
            },
            {
              next: (message) =>
                message.errors
                  ? reject(message.errors)
                  : void events.push((message.data as { chatReply: (typeof events)[number] }).chatReply),
              error: reject,
              complete: resolve,
            },
          );
        });
      } finally {
        await client.dispose();
      }
      return events;
    };
    const events = await collect({ cookie: owner.cookie });
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ done: true, reply: { content: events[0]!.token } });
    expect(events[0]!.token).toMatch(/Documentation Quality: \d+\/100/);
    await expect(collect({})).rejects.toBeDefined();
  });
});
