import "reflect-metadata";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { buildSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { CLI_CALLS, CLIENT_CALLS } from "../../../rest-compat/openapi/code-samples.js";
import { examples } from "../../../rest-compat/openapi/examples.js";
import { WEBHOOK_KINDS } from "../../../rest-compat/openapi/webhooks.js";
import { buildOpenApiDocument, type JsonSchema } from "../../../rest-compat/openapi.js";
import { restRoutes } from "../../../rest-compat/routes.js";
import { helpText } from "../../../src/cli/pms.js";
import { PmsClient } from "../../../src/client/index.js";
import { webhookEventKinds } from "../../../src/modules/webhooks/webhook.entity.js";
import { signatureHeader } from "../../../src/modules/webhooks/signature.js";

/**
 * The examples of the OpenAPI document (rest-compat/openapi/examples.json, recorded by
 * `npm run openapi:examples`) against the document's own schemas: every operation has
 * them, and each one is valid where it is shown, so they cannot drift from the contract.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { $ref: string }>;
}
interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required: boolean; schema: JsonSchema; example?: unknown }>;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  "x-codeSamples"?: Array<{ lang: string; label: string; source: string }>;
}
interface Document {
  info: { description: string; license?: { name: string } };
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: {
    examples: Record<string, { value: unknown }>;
    securitySchemes: Record<string, { description?: string }>;
  };
}

const document = buildOpenApiDocument(buildSchema(readFileSync(path.resolve("schema.graphql"), "utf8")), restRoutes, {
  version: "test",
  serverUrl: "http://127.0.0.1",
}) as unknown as Document;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, "openapi");
const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");
/** Problems of `value` against the schema at a JSON pointer of the document. */
function problemsAt(pointer: string, value: unknown): string[] {
  const validate = ajv.getSchema(`openapi#${pointer}`);
  if (!validate) return [`no schema at ${pointer}`];
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const operations = Object.entries(document.paths).flatMap(([docPath, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    where: `${method.toUpperCase()} ${docPath}`,
    pointer: `/paths/${escape(docPath)}/${method}`,
    operation,
  })),
);

describe("the OpenAPI document's examples", () => {
  it("has a request example for every body and an example of every successful answer with a body", () => {
    expect(operations).toHaveLength(restRoutes.length);
    const missing: string[] = [];
    for (const { where, operation } of operations) {
      if (operation.requestBody && operation.requestBody.content["application/json"]?.example === undefined)
        missing.push(`${where}: request`);
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.["application/json"];
        if (!media) continue;
        if (/^[23]/.test(status) || status === "503") {
          if (media.example === undefined && !media.examples) missing.push(`${where}: ${status}`);
        } else {
          // An error response shows an envelope of each code it lists.
          const codes = (media.schema as { properties: { error: { properties: { code: { enum: string[] } } } } })
            .properties.error.properties.code.enum;
          for (const code of codes) if (!media.examples?.[code]) missing.push(`${where}: ${status} ${code}`);
        }
      }
      for (const parameter of operation.parameters ?? [])
        if (parameter.in === "path" && parameter.example === undefined)
          missing.push(`${where}: parameter ${parameter.name}`);
    }
    expect(missing, "run `npm run openapi:examples`").toEqual([]);
  });

  it("match the document's own schemas: bodies, answers, error envelopes, parameters and webhook payloads", () => {
    const problems: string[] = [];
    const check = (where: string, pointer: string, value: unknown) =>
      problems.push(...problemsAt(pointer, value).map((problem) => `${where}: ${problem}`));
    for (const { where, pointer, operation } of operations) {
      const request = operation.requestBody?.content["application/json"];
      if (request?.example !== undefined)
        check(`${where} request`, `${pointer}/requestBody/content/application~1json/schema`, request.example);
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.["application/json"];
        const schema = `${pointer}/responses/${status}/content/application~1json/schema`;
        if (media?.example !== undefined) check(`${where} ${status}`, schema, media.example);
        for (const [code, reference] of Object.entries(media?.examples ?? {})) {
          const name = reference.$ref.replace("#/components/examples/", "");
          expect(name).toBe(code);
          check(`${where} ${status} ${code}`, schema, document.components.examples[name]?.value);
        }
      }
      for (const [index, parameter] of (operation.parameters ?? []).entries())
        if (parameter.example !== undefined)
          check(`${where} ${parameter.name}`, `${pointer}/parameters/${index}/schema`, parameter.example);
    }
    for (const [kind, webhook] of Object.entries(document.webhooks)) {
      const body = webhook.post.requestBody!.content["application/json"]!;
      check(
        `webhook ${kind}`,
        `/webhooks/${escape(kind)}/post/requestBody/content/application~1json/schema`,
        body.example,
      );
    }
    expect(problems).toEqual([]);
  });

  it("shows a healthy service as pass, and the failing one as fail with its 503", () => {
    const health = document.paths["/api/health"]!.get!.responses;
    expect(health["200"]!.content!["application/json"]!.example).toMatchObject({ status: "pass" });
    expect(health["503"]!.content!["application/json"]!.example).toMatchObject({
      status: "fail",
      checks: { database: { status: "fail" } },
    });
  });

  it("look like a public service: no local address, no secret of the run", () => {
    const text = JSON.stringify(examples);
    expect(text.match(/127\.0\.0\.1|localhost|[/@][\w.-]+\.test\b/g) ?? []).toEqual([]);
    expect(text).toContain("https://acme-analytics.example");
    // The webhook signatures verify with the (fake) secret the create example shows.
    const secret = (examples.operations.CreateWebhook!.responses["201"] as { webhook: { secret: string } }).webhook
      .secret;
    for (const [kind, delivery] of Object.entries(examples.webhooks)) {
      const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature } = delivery.headers;
      expect(signatureHeader([secret], id!, Number(timestamp), JSON.stringify(delivery.body)), kind).toBe(signature);
    }
  });
});

