import { readFileSync } from "node:fs";
import { buildSchema, Kind, parse, validate, type OperationDefinitionNode } from "graphql";
import { describe, expect, it } from "vitest";
import { EXAMPLE_HEADERS, STARTER_TABS } from "../../../src/http/graphiql-tabs.js";

const schema = buildSchema(readFileSync(new URL("../../../schema.graphql", import.meta.url), "utf8"));

/** Each operation of a tab as "mutation startScore", by its root field. */
function operations(query: string): string[] {
  return parse(query)
    .definitions.filter((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)
    .map((node) => {
      const field = node.selectionSet.selections[0];
      return `${node.operation} ${field?.kind === Kind.FIELD ? field.name.value : "?"}`;
    });
}

describe("GraphiQL's starter tabs", () => {
  it("each validate against schema.graphql", () => {
    for (const tab of STARTER_TABS) expect(validate(schema, parse(tab.query)), tab.query).toEqual([]);
  });

  it("score and follow, read a result, then usage with the headers example", () => {
    expect(STARTER_TABS.map((tab) => operations(tab.query))).toEqual([
      ["mutation startScore", "subscription scoreProgress"],
      ["query scoreResult"],
      ["query usage"],
    ]);
    // Variables and headers are JSON GraphiQL can send as they are.
    for (const tab of STARTER_TABS) {
      if (tab.variables) expect(() => JSON.parse(tab.variables!)).not.toThrow();
    }
    expect(JSON.parse(STARTER_TABS[0]!.variables!)).toMatchObject({ input: { kind: "quick" } });
    // Only the tab that needs credentials carries them; the example is an ASCII test key header.
    expect(STARTER_TABS.map((tab) => tab.headers)).toEqual([undefined, undefined, EXAMPLE_HEADERS]);
    expect(JSON.parse(EXAMPLE_HEADERS)).toEqual({
      Authorization: expect.stringMatching(/^Bearer pms_test_[\x21-\x7e]+$/),
    });
  });
});
