import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_FILE, renderClientTypes } from "../../../scripts/client-types.js";

describe("the client's generated REST types", () => {
  it("match the OpenAPI document of the committed schema and route table (run `npm run client:types` after a change)", async () => {
    expect(
      readFileSync(CLIENT_TYPES_FILE, "utf8") === (await renderClientTypes()),
      `${CLIENT_TYPES_FILE} is stale: run \`npm run client:types\``,
    ).toBe(true);
  });

  it("import nothing at run time (openapi-typescript is a development dependency)", () => {
    expect(readFileSync(CLIENT_TYPES_FILE, "utf8")).not.toMatch(/^\s*import\s/m);
  });
});