describe("the OpenAPI document's code samples", () => {
  it("give every operation curl and TypeScript, and the pms command where one exists", () => {
    for (const { where, operation } of operations) {
      const samples = operation["x-codeSamples"] ?? [];
      expect(samples.map((sample) => sample.label).slice(0, 2), where).toEqual([
        "curl",
        expect.stringMatching(/^TypeScript/),
      ]);
      expect(samples[0]!.source, where).toContain(`"$PMS_API_URL${where.split(" ")[1]!.split("{")[0]}`);
      if (CLI_CALLS[operation.operationId])
        expect(
          samples.map((sample) => sample.label),
          where,
        ).toContain("pms CLI");
    }
    const score = document.paths["/api/score"]!.post!["x-codeSamples"]!;
    expect(score.map((sample) => sample.label)).toEqual(["curl", "TypeScript client", "pms CLI"]);
    expect(score[0]!.source).toContain("Idempotency-Key");
    expect(score[1]!.source).toContain('client.score("https://acme-analytics.example"');
  });

  it("call client methods and pms commands that exist", () => {
    const client = new PmsClient({ baseUrl: "http://127.0.0.1" });
    for (const [operation, call] of Object.entries(CLIENT_CALLS)) {
      const method = call.method.split(".").reduce<unknown>((on, key) => (on as Record<string, unknown>)[key], client);
      expect(typeof method, `${operation}: client.${call.method}`).toBe("function");
    }
    const help = helpText();
    for (const [operation, call] of Object.entries(CLI_CALLS))
      expect(help, `${operation}: pms ${call.command}`).toContain(`pms ${call.command}`);
  });
});

describe("the OpenAPI document's prose and webhooks", () => {
  it("opens with Getting started, then authentication, errors, rate limits, idempotency and versioning", () => {
    const headings = [...document.info.description.matchAll(/^# (.+)$/gm)].map((match) => match[1]);
    expect(headings.slice(0, 6)).toEqual([
      "Getting started",
      "Authentication",
      "Errors",
      "Rate limits",
      "Idempotency",
      "Versioning",
    ]);
    expect(document.info.license?.name).toBeTruthy();
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy();
    for (const [name, scheme] of Object.entries(document.components.securitySchemes))
      expect(scheme.description, name).toBeTruthy();
    expect(document.components.securitySchemes.bearer!.description).toMatch(/pms_live_.*pms_test_/s);
  });

  it("describes each webhook event kind with its payload, its signature header and an example", () => {
    expect(Object.keys(document.webhooks)).toEqual([...webhookEventKinds, "webhook.test"]);
    expect(WEBHOOK_KINDS).toEqual(Object.keys(document.webhooks));
    for (const [kind, webhook] of Object.entries(document.webhooks)) {
      expect(
        webhook.post.parameters?.map((parameter) => parameter.name),
        kind,
      ).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      expect(webhook.post.requestBody!.content["application/json"]!.example, kind).toMatchObject({ type: kind });
    }
  });
});
