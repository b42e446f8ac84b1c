import { Length } from "class-validator";
import { Field, GraphQLISODateTime, ID, InputType, ObjectType, registerEnumType } from "type-graphql";
import { MAX_API_KEY_NAME_LENGTH } from "../../../limits.js";
import type { ApiKeyMode } from "./api-key-secret.js";

/** Where a key works (docs/api.md §14); the values are the `mode` REST sends and answers. */
export enum ApiKeyModeEnum {
  live = "live",
  test = "test",
}
registerEnumType(ApiKeyModeEnum, {
  name: "ApiKeyMode",
  description: "Where an API key works; its secret's prefix says the same (pms_live_ or pms_test_).",
  valuesConfig: {
    live: { description: "pms_live_…: works everywhere; Business and Enterprise plans." },
    test: {
      description:
        "pms_test_…: any plan, made and accepted only by a service outside production; charged as a session is (no API-call metering).",
    },
  },
});

@ObjectType("ApiKey", {
  description:
    "A programmatic credential of the account (live: Business and Enterprise plans; test: any plan, outside production). Its secret is never shown again after creation.",
})
export class ApiKeyType {
  @Field(() => ID, { description: "The key's id, used to revoke it." })
  id: string;

  @Field(() => String, { description: "A name to recognise it by." })
  name: string;

  @Field(() => String, {
    description: "The first characters of the secret (pms_live_… or pms_test_…), to tell keys apart.",
  })
  prefix: string;

  @Field(() => ApiKeyModeEnum, { description: "live or test: where the key works." })
  mode: ApiKeyMode;

  @Field(() => GraphQLISODateTime, { description: "When it was created." })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description: "When it last authenticated a request (to the minute); null if never.",
  })
  lastUsedAt: Date | null;
}

@ObjectType({ description: "A newly created key with its secret: the only time the secret is shown." })
export class CreatedApiKey {
  @Field(() => ApiKeyType, { description: "The key." })
  key: ApiKeyType;

  @Field(() => String, {
    nullable: true,
    description:
      "The secret to send as 'Authorization: Bearer <secret>'. Store it now: it is not stored readable. Null in a replay of the creation (same Idempotency-Key): the secret is shown in the first answer only.",
  })
  secret: string | null;
}

@ObjectType({ description: "The account's active API keys, newest first. REST: GET /api/keys." })
export class ApiKeyList {
  @Field(() => [ApiKeyType], { description: "Active keys." })
  keys: ApiKeyType[];
}

@InputType({ description: "A new API key." })
export class CreateApiKeyInput {
  @Field(() => String, { description: "A name to recognise the key by, 1 to 100 characters." })
  @Length(1, MAX_API_KEY_NAME_LENGTH)
  name: string;

  @Field(() => ApiKeyModeEnum, {
    defaultValue: ApiKeyModeEnum.live,
    description:
      "live (the default; Business and Enterprise) or test (any plan; only on a service outside production).",
  })
  mode: ApiKeyModeEnum;
}
