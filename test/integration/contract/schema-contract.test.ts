import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import {
  isIntrospectionType,
  isObjectType,
  isInputObjectType,
  isInterfaceType,
  isEnumType,
  isSpecifiedScalarType,
} from "graphql";
import { describe, expect, it } from "vitest";
import { INPUT_MAX_LENGTHS } from "../../../rest-compat/openapi.js";
import { buildAppSchema, printAppSchema, unservedContainer } from "../../../src/graphql/schema.js";
import { MAX_API_KEY_NAME_LENGTH } from "../../../src/limits.js";

const run = promisify(execFile);
const root = new URL("../../../", import.meta.url);

describe("the committed GraphQL contract", () => {
  const schema = buildAppSchema(unservedContainer);

  it("schema.graphql is exactly what the code emits (run `npm run schema:emit` after a change)", () => {
    const committed = readFileSync(new URL("schema.graphql", root), "utf8");
    expect(printAppSchema(schema)).toBe(committed);
  });

  it("publishes in the OpenAPI document the same input limits the input classes enforce", () => {
    // Every @MaxCharacters field (its limit rides on the field's extensions) is in the table, with its limit.
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isInputObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (typeof field.extensions.maxLength === "number") {
          expect(INPUT_MAX_LENGTHS[type.name]?.[field.name], `${type.name}.${field.name}`).toBe(
            field.extensions.maxLength,
          );
        }
      }
    }
    // And the table names only fields that exist (subclasses such as StartScoreInput inherit
    // the validation of their parent's fields, but type-graphql does not copy their extensions).
    for (const [typeName, fields] of Object.entries(INPUT_MAX_LENGTHS)) {
      const type = schema.getType(typeName);
      expect(isInputObjectType(type), typeName).toBe(true);
      for (const field of Object.keys(fields)) {
        expect(isInputObjectType(type) && type.getFields()[field], `${typeName}.${field}`).toBeTruthy();
      }
    }
    expect(INPUT_MAX_LENGTHS.CreateApiKeyInput).toEqual({ name: MAX_API_KEY_NAME_LENGTH });
  });

  it("describes every public type, field, argument and enum value", () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      if (!type.description?.trim()) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
          for (const arg of "args" in field ? field.args : []) {
            if (!arg.description?.trim()) missing.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
      if (isEnumType(type)) {
        for (const value of type.getValues())
          if (!value.description?.trim()) missing.push(`${type.name}.${value.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("generated operation types are up to date (run `npm run codegen` after a change)", async () => {
    const result = await run("npx", ["graphql-codegen", "--config", "codegen.yml", "--check"], {
      cwd: root.pathname,
      env: { ...process.env, CI: "true" },
    }).then(
      () => ({ code: 0, output: "" }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? 1,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);
});
