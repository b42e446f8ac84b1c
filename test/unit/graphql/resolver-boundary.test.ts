import "reflect-metadata";
import { validate } from "class-validator";
import { ArgumentValidationError, type ResolverData } from "type-graphql";
import { describe, expect, it } from "vitest";
import { AppError, toAppError } from "../../../src/errors.js";
import { authChecker, type Role } from "../../../src/graphql/auth-checker.js";
import type { GraphQLContext } from "../../../src/graphql/context.js";
import { PageArgs, WordedPageArgs } from "../../../src/graphql/page.args.js";
import { ANONYMOUS, type Viewer } from "../../../src/modules/accounts/viewer.js";
import { SendChatMessageInput } from "../../../src/modules/chat/chat.types.js";
import { pageLimit } from "../../../src/db/keyset-page.js";
import { ScoreInput, StartScoreInput } from "../../../src/modules/score/score.types.js";
import { CreateWebhookInput, UpdateWebhookInput } from "../../../src/modules/webhooks/webhooks.types.js";

const session: Viewer = { kind: "member", accountId: "a", userId: "u", via: "session" };
const apiKey: Viewer = { kind: "member", accountId: "a", apiKeyId: "k", via: "api_key", keyMode: "live" };

function check(viewer: Viewer, roles: string[]) {
  let charged = 0;
  const context = { viewer: async () => (charged++, viewer) } as unknown as GraphQLContext;
  const checked = (authChecker as (data: ResolverData<GraphQLContext>, roles: Role[]) => Promise<boolean>)(
    { context } as ResolverData<GraphQLContext>,
    roles as Role[],
  );
  return { checked, charged: () => charged };
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return error instanceof AppError ? { code: error.code, message: error.message } : error;
}

/** The "field: message" a failed argument class answers, through the same conversion as every door. */
async function validationMessage(input: object): Promise<string | undefined> {
  const errors = await validate(input, { skipMissingProperties: true, forbidUnknownValues: false });
  return errors.length === 0 ? undefined : toAppError(new ArgumentValidationError(errors)).message;
}

describe("authChecker", () => {
  it("@Authorized() lets any member through and refuses anonymous callers with AUTH_REQUIRED", async () => {
    expect(await check(session, []).checked).toBe(true);
    expect(await check(apiKey, []).checked).toBe(true);
    expect(await refusal(check(ANONYMOUS, []).checked)).toEqual({
      code: "AUTH_REQUIRED",
      message: "This operation needs a signed-in session or an API key.",
    });
  });

  it('@Authorized("session") refuses an API key with FORBIDDEN (after reading, so charging, its call) and anonymous callers with AUTH_REQUIRED', async () => {
    expect(await check(session, ["session"]).checked).toBe(true);
    const byKey = check(apiKey, ["session"]);
    expect(await refusal(byKey.checked)).toEqual({
      code: "FORBIDDEN",
      message: "This operation needs a signed-in session, not an API key.",
    });
    expect(byKey.charged()).toBe(1);
    expect(await refusal(check(ANONYMOUS, ["session"]).checked)).toMatchObject({ code: "AUTH_REQUIRED" });
  });

  it("fails closed on a role it does not know", async () => {
    await expect(check(session, ["admin"]).checked).rejects.toThrow(/unknown role "admin"/);
  });
});

describe("PageArgs", () => {
  it("accepts 1 to 100, absent or null, and sizes an absent limit at 20", async () => {
    for (const limit of [1, 20, 100, null, undefined]) {
      expect(await validationMessage(Object.assign(new PageArgs(), { limit }))).toBeUndefined();
    }
    expect(Object.assign(new PageArgs(), { limit: null }).size).toBe(20);
    expect(Object.assign(new PageArgs(), { limit: 7 }).size).toBe(7);
  });

  it("refuses other limits with the message pageLimit gives, on both wordings", async () => {
    const message = (() => {
      try {
        pageLimit(0);
      } catch (error) {
        return (error as AppError).message;
      }
    })();
    expect(message).toBe("limit: must be a whole number from 1 to 100");
    for (const limit of [0, -1, 101, 1.5]) {
      expect(await validationMessage(Object.assign(new PageArgs(), { limit }))).toBe(message);
      expect(await validationMessage(Object.assign(new WordedPageArgs(), { limit }))).toBe(message);
    }
  });
});

describe("input limits", () => {
  it("refuse over-long fields with the services' own words", async () => {
    const long = (length: number) => "x".repeat(length);
    expect(await validationMessage(Object.assign(new ScoreInput(), { url: long(2048) }))).toBeUndefined();
    expect(await validationMessage(Object.assign(new ScoreInput(), { url: long(2049) }))).toBe(
      "url: must be at most 2048 characters",
    );
    expect(
      await validationMessage(
        Object.assign(new StartScoreInput(), { url: "https://example.com", context: long(5001) }),
      ),
    ).toBe("context: must be at most 5000 characters");
    expect(await validationMessage(Object.assign(new CreateWebhookInput(), { url: long(2049) }))).toBe(
      "url: must be at most 2048 characters",
    );
    expect(await validationMessage(Object.assign(new UpdateWebhookInput(), { url: null }))).toBeUndefined();
    expect(await validationMessage(Object.assign(new SendChatMessageInput(), { message: long(4001) }))).toBe(
      "message: must be at most 4000 characters",
    );
    expect(await validationMessage(Object.assign(new SendChatMessageInput(), { message: long(4000) }))).toBeUndefined();
  });
});
