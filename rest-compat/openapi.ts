import {
  lexicographicSortSchema,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  Kind,
  TypeInfo,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type FieldNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type DocumentNode,
  type FragmentDefinitionNode,
} from "graphql";
import { API_VERSIONS } from "../src/api-versions.js";
import { errorCatalogue, type ErrorCode } from "../src/errors.js";
import {
  MAX_API_KEY_NAME_LENGTH,
  MAX_CHAT_MESSAGE_LENGTH,
  MAX_CONTEXT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_URL_LENGTH,
} from "../src/limits.js";

/**
 * The input limits the document states (`maxLength`), by input type and field. The
 * document is also built from the committed schema.graphql, which carries no field
 * extensions, so the limits are named here from src/limits.ts; a contract test checks
 * this table against every `@MaxCharacters` field of the live schema.
 */
export const INPUT_MAX_LENGTHS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  ScoreInput: { url: MAX_URL_LENGTH, context: MAX_CONTEXT_LENGTH },
  StartScoreInput: { url: MAX_URL_LENGTH, context: MAX_CONTEXT_LENGTH },
  ScoreBatchInput: { context: MAX_CONTEXT_LENGTH },
  CreateWebhookInput: { url: MAX_URL_LENGTH },
  UpdateWebhookInput: { url: MAX_URL_LENGTH },
  SendChatMessageInput: { message: MAX_CHAT_MESSAGE_LENGTH },
  CreateApiKeyInput: { name: MAX_API_KEY_NAME_LENGTH },
};
import type { AnyRestRoute } from "./route.js";
import type { Shape } from "./shape.js";
import { codeSamples } from "./openapi/code-samples.js";
import { examples, type OperationExamples } from "./openapi/examples.js";
import { describeService, LICENSE, SECURITY_SCHEMES, tagsOf } from "./openapi/overview.js";
import { WEBHOOK_TAG, webhookOperations } from "./openapi/webhooks.js";

/**
 * The OpenAPI 3.1 document of the REST compatibility layer, generated from the
 * route table and the GraphQL schema: nothing in it is written by hand except
 * what a row's `doc` says the operation cannot (who may call it, how REST
 * reshapes the answer, the error codes particular to it).
 *
 * Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect). An answer's schema is
 * the operation's selection: exactly the selected fields, each required (GraphQL
 * always answers a selected field, `null` when it is nullable), nothing else
 * (`additionalProperties: false`), with the schema's descriptions. Request bodies
 * are the operation's input types, closed the same way: the service refuses a field
 * they do not name (rest-compat/body-fields.ts reads these schemas to decide).
 *
 * What a generator cannot know comes from rest-compat/openapi/: the examples a real
 * run recorded (`npm run openapi:examples`), the code samples, the `webhooks` payloads,
 * and the prose (Getting started, authentication, errors, limits, tag descriptions).
 */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiOptions {
  readonly version: string;
  /** The public base URL the service is reached at. */
  readonly serverUrl: string;
}

const API_VERSION_PATTERN = "^\\d{4}-\\d{2}-\\d{2}$";

/** Codes every route can answer, whatever it does. */
const SHARED_CODES: readonly ErrorCode[] = [
  // Control characters in a path or query parameter; a malformed body.
  "VALIDATION_FAILED",
  // A credential that is sent is checked, and an API key's call is metered, on every route.
  "AUTH_REQUIRED",
  "FORBIDDEN",
  "CREDIT_EXHAUSTED",
  "QUOTA_EXCEEDED",
  "INTERNAL",
  "SERVICE_UNAVAILABLE",
];
/** Codes of a request that may carry a body. */
const BODY_CODES: readonly ErrorCode[] = ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

const RATE_LIMIT_HEADERS = {
  "RateLimit-Policy": {
    description:
      'The limits that apply, per draft-ietf-httpapi-ratelimit-headers, one item each: the route\'s short window (`"score";q=5;w=60`: quota q per window of w seconds) and, for a request an API key authenticated, the monthly API-call allowance (`"api-calls";q=25000;w=2678400`, the window being the billing cycle).',
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'What is left of each, in the same order: `"score";r=2;t=41, "api-calls";r=24990;t=1209600` (r requests left for the next t seconds).',
    schema: { type: "string" },
  },
} as const;

