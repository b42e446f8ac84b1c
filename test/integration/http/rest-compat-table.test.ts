import { parse, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { pino } from "pino";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { objectBody, route } from "../../../rest-compat/route.js";
import { REST_PREFIX, restCompat } from "../../../rest-compat/mount.js";
import { object, select } from "../../../rest-compat/shape.js";
import { loadConfig } from "../../../src/config.js";
import { AppError } from "../../../src/errors.js";
import { startApollo } from "../../../src/graphql/apollo.js";
import { sendError } from "../../../src/http/error-reply.js";
import { buildHttpServer, requestContext } from "../../../src/http/server.js";

/**
 * The table mechanism itself, on a small schema of its own: how a row maps a
 * request onto an operation, and how the operation's outcome maps back to HTTP.
 * (The service's rows are tested with their features.)
 */
const Echo = new GraphQLObjectType({
  name: "Echo",
  fields: { name: { type: new GraphQLNonNull(GraphQLString) }, id: { type: GraphQLString } },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: "Query",
    fields: {
      thing: {
        type: new GraphQLNonNull(Echo),
        args: { id: { type: new GraphQLNonNull(GraphQLString) } },
        resolve: (_root, { id }: { id: string }) => {
          if (id === "missing") throw new AppError("NOT_FOUND", "No such thing.");
          if (id === "boom") throw new Error('relation "secret_table" does not exist');
          return { name: "thing", id };
        },
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: "Mutation",
    fields: {
      createThing: {
        type: new GraphQLNonNull(Echo),
        args: { name: { type: new GraphQLNonNull(GraphQLString) } },
        resolve: (_root, { name }: { name: string }) => ({ name, id: "new" }),
      },
    },
  }),
});

const rows = [
  route<{ thing: { name: string; id: string | null } }, { id: string }>({
    method: "GET",
    path: "/api/things/:id",
    operation: parse("query Thing($id: String!) { thing(id: $id) { name id } }"),
    variables: ({ params }) => ({ id: params.id ?? "" }),
    body: (data) => ({ thing: data.thing }),
    doc: {
      auth: "public",
      summary: "A thing",
      tag: "Service",
      responses: { 200: object({ thing: select("thing") }) },
      errors: [],
    },
  }),
  route<{ createThing: { name: string; id: string | null } }, { name: unknown }>({
    method: "POST",
    path: "/api/things",
    operation: parse("mutation CreateThing($name: String!) { createThing(name: $name) { name id } }"),
    variables: (input) => ({ name: objectBody(input).name }),
    status: () => 201,
    body: (data) => ({ thing: data.createThing }),
    doc: {
      auth: "public",
      summary: "Create a thing",
      tag: "Service",
      // The body's fields: what the route takes, and all it takes (others are refused).
      requestBody: {
        schema: {
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: { name: { type: "string" } },
        },
      },
      responses: { 201: object({ thing: select("createThing") }) },
      errors: [],
    },
  }),
];

let app: FastifyInstance;
let url: string;
const logLines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: "test" });
  const logger = pino({ level: "info" }, { write: (line: string) => logLines.push(JSON.parse(line)) });
  const apollo = await startApollo(schema, logger, { graphiqlPath: "/graphiql" });
  app = await buildHttpServer({ config, logger, schema, apollo, routes: rows });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(() => app?.close());

const post = (path: string, body: string, contentType = "application/json") =>
  fetch(`${url}${path}`, { method: "POST", headers: { "content-type": contentType }, body });

