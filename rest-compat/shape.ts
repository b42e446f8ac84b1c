/**
 * How a route's JSON answer is made of its operation's data, said once, as data:
 * the OpenAPI generator turns it into a JSON Schema (the GraphQL types of the
 * selected fields, with their descriptions), and the contract check verifies that
 * every real answer of the route matches that schema. A route's `body` function
 * must produce exactly this shape; a drift fails the contract check.
 *
 * Paths are dotted response keys into the operation's data (`createWebhook.webhook`).
 * A list met before the last key is stepped through: `assessLifecycle.answers.status`
 * is the `status` of an answer.
 */
export type Shape =
  | { readonly kind: "select"; readonly path: string; readonly omit: readonly string[]; readonly nonNull: boolean }
  | { readonly kind: "object"; readonly fields: Readonly<Record<string, Shape>>; readonly optional: readonly string[] }
  | { readonly kind: "merge"; readonly parts: readonly Shape[] }
  | { readonly kind: "record"; readonly values: Shape; readonly description: string };

/** The data at `path`; `omit` drops keys of an object, `nonNull` states the answer only exists when it is set. */
export function select(path: string, options: { omit?: readonly string[]; nonNull?: boolean } = {}): Shape {
  return { kind: "select", path, omit: options.omit ?? [], nonNull: options.nonNull ?? false };
}

/** An object of named parts; keys in `optional` are left out of the answer when they have no value. */
export function object(fields: Record<string, Shape>, options: { optional?: readonly string[] } = {}): Shape {
  return { kind: "object", fields, optional: options.optional ?? [] };
}

/** The keys of several object shapes in one object (a spread). */
export function merge(...parts: Shape[]): Shape {
  return { kind: "merge", parts };
}

/** An object whose keys are data (e.g. task ids) and whose values all have one shape. */
export function recordOf(values: Shape, description: string): Shape {
  return { kind: "record", values, description };
}
