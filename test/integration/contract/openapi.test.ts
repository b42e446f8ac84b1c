import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../../rest-compat/routes.js";
import { errorCatalogue } from "../../../src/errors.js";
import {
  MAX_API_KEY_NAME_LENGTH,
  MAX_CHAT_MESSAGE_LENGTH,
  MAX_CONTEXT_LENGTH,
  MAX_URL_LENGTH,
} from "../../../src/limits.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { checkAnswer, contractChecks, openApiDocument } from "../../support/contract.js";
import { apiClient, signIn } from "../../support/http.js";

let service: TestApp;
beforeAll(async () => {
  service = await startTestApp();
});
afterAll(() => service?.close());

interface Document {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        security: unknown[];
        parameters?: Array<{ name: string; in: string }>;
        responses: Record<string, { content?: unknown; headers?: Record<string, unknown> }>;
      }
    >
  >;
}

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document a third-party validator accepts, with every route of the table", async () => {
    const response = await fetch(`${service.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = (await response.json()) as Document;
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe(service.config.version);
    expect(document.servers[0]?.url).toBe(service.config.publicBaseUrl);

    // @readme/openapi-parser validates against the OpenAPI 3.1 schema and resolves every $ref.
    const file = path.join(mkdtempSync(path.join(tmpdir(), "openapi-")), "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    const result = await validate(file);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);

    for (const row of restRoutes) {
      const operation = document.paths[row.path.replace(/:([A-Za-z]+)/g, "{$1}")]?.[row.method.toLowerCase()];
      expect(operation, `${row.method} ${row.path}`).toBeDefined();
    }
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations).toHaveLength(restRoutes.length);
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(restRoutes.length);

    // The document the contract check uses is the one the service serves.
    const served = { ...document, info: { ...document.info, version: "test" }, servers: [{ url: "http://127.0.0.1" }] };
    expect(served).toEqual(openApiDocument());
  });

  it("says who may call each route, its headers, and every error with its status", async () => {
    const document = (await (await fetch(`${service.url}/api/openapi.json`)).json()) as Document;
    const score = document.paths["/api/score"]!.post!;
    expect(score.security).toEqual([{}, { bearer: [] }, { session: [] }]);
    expect(score.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual([
      "header:Idempotency-Key",
      "header:Pms-Version",
    ]);
    // Every answer names its request and the API version it used.
    for (const response of Object.values(score.responses))
      expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(["X-Request-Id", "Pms-Version"]));
    expect(score.responses["202"]?.headers).toHaveProperty("Location");
    expect(score.responses["429"]?.headers).toHaveProperty("Retry-After");
    expect(score.responses["429"]?.headers).toHaveProperty("RateLimit");
    expect(document.paths["/api/keys"]!.post!.security).toEqual([{ session: [] }]);
    expect(document.paths["/api/usage"]!.get!.security).toEqual([{ bearer: [] }, { session: [] }]);
    const immutable = document.paths["/api/score/{id}"]!.get!;
    expect(Object.keys(immutable.responses)).toEqual(expect.arrayContaining(["200", "304", "404"]));
    // Each error response lists only codes of its status.
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const schema = (
            response.content as
              | {
                  "application/json"?: {
                    schema: { properties?: { error?: { properties: { code: { enum: string[] } } } } };
                  };
                }
              | undefined
          )?.["application/json"]?.schema;
          const codes = schema?.properties?.error?.properties.code.enum;
          if (!codes) continue;
          for (const code of codes)
            expect(
              errorCatalogue[code as keyof typeof errorCatalogue].status,
              `${operation.operationId} ${status} ${code}`,
            ).toBe(Number(status));
        }
      }
    }
  });

  it("names the types a generated client should have, and references them where they are answered", async () => {
    const document = (await (await fetch(`${service.url}/api/openapi.json`)).json()) as Document & {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const schemas = document.components.schemas;
    for (const name of [
      "ScoreJob",
      "DimensionResult",
      "EvidenceItem",
      "Webhook",
      "WebhookDelivery",
      "Usage",
      "Health",
      "ScoreResult_ScoreFields",
      "ScoreResult_ScoreFields_ProductViewFields",
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    // The product view selects more of ScoreResult than a result does: two components, neither claiming the other's fields.
    expect(Object.keys(schemas.ScoreResult_ScoreFields_ProductViewFields!.properties!).length).toBeGreaterThan(
      Object.keys(schemas.ScoreResult_ScoreFields!.properties!).length,
    );
    const answer = (
      document.paths["/api/score/{id}"]!.get!.responses["200"]!.content as {
        "application/json": { schema: { $ref: string } };
      }
    )["application/json"].schema;
    expect(answer.$ref).toBe("#/components/schemas/ScoreResult_ScoreFields");
    const job = (
      document.paths["/api/score/jobs/{id}"]!.get!.responses["200"]!.content as {
        "application/json": { schema: { $ref: string } };
      }
    )["application/json"].schema;
    expect(job.$ref).toBe("#/components/schemas/ScoreJob");
  });

  it("states the input limits of src/limits.ts on the request bodies, as both doors enforce them", async () => {
    const document = (await (await fetch(`${service.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    };
    const property = (path: string, method: string, name: string) =>
      (
        document.paths[path]![method]!.requestBody!.content["application/json"]!.schema as {
          properties: Record<string, { maxLength?: number }>;
        }
      ).properties[name]?.maxLength;
    expect(property("/api/score", "post", "url")).toBe(MAX_URL_LENGTH);
    expect(property("/api/score", "post", "context")).toBe(MAX_CONTEXT_LENGTH);
    expect(property("/api/score/quick", "post", "url")).toBe(MAX_URL_LENGTH);
    expect(property("/api/webhooks", "post", "url")).toBe(MAX_URL_LENGTH);
    expect(property("/api/chat", "post", "message")).toBe(MAX_CHAT_MESSAGE_LENGTH);
    expect(property("/api/keys", "post", "name")).toBe(MAX_API_KEY_NAME_LENGTH);
  });

  it("answers 304 to its ETag", async () => {
    const first = await fetch(`${service.url}/api/openapi.json`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${service.url}/api/openapi.json`, { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });
});

describe("the contract check of every REST answer", () => {
  it("runs on this suite's answers", async () => {
    const before = contractChecks.count;
    const call = apiClient(service);
    const member = await signIn(service, "contract@example.com");
    expect((await call("/api/usage", { cookie: member.cookie })).status).toBe(200);
    expect((await call("/api/webhooks/00000000-0000-4000-8000-000000000000", { cookie: member.cookie })).status).toBe(
      404,
    );
    expect(contractChecks.count).toBeGreaterThanOrEqual(before + 2);
  });

  it("refuses an answer with a field the document does not have, one missing a field, an undocumented code or status, and a missing header", async () => {
    const json = {
      "content-type": "application/json; charset=utf-8",
      "x-request-id": "req_1",
      "pms-version": "2026-11-01",
    };
    const key = {
      id: "k",
      name: "n",
      prefix: "pms_live_ab",
      createdAt: "2026-11-25T00:00:00.000Z",
      lastUsedAt: null,
      createdBy: "u",
    };
    const listed = JSON.stringify({ keys: [key] });
    // The real shape of GET /api/keys, to compare against.
    const real = await apiClient(service)("/api/keys", {
      cookie: (await signIn(service, "contract-keys@example.com")).cookie,
    });
    const realBody = (await real.json()) as { keys: unknown[] };
    expect(checkAnswer("GET", "/api/keys", 200, json, JSON.stringify(realBody))).toBeUndefined();
    expect(checkAnswer("GET", "/api/keys", 200, json, listed)).toMatch(/does not match/);
    expect(checkAnswer("GET", "/api/keys", 200, json, JSON.stringify({ ...realBody, extra: 1 }))).toMatch(
      /additional properties/,
    );
    expect(checkAnswer("GET", "/api/keys", 200, json, JSON.stringify({}))).toMatch(
      /must have required property 'keys'/,
    );
    const envelope = (code: string) =>
      JSON.stringify({
        error: {
          code,
          message: "m",
          action: "a",
          retryable: false,
          requestId: "req_1",
          docUrl: `/docs#section/Errors/${code}`,
        },
      });
    expect(checkAnswer("GET", "/api/keys", 404, json, envelope("NOT_FOUND"))).toMatch(/status not documented/);
    expect(checkAnswer("DELETE", "/api/keys/:id", 404, json, envelope("NOT_FOUND"))).toBeUndefined();
    expect(checkAnswer("DELETE", "/api/keys/:id", 409, json, envelope("IDEMPOTENCY_CONFLICT"))).toMatch(
      /status not documented/,
    );
    expect(checkAnswer("POST", "/api/keys", 402, json, envelope("CREDIT_EXHAUSTED"))).toBeUndefined();
    expect(checkAnswer("GET", "/api/score/:id", 400, json, envelope("INVALID_URL"))).toMatch(
      /must be equal to one of the allowed values/,
    );
    expect(
      checkAnswer("GET", "/api/keys", 200, { "content-type": "application/json" }, JSON.stringify(realBody)),
    ).toMatch(/X-Request-Id missing/);
    expect(checkAnswer("DELETE", "/api/keys/:id", 204, json, "")).toBeUndefined();
    // The envelope's own fields are checked too: no docUrl, or one it does not know, is off the contract.
    const bare = JSON.stringify({ error: { code: "NOT_FOUND", message: "m", action: "a", retryable: false } });
    expect(checkAnswer("DELETE", "/api/keys/:id", 404, json, bare)).toMatch(/must have required property 'requestId'/);
    const more = JSON.stringify({ error: { ...JSON.parse(envelope("NOT_FOUND")).error, hint: "x" } });
    expect(checkAnswer("DELETE", "/api/keys/:id", 404, json, more)).toMatch(/additional properties/);
  });
});
