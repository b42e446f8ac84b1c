import { isEnumType, isInputObjectType, type GraphQLSchema } from "graphql";
import { AppError } from "../src/errors.js";

/**
 * A REST caller sent JSON fields, not GraphQL variables: an input its operation's
 * variables refused ("Variable "$input" got invalid value { name: undefined };
 * Expected non-nullable type String! not to be null at value.name.") is answered in
 * the body's terms, naming the field as docs/api.md §4 asks ("name: is required").
 * Anything else passes unchanged; GraphQL callers keep GraphQL's own messages.
 */
export function restFieldMessage(error: AppError, schema: GraphQLSchema): AppError {
  if (error.code !== "VALIDATION_FAILED") return error;
  // graphql-js: a variable missing or null altogether.
  const absent =
    /^Variable "\$(\w+)" of (?:non-null|required) type "[^"]+" (?:must not be null|was not provided)\.$/.exec(
      error.message,
    );
  if (absent) return new AppError("VALIDATION_FAILED", `${absent[1]}: is required`, { cause: error });
  const match = /^Variable "\$(\w+)" got invalid value (.*?); (.*?)(?: at value\.([\w.[\]]+))?\.?$/s.exec(
    error.message,
  );
  if (!match) return error;
  const [, variable, value, reason, path] = match as unknown as [string, string, string, string, string | undefined];
  const at = path?.replace(/\.$/, "");
  // Bodies map to `$input` whole or to one variable per field (`$url`, `$plan`).
  const field = at ? (variable === "input" ? at : `${variable}.${at}`) : variable;
  const said = explain(reason, value, schema);
  return said ? new AppError("VALIDATION_FAILED", `${field}: ${said}`, { cause: error }) : error;
}

function explain(reason: string, value: string, schema: GraphQLSchema): string | undefined {
  if (/not to be null|was not provided|must not be null/.test(reason)) return "is required";
  const expected = /Expected type "?(\w+)"?/.exec(reason)?.[1];
  if (!expected) return undefined;
  const got = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  switch (expected) {
    case "String":
    case "ID":
      return `must be a string (got ${got})`;
    case "Int":
      return `must be a whole number (got ${got})`;
    case "Float":
      return `must be a number (got ${got})`;
    case "Boolean":
      return `must be true or false (got ${got})`;
  }
  const type = schema.getType(expected);
  if (isEnumType(type))
    return `must be one of ${type
      .getValues()
      .map((entry) => entry.value as string)
      .join(", ")} (got ${got})`;
  if (isInputObjectType(type)) return `must be an object (got ${got})`;
  return undefined;
}
