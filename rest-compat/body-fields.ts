import { AppError } from "../src/errors.js";
import type { JsonSchema } from "./openapi.js";

/**
 * A body field a route does not know is refused, not ignored (docs/api.md §4): a
 * misspelt `contxt` would otherwise score without the context the caller meant to
 * send, and be charged. The fields a route knows are the ones its OpenAPI request
 * schema states (generated from the operation's input type, or written by the row
 * where REST reshapes the body), so the document and the refusal cannot disagree.
 *
 * Answers the refusal for `body`, or undefined. `schema` undefined: the route takes
 * no body, so any field is unknown. Runs before the operation: nothing is charged or
 * counted against a rate limit.
 */
export function unknownFieldsRefusal(schema: JsonSchema | undefined, body: unknown): AppError | undefined {
  if (!isPlainObject(body)) return undefined;
  if (!schema) {
    const fields = Object.keys(body);
    if (fields.length === 0) return undefined;
    return new AppError("VALIDATION_FAILED", `${fields.join(", ")}: this route takes no body fields`);
  }
  const unknown = unknownFields(schema, body, "");
  if (unknown.length === 0) return undefined;
  const known = Object.keys((schema.properties ?? {}) as Record<string, unknown>).join(", ");
  const which = unknown.length === 1 ? "is not a field" : "are not fields";
  return new AppError("VALIDATION_FAILED", `${unknown.join(", ")}: ${which} of this request; it takes ${known}`);
}

/** Paths of fields the schema does not allow, at any depth of objects and lists. */
function unknownFields(schema: JsonSchema, value: unknown, prefix: string): string[] {
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items ? value.flatMap((item, index) => unknownFields(items, item, `${prefix}[${index}]`)) : [];
  }
  if (!isPlainObject(value)) return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const rest = schema.additionalProperties;
  const found: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const known = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (known) found.push(...unknownFields(known, field, path));
    else if (rest === false) found.push(path);
    else if (typeof rest === "object" && rest !== null) found.push(...unknownFields(rest as JsonSchema, field, path));
  }
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
