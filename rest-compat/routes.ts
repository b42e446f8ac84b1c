import { HealthDocument, UsageDocument } from "./generated/operations.js";
import { route, type AnyRestRoute } from "./route.js";

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
];
