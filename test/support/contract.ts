import "reflect-metadata";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { FastifyReply, FastifyRequest } from "fastify";
import { buildSchema } from "graphql";
import { buildOpenApiDocument, type JsonSchema } from "../../rest-compat/openapi.js";
import { restRoutes } from "../../rest-compat/routes.js";

/**
 * The OpenAPI contract check: every `/api` answer the integration suite receives
 * from a service started with `startTestApp` is checked against the document the
 * service serves (built from the committed schema.graphql and the route table, as
 * at boot). A status the route does not document, a body that does not match its
 * schema (extra or missing fields, wrong types, an error code the route does not
 * list) or a missing required header is a violation; `contract-setup.ts` fails
 * the test that caused it.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const contractViolations: string[] = [];
/** How many answers were checked (so a test can tell the check ran). */
export const contractChecks = { count: 0 };

let document: JsonSchema | undefined;
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction | null>();

export function openApiDocument(): JsonSchema {
  if (!document) {
    const schema = buildSchema(readFileSync(path.resolve("schema.graphql"), "utf8"));
    document = buildOpenApiDocument(schema, restRoutes, { version: "test", serverUrl: "http://127.0.0.1" });
  }
  return document;
}

function validatorFor(pointer: string): ValidateFunction | null {
  if (!validators.has(pointer)) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(openApiDocument(), "openapi");
    }
    validators.set(pointer, ajv.getSchema(`openapi#${pointer}`) ?? null);
  }
  return validators.get(pointer)!;
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

interface OperationDoc {
  readonly responses: Record<
    string,
    { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> }
  >;
}

/** Checks one answer; returns what is wrong with it, or undefined. */
export function checkAnswer(
  method: string,
  routeUrl: string,
  status: number,
  headers: Record<string, unknown>,
  body: string | undefined,
): string | undefined {
  const docPath = routeUrl.replace(/:([A-Za-z]+)/g, "{$1}");
  const paths = openApiDocument().paths as Record<string, Record<string, OperationDoc>>;
  const operation = paths[docPath]?.[method.toLowerCase()];
  // Not a documented operation (405 refusals, 404 for unknown paths, test-only tables).
  if (!operation) return undefined;
  const where = `${method} ${routeUrl} → ${status}`;
  const response = operation.responses[String(status)];
  if (!response) return `${where}: status not documented (${body?.slice(0, 300)})`;
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && headers[name.toLowerCase()] === undefined)
      return `${where}: required header ${name} missing`;
  }
  if (!response.content) {
    if (body !== undefined && body.length > 0)
      return `${where}: documented without a body, but answered ${body.slice(0, 200)}`;
    return undefined;
  }
  const contentType = String(headers["content-type"] ?? "");
  // A route whose answer is not JSON (an SVG badge) is documented as a string of its media type.
  const media = Object.keys(response.content).find((type) => type !== "application/json");
  if (media && !("application/json" in response.content)) {
    if (!contentType.startsWith(media)) return `${where}: content-type ${contentType}, documented ${media}`;
    return body ? undefined : `${where}: documented with a ${media} body, but answered none`;
  }
  // A route that documents a CSV answer (Accept: text/csv) answers text: its header row is checked by its tests.
  if (contentType.startsWith("text/csv") && response.content["text/csv"]) return undefined;
  if (!contentType.startsWith("application/json"))
    return `${where}: content-type ${contentType}, documented application/json`;
  let value: unknown;
  try {
    value = JSON.parse(body ?? "");
  } catch {
    return `${where}: body is not JSON: ${body?.slice(0, 200)}`;
  }
  const pointer = `/paths/${escapePointer(docPath)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = validatorFor(pointer);
  if (!validate) return `${where}: no schema at ${pointer}`;
  if (!validate(value)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (error) =>
          `${error.instancePath || "/"} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ""}`,
      );
    return `${where}: body does not match the document: ${problems.join("; ")} — body ${JSON.stringify(value).slice(0, 400)}`;
  }
  return undefined;
}

/** The `observeApiResponse` hook `startTestApp` installs. */
export function observeApiResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const routeUrl = request.routeOptions.url;
  if (!routeUrl || request.method === "HEAD" || request.method === "OPTIONS") return;
  const body =
    typeof payload === "string"
      ? payload
      : Buffer.isBuffer(payload)
        ? payload.toString("utf8")
        : payload === undefined || payload === null
          ? undefined
          : "<stream>";
  const headers = reply.getHeaders() as Record<string, unknown>;
  contractChecks.count += 1;
  const problem = checkAnswer(request.method, routeUrl, reply.statusCode, headers, body);
  if (problem) contractViolations.push(problem);
}
