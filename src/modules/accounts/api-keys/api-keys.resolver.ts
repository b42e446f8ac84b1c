import { Arg, Authorized, ID, Mutation, Query, Resolver } from "type-graphql";
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
  constructor(private readonly keys: ApiKeysService) {}

  @Authorized()
  @Query(() => ApiKeyList, { description: "The account's active API keys. REST: GET /api/keys." })
  async apiKeys(@CurrentMember() member: Member): Promise<ApiKeyList> {
    return { keys: await this.keys.list(member.accountId) };
  }

  @Authorized("session")
  @Mutation(() => CreatedApiKey, {
    description:
      "Creates an API key (signed-in session): live on Business and Enterprise plans, test on any plan outside production. REST: POST /api/keys.",
  })
  async createApiKey(
    @Arg("input", () => CreateApiKeyInput, { description: "The new key's name and mode." }) input: CreateApiKeyInput,
    @SessionMember() member: MemberBySession,
  ): Promise<CreatedApiKey> {
    return this.keys.create(member.accountId, member.userId, input.name, input.mode);
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
