import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedMember } from "../../support/api-key.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Idempotency-Key on every POST that creates something (docs/api.md §14), through both
 * doors and one store: a replay answers what the first request made, marked
 * `Idempotent-Replayed: true`, and makes (and charges) nothing more.
 */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;

beforeAll(async () => {
  service = await startScoringApp();
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(() => service?.close());

const sql = (text: string, values: unknown[] = []) =>
  service.app.database.dataSource.query(text, values) as Promise<Array<Record<string, unknown>>>;
const post = (path: string, body: unknown, caller: { cookie?: string; bearer?: string }, key?: string) =>
  api(path, { method: "POST", body, ...caller, ...(key ? { headers: { "idempotency-key": key } } : {}) });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; retryable: boolean } }).error,
});
const count = async (text: string, values: unknown[]) => Number((await sql(text, values))[0]!.n);

describe("POST /api/keys with an Idempotency-Key", () => {
  it("replays the same key without minting a second secret; another body is a 409", async () => {
    const ada = await signIn(service, "ada@idem.test");
    await sql("UPDATE accounts SET plan = 'business' WHERE id = $1", [ada.accountId]);
    const first = await post("/api/keys", { name: "deploy" }, ada, "key-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const created = await first.json();
    expect(created.secret).toMatch(/^pms_live_/);

    const replay = await post("/api/keys", { name: "deploy" }, ada, "key-1");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // The same key; its secret was shown once and is not stored readable, so the replay has none.
    expect(await replay.json()).toEqual({ key: created.key, secret: null });
    expect(await count(`SELECT count(*) AS n FROM api_keys WHERE account_id = $1`, [ada.accountId])).toBe(1);

    expect(await errorOf(await post("/api/keys", { name: "other" }, ada, "key-1"))).toMatchObject({
      status: 409,
      code: "IDEMPOTENCY_CONFLICT",
    });
    // The same key over GraphQL is the same request: replayed, and said so in the answer's extensions.
    const overGraphQL = (await graphql(
      `
        mutation ($input: CreateApiKeyInput!) {
          createApiKey(input: $input) {
            key {
              id
            }
            secret
          }
        }
      `,
      { input: { name: "deploy" } },
      { cookie: ada.cookie, headers: { "idempotency-key": "key-1" } },
    )) as { data: { createApiKey: { key: { id: string }; secret: string | null } }; extensions?: unknown };
    expect(overGraphQL.data.createApiKey).toEqual({ key: { id: created.key.id }, secret: null });
    expect(overGraphQL.extensions).toEqual({ idempotentReplayed: true });
  });
});

describe("POST /api/webhooks with an Idempotency-Key", () => {
  it("creates one webhook for concurrent identical requests, and keys of different accounts are independent", async () => {
    const [bea, cy] = [await signIn(service, "bea@idem.test"), await signIn(service, "cy@idem.test")];
    const body = { url: "https://127.0.0.1/pms-hook" };
    const answers = await Promise.all([1, 2, 3, 4].map(() => post("/api/webhooks", body, bea, "hook-1")));
    const outcomes = await Promise.all(
      answers.map(async (answer) => {
        const json = await answer.json();
        return answer.status === 201
          ? { id: json.webhook.id as string, secret: json.webhook.secret as string }
          : { code: json.error.code as string };
      }),
    );
    // Each is the one webhook: a duplicate waits for the first's commit (the key commits with the webhook) and
    // replays it, never a second webhook and never "in progress".
    const made = outcomes.filter((outcome) => "id" in outcome);
    expect(made).toHaveLength(4);
    expect(new Set(made.map((outcome) => outcome.id)).size).toBe(1);
    expect(new Set(made.map((outcome) => outcome.secret)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get("idempotent-replayed") === "true")).toHaveLength(3);
    expect(await count(`SELECT count(*) AS n FROM webhooks WHERE account_id = $1`, [bea.accountId])).toBe(1);

    // Once it answered, a retry replays it.
    const replay = await post("/api/webhooks", body, bea, "hook-1");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await replay.json()).webhook.id).toBe(made[0]!.id);

    // Another account with the same key makes its own.
    const other = await post("/api/webhooks", body, cy, "hook-1");
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect((await other.json()).webhook.id).not.toBe(made[0]!.id);
    expect(await count(`SELECT count(*) AS n FROM webhooks WHERE account_id = $1`, [cy.accountId])).toBe(1);
  });

  it("replays the first of two concurrent identical requests for the account's last webhook slot, not a limit error", async () => {
    const eve = await signIn(service, "eve@idem.test");
    for (let i = 0; i < 9; i += 1)
      expect((await post("/api/webhooks", { url: `https://127.0.0.1/pms-hook-${i}` }, eve)).status).toBe(201);
    const body = { url: "https://127.0.0.1/pms-hook-last" };
    const answers = await Promise.all([1, 2].map(() => post("/api/webhooks", body, eve, "hook-last")));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const ids = await Promise.all(answers.map(async (answer) => (await answer.json()).webhook.id as string));
    expect(ids[0]).toBe(ids[1]);
    expect(await count(`SELECT count(*) AS n FROM webhooks WHERE account_id = $1`, [eve.accountId])).toBe(10);
  });

  it("forgets the key of a refused request, so a retry with it is a first request", async () => {
    const dot = await signIn(service, "dot@idem.test");
    const refused = await post("/api/webhooks", { url: "http://plain.example.com/" }, dot, "hook-2");
    expect(refused.status).toBe(400);
    const retried = await post("/api/webhooks", { url: "http://plain.example.com/" }, dot, "hook-2");
    expect(await errorOf(retried)).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE scope = $1`, [dot.accountId])).toBe(0);
  });
});

describe("POST /api/chat with an Idempotency-Key", () => {
  it("replays the reply: no second charge, no second model call", async () => {
    const eve = await keyedMember(service, "eve@idem.test");
    const scored = await post("/api/score/quick", { url: service.siteUrl("leader.test") }, eve);
    expect(scored.status).toBe(200);
    const resultId = (await scored.json()).id as string;
    const body = { message: "What would raise our pricing score?", resultId };

    const first = await post("/api/chat", body, { bearer: eve.apiKey }, "chat-1");
    expect(first.status).toBe(200);
    const answer = await first.json();
    const replay = await post("/api/chat", body, { bearer: eve.apiKey }, "chat-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(answer);

    const usage = await (await api("/api/usage", { cookie: eve.cookie })).json();
    expect(usage.chatMessages.used).toBe(1);
    // One question and one reply: the model was asked once.
    expect(
      await count(`SELECT count(*) AS n FROM chat_messages WHERE conversation_id = $1`, [answer.conversationId]),
    ).toBe(2);
    expect(
      await count(`SELECT count(*) AS n FROM credit_entries WHERE account_id = $1 AND action = 'chat'`, [
        eve.accountId,
      ]),
    ).toBe(1);
  });
});

describe("checkout and invitations with an Idempotency-Key", () => {
  it("replays the same checkout session and the same invitation", async () => {
    const fin: Caller = await signIn(service, "fin@idem.test");
    const checkout = await post("/api/billing/checkout", { plan: "pro" }, fin, "buy-1");
    expect(checkout.status).toBe(201);
    const started = await checkout.json();
    const again = await post("/api/billing/checkout", { plan: "pro" }, fin, "buy-1");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(started);
    expect(await count(`SELECT count(*) AS n FROM checkout_sessions WHERE account_id = $1`, [fin.accountId])).toBe(1);
    expect(await errorOf(await post("/api/billing/checkout", { pack: "small" }, fin, "buy-1"))).toMatchObject({
      status: 409,
      code: "IDEMPOTENCY_CONFLICT",
    });

    await sql("UPDATE accounts SET plan = 'business' WHERE id = $1", [fin.accountId]);
    const invited = await post("/api/members/invitations", { email: "gil@idem.test" }, fin, "invite-1");
    expect(invited.status).toBe(201);
    const replay = await post("/api/members/invitations", { email: "gil@idem.test" }, fin, "invite-1");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(await invited.json());
    expect(await count(`SELECT count(*) AS n FROM invitations WHERE account_id = $1`, [fin.accountId])).toBe(1);
  });
});