const IDEMPOTENT_REPLAYED_HEADER = {
  "Idempotent-Replayed": {
    description:
      "`true` when this answer replays the first answer of the same Idempotency-Key (nothing was done or charged again); absent on a first answer.",
    schema: { type: "string", enum: ["true"] },
  },
} as const;

/** Headers on every answer of the table. */
const EVERY_ANSWER_HEADERS = {
  "X-Request-Id": {
    description: "This request's id; the same id is in the service's logs. Quote it to support.",
    required: true,
    schema: { type: "string" },
  },
  "Pms-Version": {
    description:
      "The dated API version this answer used: the one requested, else the account's pinned version, else the newest.",
    required: true,
    schema: { type: "string", pattern: API_VERSION_PATTERN },
  },
} as const;

const API_VERSION_PARAMETER = {
  name: "Pms-Version",
  in: "header",
  required: false,
  description: `A dated API version (${API_VERSIONS.map((entry) => `\`${entry.version}\``).join(", ")}); without it, the account's pinned version, or the newest. An unknown one is refused with 400 VALIDATION_FAILED.`,
  schema: { type: "string", enum: API_VERSIONS.map((entry) => entry.version) },
} as const;

export function buildOpenApiDocument(
  executable: GraphQLSchema,
  routes: readonly AnyRestRoute[],
  options: OpenApiOptions,
): JsonSchema {
  // The committed schema.graphql is printed sorted; documenting the sorted schema makes the document the same
  // whether it is built from the running service's schema or from the contract file.
  const schema = lexicographicSortSchema(executable);
  const enums = new Map<string, GraphQLEnumType>();
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const row of routes) {
    const operation = operationOf(row);
    const path = row.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const documented = new OperationDoc(schema, row.operation, operation, enums);
    tags.add(row.doc.tag);
    (paths[path] ??= {})[row.method.toLowerCase()] = documented.describe(row);
  }
  const objectSchemas = nameObjectSchemas(schema, paths);
  const enumSchemas = Object.fromEntries(
    [...enums.values()].sort((a, b) => a.name.localeCompare(b.name)).map((type) => [type.name, enumSchema(type)]),
  );
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    info: {
      title: "Product Maturity Scoring API (REST)",
      version: options.version,
      description:
        describeService(routes, examples.errors.NOT_FOUND) +
        "\n\n# About this document\n\nThe REST compatibility layer: every route runs one named GraphQL operation of `/graphql` (the full contract, with live progress over graphql-ws). " +
        "Generated from the route table and the GraphQL schema at start-up; its examples were recorded from a real run of the service.",
      license: LICENSE,
    },
    servers: [{ url: options.serverUrl }],
    tags: tagsOf([...tags, WEBHOOK_TAG]),
    paths,
    webhooks: webhookOperations(examples.webhooks),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ...enumSchemas, ...objectSchemas, Error: errorSchema(Object.keys(errorCatalogue) as ErrorCode[]) },
      // One envelope per code that some response answers (a 405 is never documented per route).
      examples: Object.fromEntries(
        (Object.keys(errorCatalogue) as ErrorCode[])
          .filter((code) => JSON.stringify(paths).includes(`"#/components/examples/${code}"`))
          .map((code) => [code, { summary: code, value: examples.errors[code] }]),
      ),
    },
  };
}

/**
 * Which GraphQL object type an object schema is a selection of. A symbol: copies
 * made by spreading keep it, JSON never shows it.
 */
const GRAPHQL_TYPE = Symbol("graphql type");
/** The named fragments spread directly in that selection, in order. */
const FRAGMENTS = Symbol("fragments");
type Tagged = JsonSchema & { [GRAPHQL_TYPE]?: string; [FRAGMENTS]?: string[] };

