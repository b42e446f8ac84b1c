import { readFileSync } from "node:fs";
import { buildSchema, getIntrospectionQuery, parse, validate } from "graphql";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { exportSPKI, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationLimits, OperationLimitsRule, validationRules } from "../../../src/graphql/limits.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { signIn, type Caller } from "../../support/http.js";

/**
 * One GraphQL operation's cost is bounded before anything runs: aliases, fields,
 * depth, an estimated cost with list sizes, one scoring mutation, `health`/`usage`
 * once, no batches; a refused operation answers VALIDATION_FAILED and runs nothing.
 */
let service: TestApp;
let ada: Caller;
let secret: string;

beforeAll(async () => {
  service = await startTestApp();
  ada = await signIn(service, "ada@limits.test");
  await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'business' WHERE id = $1`, [ada.accountId]);
  const created = await fetch(`${service.url}/api/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: ada.cookie },
    body: JSON.stringify({ name: "limits" }),
  });
  secret = (await created.json()).secret;
});
afterAll(() => service?.close());

async function graphql(query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query }),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      data?: unknown;
      errors?: Array<{ message: string; extensions: { code: string } }>;
    },
  };
}

function expectRefused(answer: Awaited<ReturnType<typeof graphql>>, message: RegExp) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors?.[0]?.extensions.code).toBe("VALIDATION_FAILED");
  expect(answer.body.errors?.map((error) => error.message).join("\n")).toMatch(message);
}

const count = async (table: string) =>
  Number((await service.app.database.dataSource.query(`SELECT count(*) AS n FROM ${table}`))[0].n);
const apiCallsUsed = async () =>
  (await (await fetch(`${service.url}/api/usage`, { headers: { cookie: ada.cookie } })).json()).apiCalls.used as number;

