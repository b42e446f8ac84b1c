import { createHash } from "node:crypto";
import { execute, print, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { GraphQLContext } from "../src/graphql/context.js";
import type { AnyRestRoute } from "./route.js";

/** Names a route's operation in stored answers: a hash of its document, so another selection never serves them. */
export function answerShape(row: AnyRestRoute): string {
  return createHash("sha256").update(print(row.operation)).digest("base64url").slice(0, 22);
}

export type Executor = (variables: Record<string, unknown>, context: GraphQLContext) => Promise<ExecutionResult>;

/**
 * The table runs a fixed set of known documents, so each is compiled once at boot
 * (graphql-jit: the same resolvers, variable coercion and errors, without
 * graphql-js's per-request walk of the document). A document graphql-jit cannot
 * compile runs on graphql-js `execute`.
 */
export function executorFor(schema: GraphQLSchema, row: Pick<AnyRestRoute, "operation">): Executor {
  const compiled = compileQuery(schema, row.operation);
  if (isCompiledQuery(compiled)) {
    return async (variables, context) =>
      compiled.query(undefined, context, variables) as ExecutionResult | Promise<ExecutionResult>;
  }
  return async (variables, context) =>
    execute({ schema, document: row.operation, variableValues: variables, contextValue: context });
}