/**
 * Named components for generated clients: a GraphQL object type that every route
 * selects with the same fields (ScoreResult, Dimension, Webhook, …) becomes
 * `#/components/schemas/<Type>` and each use a `$ref` to it (`anyOf` with null
 * where nullable; a field's own description beside the `$ref`). A type selected in
 * different shapes by different routes stays inline at each use, so a component
 * never claims fields a route does not answer. Rewrites `paths` in place; answers
 * the components.
 */
function nameObjectSchemas(
  schema: GraphQLSchema,
  paths: Record<string, Record<string, unknown>>,
): Record<string, JsonSchema> {
  const shapes = new Map<string, Map<string, Tagged>>();
  const canonical = (node: Tagged): string => {
    const { description: _description, type: _type, ...rest } = node;
    return JSON.stringify(rest);
  };
  const visit = (node: unknown, each: (node: Tagged) => void): void => {
    if (Array.isArray(node)) for (const item of node) visit(item, each);
    else if (node !== null && typeof node === "object") {
      if (GRAPHQL_TYPE in node) each(node as Tagged);
      for (const value of Object.values(node)) visit(value, each);
    }
  };
  visit(paths, (node) => {
    const name = node[GRAPHQL_TYPE]!;
    const byShape = shapes.get(name) ?? shapes.set(name, new Map()).get(name)!;
    byShape.set(canonical(node), node);
  });
  // One shape: the type's name. Several: each shape selected through named fragments is named after them
  // (ScoreResult_ScoreFields, ScoreResult_ScoreFields_ProductViewFields); one written inline stays inline.
  const names = new Map<string, string>();
  for (const [type, byShape] of shapes) {
    for (const [key, node] of byShape) {
      const fragments = node[FRAGMENTS] ?? [];
      if (byShape.size === 1) names.set(key, type);
      else if (fragments.length > 0) names.set(key, [type, ...fragments].join("_"));
    }
  }

  const rewrite = (node: unknown, keepRoot = false): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item));
    if (node === null || typeof node !== "object") return node;
    const tagged = node as Tagged;
    const type = tagged[GRAPHQL_TYPE];
    const name = type === undefined ? undefined : names.get(canonical(tagged));
    if (type !== undefined && name !== undefined && !keepRoot) {
      const typeDescription = schema.getType(type)?.description ?? undefined;
      const reference = { $ref: `#/components/schemas/${name}` };
      const nullable = Array.isArray(tagged.type) && tagged.type.includes("null");
      const described =
        tagged.description !== undefined && tagged.description !== typeDescription
          ? { description: tagged.description }
          : {};
      return nullable ? { anyOf: [reference, { type: "null" }], ...described } : { ...reference, ...described };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, rewrite(value)]));
  };
  for (const methods of Object.values(paths))
    for (const [method, operation] of Object.entries(methods)) methods[method] = rewrite(operation);
  return Object.fromEntries(
    [...names]
      .sort(([, a], [, b]) => a.localeCompare(b))
      .map(([key, name]) => {
        const type = name.split("_")[0]!;
        const shape = shapes.get(type)!.get(key)!;
        const typeDescription = schema.getType(type)?.description ?? undefined;
        const body = rewrite(shape, true) as JsonSchema;
        const { description: _description, ...rest } = body;
        return [name, { ...rest, type: "object", ...(typeDescription ? { description: typeDescription } : {}) }];
      }),
  );
}

/** The JSON Schema of a route's request body in a document `buildOpenApiDocument` made; undefined: it takes none. */
export function requestBodySchemaOf(document: JsonSchema, row: AnyRestRoute): JsonSchema | undefined {
  const paths = document.paths as Record<string, Record<string, JsonSchema>>;
  const operation = paths[row.path.replace(/:([A-Za-z]+)/g, "{$1}")]?.[row.method.toLowerCase()];
  const body = operation?.requestBody as { content: Record<string, { schema: JsonSchema }> } | undefined;
  return body?.content["application/json"]?.schema;
}

function operationOf(row: AnyRestRoute): OperationDefinitionNode {
  const operation = row.operation.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`${row.method} ${row.path}: its document has no operation`);
  return operation;
}

