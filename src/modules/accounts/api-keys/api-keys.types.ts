import { Length } from "class-validator";
import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from "type-graphql";
import { MAX_API_KEY_NAME_LENGTH } from "../../../limits.js";

@ObjectType("ApiKey", {
  description:
    "A programmatic credential of the account (Business and Enterprise plans). Its secret is never shown again after creation.",
})
export class ApiKeyType {
  @Field(() => ID, { description: "The key's id, used to revoke it." })
  id: string;

  @Field(() => String, { description: "A name to recognise it by." })
  name: string;

  @Field(() => String, { description: "The first characters of the secret (pms_live_…), to tell keys apart." })
  prefix: string;

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
}
