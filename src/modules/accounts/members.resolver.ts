import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from "type-graphql";
import { idempotentCall, type GraphQLContext } from "../../graphql/context.js";
import type { IdempotentRequests } from "../idempotency/idempotent-requests.js";
import {
  CurrentMember,
  SessionMember,
  type Member,
  type MemberBySession,
} from "../../graphql/decorators/current-member.js";
import type { MembersService } from "./members.service.js";
import { CreatedInvitation, InvitationType, InviteMemberInput, MemberList, MemberType } from "./members.types.js";

@Resolver(() => MemberType)
export class MembersResolver {
  constructor(
    private readonly service: MembersService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @Authorized()
  @Query(() => MemberList, { description: "The account's members and pending invitations. REST: GET /api/members." })
  async members(@CurrentMember() member: Member): Promise<MemberList> {
    return this.service.list(member.accountId);
  }

  @Authorized("session")
  @Mutation(() => CreatedInvitation, {
    description:
      "Offers a seat to an e-mail address (signed-in session); PLAN_LIMIT_REACHED when every seat is taken. Honours Idempotency-Key. REST: POST /api/members/invitations.",
  })
  async inviteMember(
    @Arg("input", () => InviteMemberInput, { description: "Who to invite." }) input: InviteMemberInput,
    @SessionMember() member: MemberBySession,
    @Ctx() context: GraphQLContext,
  ): Promise<CreatedInvitation> {
    const invitation = await this.idempotency.onceAtomic(
      idempotentCall(context),
      member.accountId,
      "invitation.create",
      { email: input.email },
      {
        run: async (record) => {
          const invited = await this.service.invite(member.accountId, member.userId, input.email, record);
          return { answer: invited, resourceId: invited.id };
        },
        replay: (id) => this.service.invitation(member.accountId, id),
      },
    );
    return { invitation };
  }

  @Authorized("session")
  @Mutation(() => InvitationType, {
    description: "Cancels a pending invitation, freeing its seat. REST: DELETE /api/members/invitations/{id} (204).",
  })
  async cancelInvitation(
    @Arg("id", () => ID, { description: "The invitation's id." }) id: string,
    @SessionMember() member: MemberBySession,
  ): Promise<InvitationType> {
    return this.service.cancelInvitation(member.accountId, id);
  }

  @Authorized("session")
  @Mutation(() => MemberType, {
    description:
      "Removes another member from the account at once, freeing the seat. REST: DELETE /api/members/{id} (204).",
  })
  async removeMember(
    @Arg("id", () => ID, { description: "The member's user id." }) id: string,
    @SessionMember() member: MemberBySession,
  ): Promise<MemberType> {
    return this.service.remove(member.accountId, member.userId, id);
  }
}