/** The schema of a `{"error": …}` envelope whose code is one of `codes`. */
function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    type: "object",
    description: "The error envelope (docs/api.md §4).",
    required: ["error"],
    additionalProperties: false,
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "action", "retryable", "requestId", "docUrl"],
        additionalProperties: false,
        properties: {
          code: { type: "string", enum: [...codes], description: "A stable code; switch on it, not on the message." },
          message: { type: "string", description: "What went wrong, safe to show." },
          action: { type: "string", description: "What to do about it." },
          retryable: {
            type: "boolean",
            description: "Whether the same request may succeed later (after Retry-After when sent).",
          },
          param: {
            type: "string",
            description:
              "The path of the one field at fault (`url`, `answers.t1`, a header such as `Pms-Version`), when one is.",
          },
          requestId: {
            type: "string",
            description: "The answer's X-Request-Id; the same id is in the service's logs. Quote it to support.",
          },
          docUrl: {
            type: "string",
            description:
              "Where the reference explains this code: `/docs#section/Errors/<code>`, relative to the service.",
          },
        },
      },
    },
  };
}

function enumSchema(type: GraphQLEnumType): JsonSchema {
  const values = type.getValues();
  return {
    type: "string",
    enum: values.map((value) => value.name),
    ...(type.description ? { description: type.description } : {}),
    "x-enum-descriptions": Object.fromEntries(values.map((value) => [value.name, value.description ?? ""])),
  };
}

