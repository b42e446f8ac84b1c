import { Kind, visit, type DocumentNode } from "graphql";
import { AppError } from "../errors.js";

/**
 * C0 control characters other than tab, line feed and carriage return, and DEL.
 * PostgreSQL cannot store U+0000 in text at all (the driver's error used to surface
 * as a 500), and none of them belongs in a URL, a name, an e-mail or a message.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Nesting deeper than this is not walked further (bodies are at most 64 KiB anyway). */
const MAX_DEPTH = 32;

/** The dotted path of the first string in `value` that holds a control character, with the character. */
export function findControlCharacter(value: unknown, path = "", depth = 0): { path: string; char: string } | undefined {
  if (typeof value === "string") {
    const match = CONTROL.exec(value);
    return match ? { path, char: match[0] } : undefined;
  }
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findControlCharacter(value[index], `${path}[${index}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const found =
      findControlCharacter(key, path ? `${path}.${key}` : key, depth + 1) ??
      findControlCharacter(item, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Throws VALIDATION_FAILED naming the field when `value` holds a control character anywhere. */
export function refuseControlCharacters(value: unknown, prefix = ""): void {
  const found = findControlCharacter(value, prefix);
  if (!found) return;
  const code = `U+${found.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  throw new AppError(
    "VALIDATION_FAILED",
    `${found.path || "body"}: must not contain control characters (found ${code}).`,
  );
}

/** The same for a request's path parameters, query string and parsed body, in that order. */
export function refuseControlCharactersInRequest(request: {
  readonly params?: unknown;
  readonly query?: unknown;
  readonly body?: unknown;
}): void {
  refuseControlCharacters(request.params ?? {});
  refuseControlCharacters(request.query ?? {});
  refuseControlCharacters(request.body ?? {});
}

/** The same for string literals written into a GraphQL document, named by their argument (and input fields). */
export function refuseControlCharactersInDocument(document: DocumentNode): void {
  const names: string[] = [];
  visit(document, {
    Argument: { enter: (node) => void names.push(node.name.value), leave: () => void names.pop() },
    ObjectField: { enter: (node) => void names.push(node.name.value), leave: () => void names.pop() },
    StringValue(node) {
      if (node.kind === Kind.STRING) refuseControlCharacters(node.value, names.join("."));
    },
  });
}
