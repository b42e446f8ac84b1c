import {
  CancelInvitationDocument,
  CreateApiKeyDocument,
  HealthDocument,
  InviteMemberDocument,
  ListApiKeysDocument,
  ListMembersDocument,
  RemoveMemberDocument,
  RevokeApiKeyDocument,
  StartCheckoutDocument,
  UsageDocument,
  type CheckoutInput,
} from "./generated/operations.js";
import { objectBody, route, type AnyRestRoute } from "./route.js";

/**
 * The REST compatibility table: every documented `/api` path, each mapped onto a
 * named operation in rest-compat/operations/. Later features add rows here.
 */
export const restRoutes: readonly AnyRestRoute[] = [
  route({
    method: "GET",
    path: "/api/health",
    operation: HealthDocument,
    variables: () => ({}),
    status: (data) => (data.health.status === "fail" ? 503 : 200),
    body: (data) => data.health,
  }),
  route({
    method: "GET",
    path: "/api/usage",
    operation: UsageDocument,
    variables: () => ({}),
    body: (data) => data.usage,
  }),
  route({
    method: "GET",
    path: "/api/keys",
    operation: ListApiKeysDocument,
    variables: () => ({}),
    body: (data) => data.apiKeys,
  }),
  route({
    method: "POST",
    path: "/api/keys",
    operation: CreateApiKeyDocument,
    // Named fields only: nothing else of the body reaches the operation.
    variables: (input) => ({ input: { name: objectBody(input).name as string } }),
    status: () => 201,
    body: (data) => data.createApiKey,
  }),
  route({
    method: "DELETE",
    path: "/api/keys/:id",
    operation: RevokeApiKeyDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "GET",
    path: "/api/members",
    operation: ListMembersDocument,
    variables: () => ({}),
    body: (data) => data.members,
  }),
  route({
    method: "POST",
    path: "/api/members/invitations",
    operation: InviteMemberDocument,
    variables: (input) => ({ input: { email: objectBody(input).email as string } }),
    status: () => 201,
    body: (data) => data.inviteMember,
  }),
  route({
    method: "DELETE",
    path: "/api/members/invitations/:id",
    operation: CancelInvitationDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "DELETE",
    path: "/api/members/:id",
    operation: RemoveMemberDocument,
    variables: ({ params }) => ({ id: params.id ?? "" }),
    status: () => 204,
    body: () => undefined,
  }),
  route({
    method: "POST",
    path: "/api/billing/checkout",
    operation: StartCheckoutDocument,
    variables: (input) => {
      const { plan, pack } = objectBody(input);
      return { input: { plan: (plan ?? null) as CheckoutInput["plan"], pack: (pack ?? null) as CheckoutInput["pack"] } };
    },
    status: () => 201,
    body: (data) => data.startCheckout,
  }),
];