/** One row's operation, with what its variables and selection say. */
class OperationDoc {
  private readonly fragments: Map<string, FragmentDefinitionNode>;
  /** Where each variable is used: the argument (and its field) it fills. */
  private readonly variableArguments = new Map<
    string,
    { argument: GraphQLArgument; field: GraphQLField<unknown, unknown> }
  >();
  private readonly rootType: GraphQLObjectType;

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly operation: OperationDefinitionNode,
    private readonly enums: Map<string, GraphQLEnumType>,
  ) {
    this.fragments = new Map(
      document.definitions
        .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
        .map((fragment) => [fragment.name.value, fragment]),
    );
    const root = operation.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
    if (!root) throw new Error(`the schema has no ${operation.operation} type`);
    this.rootType = root;
    const typeInfo = new TypeInfo(schema);
    visit(
      document,
      visitWithTypeInfo(typeInfo, {
        Variable: (node) => {
          const argument = typeInfo.getArgument();
          const field = typeInfo.getFieldDef();
          if (argument && field && !this.variableArguments.has(node.name.value))
            this.variableArguments.set(node.name.value, { argument, field });
        },
      }),
    );
  }

  describe(row: AnyRestRoute): JsonSchema {
    const { doc } = row;
    const operationId = this.operation.name?.value ?? `${row.method.toLowerCase()}${row.path}`;
    const recorded: OperationExamples | undefined = examples.operations[operationId];
    const rootField = this.rootFields()[0];
    const description = rootField ? this.rootType.getFields()[rootField.name.value]?.description : undefined;
    const parameters: JsonSchema[] = [];
    for (const name of [...row.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!)) {
      parameters.push({
        name,
        in: "path",
        required: true,
        ...this.parameterSchema(doc.params?.[name] ?? name),
        ...exampleOf(recorded?.params?.[name]),
      });
    }
    for (const [name, variable] of Object.entries(doc.query ?? {})) {
      const described = this.parameterSchema(variable);
      parameters.push({
        name,
        in: "query",
        required: false,
        ...described,
        ...exampleOf(queryValue(recorded?.query?.[name], described.schema as JsonSchema)),
      });
    }
    if (doc.idempotent) {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: `Makes a retry safe: the same key with the same body within 24 hours replays the first answer (with \`Idempotent-Replayed: true\`) instead of doing the work (and charging) again; with another body, 409 IDEMPOTENCY_CONFLICT; while the first request is still running, 409 IDEMPOTENCY_IN_PROGRESS (retry after Retry-After). Keys belong to the account (anonymous scoring: the network). 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters.`,
        schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[\\x21-\\x7E]+$" },
        example: "5b0f0e0c-3c9d-4f57-9a51-6e2d1c7b8a42",
      });
    }
    parameters.push(API_VERSION_PARAMETER);
    if (row.immutable || row.media) {
      parameters.push({
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "The ETag of an answer you hold: 304 when it is still the answer.",
        schema: { type: "string" },
      });
    }

    const codes = new Set<ErrorCode>([
      ...SHARED_CODES,
      ...(row.method === "GET" ? [] : BODY_CODES),
      ...doc.errors,
      ...(doc.idempotent ? (["IDEMPOTENCY_CONFLICT", "IDEMPOTENCY_IN_PROGRESS"] as const) : []),
    ]);
    // A request an API key authenticates carries the monthly allowance's RateLimit items on any route that takes one.
    const rateLimitHeaders = doc.rateLimited || doc.auth === "member" || doc.auth === "anonymous";
    const responses: Record<string, JsonSchema> = {};
    for (const [status, shape] of Object.entries(doc.responses)) {
      const headers: Record<string, unknown> = {
        ...EVERY_ANSWER_HEADERS,
        ...(rateLimitHeaders ? RATE_LIMIT_HEADERS : {}),
        ...(doc.idempotent ? IDEMPOTENT_REPLAYED_HEADER : {}),
      };
      if (status === "202" && doc.idempotent) {
        headers.Location = {
          description:
            doc.location ??
            "Where to follow the job: `GET /api/score/jobs/{id}`. It is charged: follow it, do not score again.",
          required: true,
          schema: { type: "string" },
        };
        headers["Retry-After"] = {
          description:
            "Seconds until the job is worth reading again, estimated from where it stands (1 to 30); following it over graphql-ws needs no polling.",
          required: true,
          schema: { type: "string", pattern: "^\\d+$" },
        };
      }
      if (row.immutable) {
        headers.ETag = {
          description: "Names this final answer; send it as If-None-Match.",
          schema: { type: "string" },
        };
        headers["Cache-Control"] = {
          description: `\`${row.immutable.cacheControl}\` for a final answer, \`no-store\` otherwise.`,
          required: true,
          schema: { type: "string" },
        };
      }
      if (row.media) {
        headers.ETag = {
          description: "A strong tag of these bytes; send it as If-None-Match.",
          required: true,
          schema: { type: "string" },
        };
        headers["Cache-Control"] = {
          description: `\`${row.media.cacheControl}\``,
          required: true,
          schema: { type: "string" },
        };
      }
      responses[status] = {
        description:
          status === "202"
            ? "Accepted: the work goes on; follow it."
            : status === "204"
              ? "Done; no body."
              : status === "503"
                ? "Failing: the same body, with the failing part named."
                : "Success.",
        headers,
        ...(shape && row.media
          ? {
              content: {
                [row.media.type]: { schema: { type: "string", description: `The ${row.media.type} document.` } },
              },
            }
          : shape
            ? {
                content: {
                  "application/json": {
                    schema: this.shapeSchema(shape),
                    ...exampleOf(recorded?.responses[status]),
                  },
                  ...(row.csv && status === "200"
                    ? {
                        "text/csv": {
                          schema: {
                            type: "string",
                            description: "Sent for `Accept: text/csv`: the same answer as CSV.",
                          },
                        },
                      }
                    : {}),
                },
              }
            : {}),
      };
    }
    if (row.immutable || row.media)
      responses["304"] = {
        description: "Not modified: the ETag sent is still the answer.",
        headers: { ...EVERY_ANSWER_HEADERS, ETag: { schema: { type: "string" } } },
      };
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes)
      byStatus.set(errorCatalogue[code].status, [...(byStatus.get(errorCatalogue[code].status) ?? []), code]);
    for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
      // A status the route answers with its own body (health's 503) is not an error envelope there.
      if (String(status) in doc.responses) continue;
      const headers: Record<string, unknown> = { ...EVERY_ANSWER_HEADERS };
      if (status === 429 || status === 503 || (status === 409 && statusCodes.includes("IDEMPOTENCY_IN_PROGRESS")))
        headers["Retry-After"] = {
          description: "Seconds to wait before retrying (when the refusal is retryable).",
          schema: { type: "string", pattern: "^\\d+$" },
        };
      if (status === 429 && rateLimitHeaders) Object.assign(headers, RATE_LIMIT_HEADERS);
      responses[String(status)] = {
        description: statusCodes
          .map((code) => `\`${code}\`${errorCatalogue[code].retryable ? " (retryable)" : ""}`)
          .join(", "),
        headers,
        content: {
          "application/json": {
            schema: errorSchema(statusCodes),
            examples: Object.fromEntries(
              statusCodes
                .filter((code) => examples.errors[code] !== undefined)
                .map((code) => [code, { $ref: `#/components/examples/${code}` }]),
            ),
          },
        },
      };
    }

    return {
      operationId,
      summary: doc.summary,
      ...(description
        ? {
            description: `${description}\n\nGraphQL: the \`${this.operation.name?.value}\` operation (${this.operation.operation} \`${rootField?.name.value}\`).`,
          }
        : {}),
      tags: [doc.tag],
      security: securityOf(doc.auth),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(doc.requestBody
        ? {
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: this.requestSchema(doc.requestBody),
                  ...exampleOf(recorded?.request),
                },
                ...(doc.csvRequest
                  ? { "text/csv": { schema: { type: "string", description: doc.csvRequest.description } } }
                  : {}),
              },
            },
          }
        : {}),
      responses,
      "x-codeSamples": codeSamples(row, operationId, recorded),
    };
  }

  private rootFields(): FieldNode[] {
    return this.collectFields(this.operation.selectionSet).map(([, nodes]) => nodes[0]!);
  }

  private parameterSchema(variable: string): JsonSchema {
    const definition = this.operation.variableDefinitions?.find(
      (candidate) => candidate.variable.name.value === variable,
    );
    if (!definition) throw new Error(`${this.operation.name?.value}: no variable $${variable}`);
    const type = typeFromAST(this.schema, definition.type) as GraphQLInputType | undefined;
    if (!type) throw new Error(`${this.operation.name?.value}: unknown type of $${variable}`);
    const used = this.variableArguments.get(variable);
    const schema = this.inputSchema(getNamedType(type) as GraphQLInputType);
    return { ...(used?.argument.description ? { description: used.argument.description } : {}), schema };
  }

  private requestSchema(body: NonNullable<AnyRestRoute["doc"]["requestBody"]>): JsonSchema {
    if ("schema" in body) return body.schema;
    const definition = this.operation.variableDefinitions?.find(
      (candidate) => candidate.variable.name.value === body.variable,
    );
    const type = definition ? typeFromAST(this.schema, definition.type) : undefined;
    const named = type ? getNamedType(type) : undefined;
    if (!isInputObjectType(named))
      throw new Error(`${this.operation.name?.value}: $${body.variable} is not an input object`);
    const schema = this.inputSchema(named);
    for (const key of body.omit ?? []) {
      delete (schema.properties as Record<string, unknown>)[key];
      schema.required = (schema.required as string[]).filter((name) => name !== key);
    }
    return schema;
  }

  private inputSchema(type: GraphQLInputType): JsonSchema {
    if (isNonNullType(type)) return this.inputSchema(type.ofType);
    if (isListType(type)) return { type: "array", items: this.nullableInput(type.ofType) };
    if (isEnumType(type)) return this.enumRef(type);
    if (isScalarType(type)) return scalarSchema(type);
    const input = type as GraphQLInputObjectType;
    const fields = Object.values(input.getFields());
    return {
      type: "object",
      ...(input.description ? { description: input.description } : {}),
      additionalProperties: false,
      required: fields
        .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
        .map((field) => field.name),
      properties: Object.fromEntries(
        fields.map((field) => [
          field.name,
          {
            ...this.nullableInput(field.type),
            ...(field.description ? { description: field.description } : {}),
            ...(INPUT_MAX_LENGTHS[input.name]?.[field.name] !== undefined
              ? { maxLength: INPUT_MAX_LENGTHS[input.name]![field.name] }
              : {}),
          },
        ]),
      ),
    };
  }

  private nullableInput(type: GraphQLInputType): JsonSchema {
    return isNonNullType(type) ? this.inputSchema(type.ofType) : orNull(this.inputSchema(type));
  }

  private enumRef(type: GraphQLEnumType): JsonSchema {
    this.enums.set(type.name, type);
    return { $ref: `#/components/schemas/${type.name}` };
  }

  /** The JSON Schema of a shape over this operation's data. */
  shapeSchema(shape: Shape): JsonSchema {
    switch (shape.kind) {
      case "select": {
        let schema = this.selectionAt(shape.path);
        if (shape.nonNull) schema = withoutNull(schema);
        if (shape.omit.length > 0) schema = omitProperties(schema, shape.omit);
        return schema;
      }
      case "object":
        return {
          type: "object",
          additionalProperties: false,
          required: Object.keys(shape.fields).filter((key) => !shape.optional.includes(key)),
          properties: Object.fromEntries(
            Object.entries(shape.fields).map(([key, part]) => [key, this.shapeSchema(part)]),
          ),
        };
      case "merge": {
        const parts = shape.parts.map((part) => this.shapeSchema(part));
        for (const part of parts)
          if (part.type !== "object") throw new Error(`${this.operation.name?.value}: only objects merge`);
        return {
          type: "object",
          additionalProperties: false,
          ...(parts[0]?.description ? { description: parts[0].description } : {}),
          required: [...new Set(parts.flatMap((part) => part.required as string[]))],
          properties: Object.assign({}, ...parts.map((part) => part.properties)),
        };
      }
      case "record":
        return { type: "object", description: shape.description, additionalProperties: this.shapeSchema(shape.values) };
    }
  }

  /** The schema of the data at a dotted path of response keys. */
  private selectionAt(path: string): JsonSchema {
    const keys = path.split(".");
    let parent: GraphQLObjectType = this.rootType;
    let selection: readonly FieldNode[] = [
      { kind: Kind.FIELD, name: { kind: Kind.NAME, value: "" }, selectionSet: this.operation.selectionSet },
    ];
    for (const [index, key] of keys.entries()) {
      const fields = this.collectFields(mergedSelection(selection));
      const nodes = fields.find(([responseKey]) => responseKey === key)?.[1];
      if (!nodes)
        throw new Error(
          `${this.operation.name?.value}: no field "${key}" at ${keys.slice(0, index).join(".") || "the root"}`,
        );
      const field = parent.getFields()[nodes[0]!.name.value];
      if (!field) throw new Error(`${this.operation.name?.value}: ${parent.name} has no field ${nodes[0]!.name.value}`);
      if (index === keys.length - 1) return this.outputSchema(field.type, nodes, field.description);
      // Step through lists and non-nulls to the object the next key selects from.
      const named = getNamedType(field.type);
      if (!isObjectType(named)) throw new Error(`${this.operation.name?.value}: "${key}" is not an object`);
      parent = named;
      selection = nodes;
    }
    throw new Error("unreachable");
  }

  private outputSchema(type: GraphQLOutputType, nodes: readonly FieldNode[], description?: string | null): JsonSchema {
    const base = isNonNullType(type) ? this.nonNullOutput(type.ofType, nodes) : orNull(this.nonNullOutput(type, nodes));
    return description ? { ...base, description } : base;
  }

  private nonNullOutput(type: GraphQLOutputType, nodes: readonly FieldNode[]): JsonSchema {
    if (type instanceof GraphQLNonNull) return this.nonNullOutput(type.ofType, nodes);
    if (type instanceof GraphQLList)
      return { type: "array", items: this.outputSchema(type.ofType as GraphQLOutputType, nodes) };
    if (type instanceof GraphQLEnumType) return this.enumRef(type);
    if (type instanceof GraphQLScalarType) return scalarSchema(type);
    if (!(type instanceof GraphQLObjectType))
      throw new Error(`${this.operation.name?.value}: abstract types are not supported (${String(type)})`);
    const fields = this.collectFields(mergedSelection(nodes));
    const definitions = type.getFields();
    return {
      [GRAPHQL_TYPE]: type.name,
      [FRAGMENTS]: nodes.flatMap(
        (node) =>
          node.selectionSet?.selections
            .filter((selection) => selection.kind === Kind.FRAGMENT_SPREAD)
            .map((spread) => spread.name.value) ?? [],
      ),
      type: "object",
      ...(type.description ? { description: type.description } : {}),
      additionalProperties: false,
      required: fields.map(([key]) => key),
      properties: Object.fromEntries(
        fields.map(([key, fieldNodes]) => {
          const field = definitions[fieldNodes[0]!.name.value];
          if (!field) throw new Error(`${type.name} has no field ${fieldNodes[0]!.name.value}`);
          return [key, this.outputSchema(field.type, fieldNodes, field.description)];
        }),
      ),
    };
  }

  /** Response keys in order with their field nodes, fragments expanded (no abstract types in this schema). */
  private collectFields(
    selectionSet: SelectionSetNode,
    into = new Map<string, FieldNode[]>(),
  ): [string, FieldNode[]][] {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === "__typename") continue;
        const key = selection.alias?.value ?? selection.name.value;
        into.set(key, [...(into.get(key) ?? []), selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.collectFields(selection.selectionSet, into);
      } else {
        const fragment = this.fragments.get(selection.name.value);
        if (!fragment) throw new Error(`unknown fragment ${selection.name.value}`);
        this.collectFields(fragment.selectionSet, into);
      }
    }
    return [...into];
  }
}