describe("operation limits", () => {
  it("refuses a thousand aliases of a result lookup (as one 64 KiB request could hold)", async () => {
    const aliases = Array.from({ length: 1_000 }, (_, i) => `r${i}:scoreResult(id:"${i}"){id}`).join(" ");
    expectRefused(await graphql(`{ ${aliases} }`), /at most 10 top-level fields/);
    const nested = Array.from({ length: 30 }, (_, i) => `a${i}: id`).join(" ");
    expectRefused(await graphql(`{ scoreResult(id: "x") { ${nested} } }`), /at most 20 aliases; this one uses 30/);
  });

  it("lets health and usage appear once per operation, and bills a refused usage read nothing", async () => {
    expectRefused(
      await graphql(`
        {
          a: health {
            status
          }
          b: health {
            status
          }
        }
      `),
      /'health' may appear once per operation; this one asks for it 2 times/,
    );
    const before = await apiCallsUsed();
    expectRefused(
      await graphql(
        `
          {
            a: usage {
              plan
            }
            b: usage {
              plan
            }
            c: usage {
              plan
            }
          }
        `,
        { authorization: `Bearer ${secret}` },
      ),
      /'usage' may appear once/,
    );
    expect(await apiCallsUsed()).toBe(before);
    const once = await graphql(
      `
        {
          usage {
            plan
          }
          health {
            status
          }
        }
      `,
      { authorization: `Bearer ${secret}` },
    );
    expect(once.status).toBe(200);
    expect(await apiCallsUsed()).toBe(before + 1);
  });

  it("allows one scoring mutation per operation and starts none when asked for two", async () => {
    const jobs = await count("score_jobs");
    expectRefused(
      await graphql(
        `
          mutation {
            a: startScore(input: { url: "https://example.com" }) {
              job {
                id
              }
            }
            b: startScore(input: { url: "https://example.org" }) {
              job {
                id
              }
            }
          }
        `,
        { cookie: ada.cookie },
      ),
      /at most one scoring job; this one has 2/,
    );
    expectRefused(
      await graphql(
        `
          mutation {
            score(input: { url: "https://example.com" }) {
              job {
                id
              }
            }
            quickScore(input: { url: "https://example.org" }) {
              job {
                id
              }
            }
          }
        `,
        { cookie: ada.cookie },
      ),
      /at most one scoring job/,
    );
    expect(await count("score_jobs")).toBe(jobs);
  });

  it("estimates list sizes: a page of 100 products with all their results' dimensions is refused, a page of 5 is not", async () => {
    const selection = `products { id results { id dimensions { dimensionId score evidence reasoning confidence } } }`;
    expectRefused(
      await graphql(`{ products(limit: 100) { ${selection} } }`, { cookie: ada.cookie }),
      /would resolve about \d+ objects; the limit is 50000/,
    );
    const small = await graphql(`{ products(limit: 5) { ${selection} } }`, { cookie: ada.cookie });
    expect(small.status, JSON.stringify(small.body)).toBe(200);
  });

  it("stops walking a fragment bomb at the field limit", async () => {
    const levels = 12;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1
        ? `fragment F${i} on Health { status version }`
        : `fragment F${i} on Health { ...F${i + 1} a${i}: status ...F${i + 1} }`,
    ).join("\n");
    const answer = await graphql(`
      {
        health {
          ...F0
        }
      }
      ${fragments}
    `);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((error) => error.message).join("\n")).toMatch(/at most 2000 fields|aliases/);
  });

  it("refuses a batch of operations in one HTTP request", async () => {
    const response = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ query: "{ health { status } }" }, { query: "{ health { status } }" }]),
    });
    expect(response.status).toBe(400);
    expect(
      ((await response.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code,
    ).toBe("VALIDATION_FAILED");
  });

  it("counts introspection's aliases and fields: an aliased introspection bomb is refused over both doors, the usual introspection query is answered", async () => {
    // 8 KB that answered 241 MB: aliased copies of `types`, each with aliased `fields`, through one fragment.
    const fields = (inner: string) =>
      Array.from(
        { length: 10 },
        (_, i) => `a${i}: fields { name description type { name ofType { name ${inner} } } }`,
      ).join(" ");
    const bomb = `{ __schema { ${Array.from({ length: 32 }, (_, i) => `t${i}: types { ...F }`).join(" ")} } } fragment F on __Type { name ${fields(fields("description"))} }`;
    expectRefused(await graphql(bomb), /at most 2000 fields/);
    // Smaller, still 44 aliases: refused for those.
    const aliased = `{ __schema { ${Array.from({ length: 4 }, (_, i) => `t${i}: types { ...F }`).join(" ")} } } fragment F on __Type { name ${fields("")} }`;
    expectRefused(await graphql(aliased), /at most 20 aliases; this one uses 44/);
    const client = createClient({
      url: service.url.replace(/^http/, "ws") + "/graphql",
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const overSocket = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: aliased }, { next: resolve, error: resolve, complete: () => resolve("complete") });
      });
      expect(JSON.stringify(overSocket)).toMatch(/at most 20 aliases/);
    } finally {
      await client.dispose();
    }
    // Unaliased copies are merged by execution, so they cost one answer; they still count toward the fields.
    expectRefused(
      await graphql(
        `{ __schema { ${Array.from({ length: 700 }, () => "types { name kind description }").join(" ")} } }`,
      ),
      /at most 2000 fields/,
    );

    // What GraphiQL and codegen send is answered in full.
    for (const query of [
      getIntrospectionQuery(),
      getIntrospectionQuery({
        descriptions: true,
        inputValueDeprecation: true,
        schemaDescription: true,
        directiveIsRepeatable: true,
        specifiedByUrl: true,
      }),
    ]) {
      const answer = await graphql(query);
      expect(answer.status, JSON.stringify(answer.body.errors)).toBe(200);
      expect((answer.body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(50);
    }
  });

  it("keeps every operation of the REST table and the usual queries within the limits", () => {
    const schema = buildSchema(readFileSync(new URL("../../../schema.graphql", import.meta.url), "utf8"));
    const usual = parse(
      `{ scores(limit: 100) { results { id dimensions { dimensionId score evidence confidence reasoning evidenceItems { text url selfReported } } } nextCursor } }`,
    );
    expect(validate(schema, usual, validationRules({ introspection: true })).map((error) => error.message)).toEqual([]);
  });

  it("sizes every paginated list by its page: assessments, deliveries and a conversation's messages too", () => {
    const schema = buildSchema(readFileSync(new URL("../../../schema.graphql", import.meta.url), "utf8"));
    const errors = (query: string) =>
      validate(schema, parse(query), validationRules({ introspection: true })).map((error) => error.message);
    // 100 products × 100 assessments × their 5 stages and 6 next tasks: about 120,000 objects.
    expect(
      errors(
        `{ products(limit: 100) { products { assessments(limit: 100) { assessments { stages { stageId } nextTasks { id } } } } } }`,
      ),
    ).toEqual([expect.stringMatching(/would resolve about \d+ objects/)]);
    expect(
      errors(
        `{ products(limit: 5) { products { assessments(limit: 5) { assessments { stages { stageId } nextTasks { id } } } } } }`,
      ),
    ).toEqual([]);
    expect(errors(`{ conversation(id: "c", limit: 100) { messages { citations { quote } } } }`)).toEqual([]);
    expect(errors(`{ webhooks { webhooks { deliveries(limit: 100) { deliveries { id } } } } }`)).toEqual([]);
  });
});

