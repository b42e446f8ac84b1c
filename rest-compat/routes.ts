import { CreateApiKeyDocument, HealthDocument, ListApiKeysDocument, RevokeApiKeyDocument, UsageDocument } from "./generated/operations.js";
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
];