/** A recorded query string value as its schema types it (`limit=2` is the integer 2). */
function queryValue(value: string | undefined, schema: JsonSchema): unknown {
  return value !== undefined && schema.type === "integer" ? Number(value) : value;
}

/** `{example}` when one was recorded. */
function exampleOf(value: unknown): { example?: unknown } {
  return value === undefined ? {} : { example: value };
}

function mergedSelection(nodes: readonly FieldNode[]): SelectionSetNode {
  return { kind: Kind.SELECTION_SET, selections: nodes.flatMap((node) => node.selectionSet?.selections ?? []) };
}

function scalarSchema(type: GraphQLScalarType): JsonSchema {
  switch (type.name) {
    case "ID":
    case "String":
      return { type: "string" };
    case "Int":
      return { type: "integer" };
    case "Float":
      return { type: "number" };
    case "Boolean":
      return { type: "boolean" };
    case "DateTimeISO":
      return { type: "string", format: "date-time" };
    default:
      throw new Error(`no JSON Schema for the scalar ${type.name}`);
  }
}

function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((type) => type !== "null") };
  if (Array.isArray(schema.anyOf)) {
    const [first] = (schema.anyOf as JsonSchema[]).filter((part) => part.type !== "null");
    return { ...first, ...(schema.description ? { description: schema.description } : {}) };
  }
  return schema;
}

function omitProperties(schema: JsonSchema, keys: readonly string[]): JsonSchema {
  const properties = { ...(schema.properties as Record<string, unknown>) };
  for (const key of keys) {
    if (!(key in properties)) throw new Error(`cannot omit "${key}": not selected`);
    delete properties[key];
  }
  // A part of a type's selection is no longer that type's shape.
  const { [GRAPHQL_TYPE]: _type, [FRAGMENTS]: _fragments, ...rest } = schema as Tagged;
  return { ...rest, properties, required: (schema.required as string[]).filter((key) => !keys.includes(key)) };
}

function securityOf(auth: AnyRestRoute["doc"]["auth"]): JsonSchema[] {
  switch (auth) {
    case "public":
      return [{}];
    case "anonymous":
      return [{}, { bearer: [] }, { session: [] }];
    case "member":
      return [{ bearer: [] }, { session: [] }];
    case "session":
      return [{ session: [] }];
  }
}
