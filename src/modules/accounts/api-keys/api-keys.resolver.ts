import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from "type-graphql";
import type { GraphQLContext } from "../../../graphql/context.js";
import { requireMember, requireSessionMember } from "../viewer.js";
import type { ApiKeysService } from "./api-keys.service.js";
import { ApiKeyList, ApiKeyType, CreatedApiKey, CreateApiKeyInput } from "./api-keys.types.js";

@Resolver(() => ApiKeyType)
export class ApiKeysResolver {
  constructor(private readonly keys: ApiKeysService) {}

  @Authorized()
  @Query(() => ApiKeyList, { description: "The account's active API keys. REST: GET /api/keys." })
  async apiKeys(@Ctx() context: GraphQLContext): Promise<ApiKeyList> {
    const member = requireMember(await context.viewer());
    return { keys: await this.keys.list(member.accountId) };
  }

  @Authorized()
  @Mutation(() => CreatedApiKey, { description: "Creates an API key (signed-in session; Business and Enterprise plans). REST: POST /api/keys." })
  async createApiKey(@Arg("input", () => CreateApiKeyInput, { description: "The new key's name." }) input: CreateApiKeyInput, @Ctx() context: GraphQLContext): Promise<CreatedApiKey> {
    const member = requireSessionMember(await context.viewer());
    return this.keys.create(member.accountId, member.userId, input.name);
  }

  @Authorized()
  @Mutation(() => ApiKeyType, { description: "Revokes an API key at once. REST: DELETE /api/keys/{id} (204)." })
  async revokeApiKey(@Arg("id", () => ID, { description: "The key's id." }) id: string, @Ctx() context: GraphQLContext): Promise<ApiKeyType> {
    const member = requireSessionMember(await context.viewer());
    return this.keys.revoke(member.accountId, id);
  }
}
