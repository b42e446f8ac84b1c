import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from "type-graphql";

@ObjectType("Member", { description: "A person with a seat on the account." })
export class MemberType {
  @Field(() => ID, { description: "The member's user id." })
  id: string;

  @Field(() => String, { description: "The e-mail address the identity provider gave." })
  email: string;

  @Field(() => String, { nullable: true, description: "The display name, when the identity provider gave one." })
  name: string | null;

  @Field(() => GraphQLISODateTime, { description: "When the member joined the account." })
  joinedAt: Date;
}

@ObjectType("Invitation", {
  description: "A seat offered to an e-mail address; it holds the seat until accepted or cancelled.",
})
export class InvitationType {
  @Field(() => ID, { description: "The invitation's id, used to cancel it." })
  id: string;

  @Field(() => String, {
    description:
      "The invited address (lower-cased). Its first sign-in, verified by the identity provider, joins this account.",
  })
  email: string;

  @Field(() => GraphQLISODateTime, { description: "When it was sent." })
  createdAt: Date;
}

@ObjectType({
  description:
    "The account's members and pending invitations; together they take the plan's seats. REST: GET /api/members.",
})
export class MemberList {
  @Field(() => [MemberType], { description: "Members, oldest first." })
  members: MemberType[];

  @Field(() => [InvitationType], { description: "Pending invitations, oldest first." })
  invitations: InvitationType[];
}

@ObjectType({ description: "A new (or the already pending) invitation. REST: POST /api/members/invitations (201)." })
export class CreatedInvitation {
  @Field(() => InvitationType, { description: "The invitation." })
  invitation: InvitationType;
}

@InputType({ description: "An e-mail address to offer a seat to." })
export class InviteMemberInput {
  @Field(() => String, {
    description:
      "The address; the invitation is accepted by the first sign-in with it, verified by the identity provider.",
  })
  email: string;
}
