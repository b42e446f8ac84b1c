import { afterEach, expect } from "vitest";
import { contractViolations } from "./contract.js";

// Every test that talks to a service started by startTestApp also checks the
// OpenAPI document: an answer that does not match it fails the test that got it.
afterEach(() => {
  const found = contractViolations.splice(0);
  expect(found, "answers that do not match /api/openapi.json").toEqual([]);
});
