import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from "type-graphql";
import type { GraphQLContext } from "../../graphql/context.js";
import type { MembersService } from "./members.service.js";
import { CreatedInvitation, InvitationType, InviteMemberInput, MemberList, MemberType } from "./members.types.js";
import { requireMember, requireSessionMember } from "./viewer.js";

@Resolver(() => MemberType)
export class MembersResolver {
  constructor(private readonly service: MembersService) {}

  @Authorized()
  @Query(() => MemberList, { description: "The account's members and pending invitations. REST: GET /api/members." })
  async members(@Ctx() context: GraphQLContext): Promise<MemberList> {
    const member = requireMember(await context.viewer());
    return this.service.list(member.accountId);
  }

  @Authorized()
  @Mutation(() => CreatedInvitation, {
    description: "Offers a seat to an e-mail address (signed-in session); PLAN_LIMIT_REACHED when every seat is taken. REST: POST /api/members/invitations.",
  })
  async inviteMember(
    @Arg("input", () => InviteMemberInput, { description: "Who to invite." }) input: InviteMemberInput,
    @Ctx() context: GraphQLContext,
  ): Promise<CreatedInvitation> {
    const member = requireSessionMember(await context.viewer());
    return { invitation: await this.service.invite(member.accountId, member.userId, input.email) };
  }

  @Authorized()
  @Mutation(() => InvitationType, { description: "Cancels a pending invitation, freeing its seat. REST: DELETE /api/members/invitations/{id} (204)." })
  async cancelInvitation(@Arg("id", () => ID, { description: "The invitation's id." }) id: string, @Ctx() context: GraphQLContext): Promise<InvitationType> {
    const member = requireSessionMember(await context.viewer());
    return this.service.cancelInvitation(member.accountId, id);
  }

  @Authorized()
  @Mutation(() => MemberType, { description: "Removes another member from the account at once, freeing the seat. REST: DELETE /api/members/{id} (204)." })
  async removeMember(@Arg("id", () => ID, { description: "The member's user id." }) id: string, @Ctx() context: GraphQLContext): Promise<MemberType> {
    const member = requireSessionMember(await context.viewer());
    return this.service.remove(member.accountId, member.userId, id);
  }
}
