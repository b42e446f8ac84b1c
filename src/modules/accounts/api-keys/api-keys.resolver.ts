import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from "type-graphql";
import { idempotentCall, type GraphQLContext } from "../../../graphql/context.js";
import type { IdempotentRequests } from "../../idempotency/idempotent-requests.js";
import {
  CurrentMember,
  SessionMember,
  type Member,
  type MemberBySession,
} from "../../../graphql/decorators/current-member.js";
import type { ApiKeysService } from "./api-keys.service.js";
import { ApiKeyList, ApiKeyType, CreatedApiKey, CreateApiKeyInput } from "./api-keys.types.js";

@Resolver(() => ApiKeyType)
export class ApiKeysResolver {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @Authorized()
  @Query(() => ApiKeyList, { description: "The account's active API keys. REST: GET /api/keys." })
  async apiKeys(@CurrentMember() member: Member): Promise<ApiKeyList> {
    return { keys: await this.keys.list(member.accountId) };
  }

  @Authorized("session")
  @Mutation(() => CreatedApiKey, {
    description:
      "Creates an API key (signed-in session): live on Business and Enterprise plans, test on any plan outside production. Honours Idempotency-Key: a replay answers the same key without its secret. REST: POST /api/keys.",
  })
  async createApiKey(
    @Arg("input", () => CreateApiKeyInput, { description: "The new key's name and mode." }) input: CreateApiKeyInput,
    @SessionMember() member: MemberBySession,
    @Ctx() context: GraphQLContext,
  ): Promise<CreatedApiKey> {
    return this.idempotency.onceAtomic<CreatedApiKey>(
      idempotentCall(context),
      member.accountId,
      "api_key.create",
      // A live key's request is fingerprinted as before test keys existed.
      input.mode === "test" ? { name: input.name, mode: input.mode } : { name: input.name },
      {
        run: async (record) => {
          const created = await this.keys.create(member.accountId, member.userId, input.name, input.mode, record);
          return { answer: created, resourceId: created.key.id };
        },
        replay: (id) => this.keys.created(member.accountId, id),
      },
    );
  }

  @Authorized("session")
  @Mutation(() => ApiKeyType, { description: "Revokes an API key at once. REST: DELETE /api/keys/{id} (204)." })
  async revokeApiKey(
    @Arg("id", () => ID, { description: "The key's id." }) id: string,
    @SessionMember() member: MemberBySession,
  ): Promise<ApiKeyType> {
    return this.keys.revoke(member.accountId, id);
  }
}