describe("depth", () => {
  it("refuses nesting deeper than the limit (on a schema deep enough to try)", () => {
    const schema = buildSchema(`type Node { id: ID child: Node } type Query { node: Node }`);
    const deep = (levels: number) => parse(`{ node { ${"child { ".repeat(levels)} id ${"} ".repeat(levels)} } }`);
    expect(validate(schema, deep(operationLimits.maxDepth - 2), [OperationLimitsRule])).toEqual([]);
    expect(
      validate(schema, deep(operationLimits.maxDepth + 1), [OperationLimitsRule]).map((error) => error.message),
    ).toEqual([expect.stringMatching(/at most 10 deep/)]);
  });
});

describe("introspection in production", () => {
  it("is off by default over HTTP and graphql-ws, and a setting turns it on", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const production = {
      NODE_ENV: "production",
      SESSION_PUBLIC_KEY: await exportSPKI(publicKey),
      SESSION_ISSUER: "https://id.example",
      SESSION_AUDIENCE: "pms",
    };
    for (const [env, allowed] of [
      [production, false],
      [{ ...production, GRAPHQL_INTROSPECTION: "true" }, true],
    ] as const) {
      const app = await startTestApp(env);
      try {
        const http = await fetch(`${app.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __schema { queryType { name } } }" }),
        });
        const body = await http.json();
        expect(Boolean(body.data?.__schema), JSON.stringify(body)).toBe(allowed);
        const client = createClient({
          url: app.url.replace(/^http/, "ws") + "/graphql",
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          lazy: true,
        });
        const overSocket = await new Promise<unknown>((resolve) => {
          client.subscribe(
            { query: "{ __schema { queryType { name } } }" },
            { next: resolve, error: resolve, complete: () => resolve("complete") },
          );
        });
        expect(JSON.stringify(overSocket).includes('"queryType"'), JSON.stringify(overSocket)).toBe(allowed);
        // Where it is off, a misspelt field does not suggest the schema's names either, on either door.
        const misspelt = '{ scoreResul(id: "x") { id } }';
        const viaHttp = await (
          await fetch(`${app.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: misspelt }),
          })
        ).json();
        const viaSocket = await new Promise<unknown>((resolve) => {
          client.subscribe({ query: misspelt }, { next: resolve, error: resolve, complete: () => resolve("complete") });
        });
        await client.dispose();
        for (const answer of [viaHttp, viaSocket])
          expect(JSON.stringify(answer).includes("Did you mean"), JSON.stringify(answer)).toBe(allowed);
      } finally {
        await app.close();
      }
    }
  });
});
