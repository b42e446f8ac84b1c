import { describe, expect, it } from "vitest";
import { unknownFieldsRefusal } from "../../../rest-compat/body-fields.js";
import { apiVersionHeaders, requestedApiVersion, type ApiVersion } from "../../../src/api-versions.js";
import { AppError } from "../../../src/errors.js";

describe("unknown body fields", () => {
  const schema = {
    type: "object",
    additionalProperties: false,
    properties: {
      url: { type: "string" },
      monitor: { type: ["object", "null"], additionalProperties: false, properties: { interval: { type: "string" } } },
      items: {
        type: "array",
        items: { type: "object", additionalProperties: false, properties: { id: { type: "string" } } },
      },
      answers: { type: "object", additionalProperties: { type: "string" } },
    },
  };

  it("names unknown fields at any depth by their path, and only one of them in param", () => {
    expect(unknownFieldsRefusal(schema, { url: "x", monitor: null, answers: { t1: "done" } })).toBeUndefined();
    const nested = unknownFieldsRefusal(schema, { url: "x", monitor: { interval: "weekly", every: 2 } });
    expect(nested).toBeInstanceOf(AppError);
    expect(nested).toMatchObject({ code: "VALIDATION_FAILED", param: "monitor.every" });
    expect(nested!.message).toBe(
      "monitor.every: is not a field of this request; it takes url, monitor, items, answers",
    );
    const listed = unknownFieldsRefusal(schema, { items: [{ id: "a" }, { id: "b", colour: "red" }], size: 1 });
    expect(listed!.message).toMatch(/^items\[1\]\.colour, size: are not fields/);
    expect(listed!.param).toBeUndefined();
  });

  it("refuses any field of a body sent to a route that takes none, and leaves non-objects to the route", () => {
    expect(unknownFieldsRefusal(undefined, {})).toBeUndefined();
    expect(unknownFieldsRefusal(undefined, undefined)).toBeUndefined();
    expect(unknownFieldsRefusal(undefined, { colour: "red" })).toMatchObject({ param: "colour" });
    expect(unknownFieldsRefusal(schema, [1, 2])).toBeUndefined();
  });
});

describe("API versions", () => {
  const versions: ApiVersion[] = [
    { version: "2027-05-01" },
    { version: "2026-11-01", deprecated: "2027-05-01", sunset: "2028-05-01" },
  ];

  it("takes a known version, nothing when none is sent, and refuses others naming the header", () => {
    expect(requestedApiVersion(undefined, versions)).toBeUndefined();
    expect(requestedApiVersion(" 2026-11-01 ", versions)).toBe("2026-11-01");
    let refusal: unknown;
    try {
      requestedApiVersion("2026-12-01", versions);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: "VALIDATION_FAILED", param: "Pms-Version" });
    expect((refusal as AppError).message).toBe(
      'Pms-Version: "2026-12-01" is not a version of this API; known versions: 2027-05-01, 2026-11-01',
    );
  });

  it("announces a deprecated version's sunset on the answers that use it", () => {
    expect(apiVersionHeaders("2027-05-01", versions)).toEqual({ "pms-version": "2027-05-01" });
    expect(apiVersionHeaders("2026-11-01", versions)).toEqual({
      "pms-version": "2026-11-01",
      deprecation: `@${Date.UTC(2027, 4, 1) / 1000}`,
      sunset: "Mon, 01 May 2028 00:00:00 GMT",
    });
  });
});
