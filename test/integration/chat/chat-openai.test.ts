import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { startFakeOpenAiChat, type FakeOpenAiChat } from "../../support/fake-openai-chat.js";
import { apiClient, signIn, type Caller } from "../../support/http.js";
import { wsClient } from "../../support/progress.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * The LLM chat engine: the real `openai` client against a local server speaking the
 * Chat Completions protocol (a streamed answer, a 429, a malformed stream). Scoring
 * stays heuristic so only chat talks to the fake.
 */
let fake: FakeOpenAiChat;
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let owner: Caller;
let result: { id: string; dimensions: Array<{ dimensionId: string; evidenceItems: Array<{ url: string | null; text: string }> }> };

beforeAll(async () => {
  fake = await startFakeOpenAiChat();
  service = await startScoringApp({ env: { OPENAI_API_KEY: "sk-test-chat", OPENAI_BASE_URL: fake.baseUrl, CHAT_MODEL: "gpt-test-chat" }, scorer: new HeuristicScorer() });
  api = apiClient(service);
  owner = await signIn(service, "owner@llm-chat.test");
  const scored = await api("/api/score/quick", { method: "POST", cookie: owner.cookie, body: { url: service.siteUrl("leader.test") } });
  expect(scored.status).toBe(200);
  result = await scored.json();
});
afterAll(async () => {
  await service?.close();
  await fake?.close();
});

const chat = (body: unknown) => api("/api/chat", { method: "POST", cookie: owner.cookie, body });
const usage = async () => (await api("/api/usage", { cookie: owner.cookie })).json();

describe("chat with the OpenAI engine", () => {
  it("streams the model's answer, keeps citations of evidence that exists and drops the rest, and sends the result as context", async () => {
    const withEvidence = result.dimensions.find((dimension) => dimension.evidenceItems.length > 0)!;
    fake.script({ kind: "stream", tokens: ["Your pricing ", `is public [[${withEvidence.dimensionId}]]`, " and clear [[made_up_dimension]]."] });
    const response = await chat({ message: "Is our pricing clear?", resultId: result.id });
    expect(response.status).toBe(200);
    const answer = await response.json();
    expect(answer.reply.content).toBe("Your pricing is public  and clear .");
    expect(answer.reply.citations).toEqual([{ dimensionId: withEvidence.dimensionId, url: withEvidence.evidenceItems.find((item) => item.url)?.url ?? withEvidence.evidenceItems[0]!.url ?? null, quote: expect.any(String) }]);
    const sent = fake.requests.at(-1)!;
    expect(sent.authorization).toBe("Bearer sk-test-chat");
    expect(sent.body).toMatchObject({ model: "gpt-test-chat", stream: true, max_tokens: 700 });
    const messages = sent.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).toBe("system");
    expect(messages[0]!.content).toContain('"id":"pricing_packaging"');
    expect(messages.at(-1)).toEqual({ role: "user", content: "Is our pricing clear?" });
  });

  it("refunds a reply the model could not give (429, then a malformed stream): 503, nothing charged, nothing stored as a reply", async () => {
    const before = await usage();
    fake.script({ kind: "rate_limited" });
    const limited = await chat({ message: "And security?", resultId: result.id });
    expect(limited.status).toBe(503);
    expect((await limited.json()).error).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: true });
    fake.script({ kind: "malformed" });
    const malformed = await chat({ message: "And docs?", resultId: result.id });
    expect(malformed.status).toBe(503);
    const after = await usage();
    expect([after.credits.used, after.chatMessages.used]).toEqual([before.credits.used, before.chatMessages.used]);
    const [{ n }] = await service.app.database.dataSource.query(
      `SELECT count(*)::int AS n FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id WHERE c.account_id = $1 AND m.role = 'assistant'`,
      [owner.accountId],
    );
    expect(n).toBe(1);
  });

  it("streams the reply's tokens over the chatReply subscription, then the stored reply", async () => {
    fake.script({ kind: "stream", tokens: ["Docs ", "are ", "thorough."] });
    const client = wsClient(service.url, { cookie: owner.cookie });
    const events: Array<{ token: string | null; done: boolean; reply: { content: string } | null }> = [];
    try {
      await new Promise<void>((resolve, reject) => {
        client.subscribe(
          { query: `subscription($input: SendChatMessageInput!) { chatReply(input: $input) { token done conversationId reply { content } } }`, variables: { input: { message: "How are our docs?", resultId: result.id } } },
          { next: (message) => void events.push((message.data as { chatReply: (typeof events)[number] }).chatReply), error: reject, complete: resolve },
        );
      });
    } finally {
      await client.dispose();
    }
    expect(events.filter((event) => !event.done).map((event) => event.token)).toEqual(["Docs ", "are ", "thorough."]);
    expect(events.at(-1)).toMatchObject({ done: true, token: null, reply: { content: "Docs are thorough." } });
  });
});
