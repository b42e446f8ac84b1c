import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../../src/db/keyset-page.js";
import { AppError } from "../../../src/errors.js";

const ID = "0b6f3a52-8c1e-4d7a-9f20-5e4b7c9d1a23";
const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

const refusal = (cursor: string) => {
  try {
    decodeCursor(cursor);
  } catch (error) {
    return error instanceof AppError ? { code: error.code, message: error.message } : error;
  }
  return "accepted";
};

describe("keyset cursors", () => {
  it("reads back every cursor the API issues, including the first and last representable years", () => {
    for (const at of ["2025-03-07T09:15:42.123Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
      expect(decodeCursor(encodeCursor(new Date(at), ID))).toEqual({ at, id: ID });
    }
  });

  // Each of these passes Date.parse, and Postgres answers it with an error (a 500) or another instant.
  it.each([
    ["a bare number", "1"],
    ["a year past 9999", "+275760-09-13T00:00:00.000Z"],
    ["a year before 0001", "-000001-01-01T00:00:00Z"],
    ["year 0000, which Postgres does not have", "0000-01-01T00:00:00.000Z"],
    ["a date in words", "March 7"],
    ["another ISO form", "2025-03-07T09:15:42Z"],
    ["an offset instead of Z", "2025-03-07T09:15:42.123+02:00"],
    ["a day that does not exist", "2025-02-30T00:00:00.000Z"],
    ["a leap second", "2016-12-31T23:59:60.000Z"],
  ])("refuses %s as a 400, not a database error", (_name, at) => {
    expect(refusal(forge([at, ID]))).toEqual({
      code: "VALIDATION_FAILED",
      message: "cursor: is not a cursor this API returned",
    });
  });

  it.each([
    ["not base64url JSON", "forged"],
    ["an id that is not a uuid", forge(["2025-03-07T09:15:42.123Z", "1"])],
    ["a timestamp that is not a string", forge([1741338942123, ID])],
    ["extra elements", forge(["2025-03-07T09:15:42.123Z", ID, "x"])],
    ["an object", forge({ at: "2025-03-07T09:15:42.123Z", id: ID })],
    ["null", forge(null)],
  ])("refuses %s", (_name, cursor) => {
    expect(refusal(cursor)).toEqual({
      code: "VALIDATION_FAILED",
      message: "cursor: is not a cursor this API returned",
    });
  });
});