describe("REST compatibility table", () => {
  it("maps path parameters to variables and the data to the body", async () => {
    const response = await fetch(`${url}/api/things/abc`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ thing: { name: "thing", id: "abc" } });
  });

  it("maps a JSON body to variables and answers the row's status", async () => {
    const response = await post("/api/things", JSON.stringify({ name: "Widget" }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ thing: { name: "Widget", id: "new" } });
  });

  it("refuses a body field its request schema does not name, naming it, before the operation runs", async () => {
    const response = await post("/api/things", JSON.stringify({ name: "Widget", extra: "x" }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: "VALIDATION_FAILED",
        message: "extra: is not a field of this request; it takes name",
        action: expect.any(String),
        retryable: false,
        param: "extra",
        requestId: response.headers.get("x-request-id"),
        docUrl: "/docs#section/Errors/VALIDATION_FAILED",
      },
    });
    const several = await post("/api/things", JSON.stringify({ name: "Widget", b: 1, a: 2 }));
    const refusal = (await several.json()).error;
    expect(refusal.message).toBe("b, a: are not fields of this request; it takes name");
    // Two fields at fault: none is *the* field.
    expect(refusal).not.toHaveProperty("param");
    // A route that takes no body refuses any field of one.
    const get = await fetch(`${url}/api/things/abc`, {
      method: "GET",
      headers: { "content-type": "application/json" },
    });
    expect(get.status).toBe(200);
  });

  it("answers a resolver's catalogue error with its status and envelope", async () => {
    const response = await fetch(`${url}/api/things/missing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: "NOT_FOUND",
        message: "No such thing.",
        action: expect.any(String),
        retryable: false,
        requestId: response.headers.get("x-request-id"),
        docUrl: "/docs#section/Errors/NOT_FOUND",
      },
    });
  });

  it("masks an unexpected resolver failure as a 500 INTERNAL envelope", async () => {
    const response = await fetch(`${url}/api/things/boom`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: "INTERNAL",
        message: "An unexpected error occurred.",
        action: expect.any(String),
        retryable: true,
        requestId: response.headers.get("x-request-id"),
        docUrl: "/docs#section/Errors/INTERNAL",
      },
    });
    expect(text).not.toContain("secret_table");

    // The detail is in the log, under the request id the caller was given.
    const requestId = response.headers.get("x-request-id");
    const logged = logLines.find((line) => line.msg === "unexpected error in REST route");
    expect(logged).toMatchObject({ reqId: requestId, level: 50 });
    expect(JSON.stringify(logged)).toContain("secret_table");
  });

  it("refuses malformed JSON with 400 VALIDATION_FAILED", async () => {
    const response = await post("/api/things", '{"name": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "VALIDATION_FAILED", message: "body: is not valid JSON." },
    });
  });

  it("refuses a body that is not an object, and a wrongly typed field, naming it", async () => {
    const array = await post("/api/things", "[1,2]");
    expect(array.status).toBe(400);
    expect((await array.json()).error).toMatchObject({
      code: "VALIDATION_FAILED",
      message: "body: must be a JSON object",
    });

    const wrongType = await post("/api/things", JSON.stringify({ name: 42 }));
    expect(wrongType.status).toBe(400);
    const body = await wrongType.json();
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.message).toBe("name: must be a string (got 42)");

    const missing = await post("/api/things", "{}");
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.message).toBe("name: is required");
  });

  it("refuses a body over 64 KiB with 413", async () => {
    const response = await post("/api/things", JSON.stringify({ name: "x".repeat(70_000) }));
    expect(response.status).toBe(413);
    expect((await response.json()).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", retryable: false });
  });

  it("refuses __proto__ keys", async () => {
    const response = await post("/api/things", '{"name":"a","__proto__":{"admin":true}}');
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("VALIDATION_FAILED");
  });

  it("answers 405 with Allow on a known path and 404 on an unknown one", async () => {
    const wrong = await fetch(`${url}/api/things`, {
      method: "PUT",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    const unknown = await post("/api/thingz", "{");
    expect(unknown.status).toBe(404);
  });

  it("refuses, at boot, a row whose operation does not match the schema", async () => {
    const Fastify = (await import("fastify")).default;
    const scratch = Fastify();
    const broken = route({
      method: "GET",
      path: "/api/broken",
      operation: parse("{ nope }"),
      variables: () => ({}),
      body: (d) => d,
      doc: { auth: "public", summary: "", tag: "", responses: {}, errors: [] },
    });
    const mounting = async () => {
      await scratch.register(restCompat, {
        prefix: REST_PREFIX,
        schema,
        routes: [broken],
        contextFor: (request) => requestContext(request),
        sendError,
        openApi: { version: "test", serverUrl: "http://127.0.0.1" },
      });
    };
    await expect(mounting()).rejects.toThrow(/REST route GET \/api\/broken: its operation does not match the schema/);
    await scratch.close();
  });
});
