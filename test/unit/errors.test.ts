import { buildSchema, GraphQLError, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { AppError, docUrlFor, errorCatalogue, toAppError } from "../../src/errors.js";

describe("error catalogue", () => {
  it("maps each code to the status and retryability of the contract and docs/api.md §4", () => {
    const expected: Record<string, [number, boolean]> = {
      AUTH_REQUIRED: [401, false],
      FORBIDDEN: [403, false],
      NOT_FOUND: [404, false],
      INVALID_URL: [400, false],
      CRAWL_FAILED: [400, false],
      QUOTA_EXCEEDED: [429, false],
      ANON_RATE_LIMIT: [429, true],
      SCORING_RATE_LIMITED: [429, true],
      CREDIT_EXHAUSTED: [402, false],
      PLAN_LIMIT_REACHED: [402, false],
      VALIDATION_FAILED: [400, false],
      IDEMPOTENCY_CONFLICT: [409, false],
      IDEMPOTENCY_IN_PROGRESS: [409, true],
      DELIVERY_IN_PROGRESS: [409, true],
      SERVICE_UNAVAILABLE: [503, true],
      INTERNAL: [500, true],
    };
    for (const [code, [status, retryable]] of Object.entries(expected)) {
      const entry = errorCatalogue[code as keyof typeof errorCatalogue];
      expect({ code, status: entry.status, retryable: entry.retryable }).toEqual({ code, status, retryable });
      expect(entry.action.length).toBeGreaterThan(10);
    }
  });

  it("builds the REST envelope and the GraphQL extensions from the same error", () => {
    const error = new AppError("SCORING_RATE_LIMITED", "Too many score requests.", {
      headers: { "retry-after": "60" },
    });
    expect(error.toEnvelope("req_1")).toEqual({
      error: {
        code: "SCORING_RATE_LIMITED",
        message: "Too many score requests.",
        action: expect.any(String),
        retryable: true,
        requestId: "req_1",
        docUrl: "/docs#section/Errors/SCORING_RATE_LIMITED",
      },
    });
    expect(error.toGraphQLExtensions("req_1")).toEqual({
      code: "SCORING_RATE_LIMITED",
      action: error.action,
      retryable: true,
      retryAfter: 60,
      requestId: "req_1",
      docUrl: "/docs#section/Errors/SCORING_RATE_LIMITED",
    });
    expect(error.headers).toEqual({ "retry-after": "60" });
  });

  it("links every code to its own anchor in the reference's Errors section", () => {
    // Redoc's anchor of `## <CODE>` under `# Errors` in the document's description.
    expect(docUrlFor("VALIDATION_FAILED")).toBe("/docs#section/Errors/VALIDATION_FAILED");
    const urls = Object.keys(errorCatalogue).map((code) => docUrlFor(code as keyof typeof errorCatalogue));
    expect(new Set(urls).size).toBe(Object.keys(errorCatalogue).length);
    for (const url of urls) expect(url).toMatch(/^\/docs#section\/Errors\/[A-Z_]+$/);
  });

  it("names the one field at fault in `param`: said, or the field a validation message starts with", () => {
    expect(new AppError("VALIDATION_FAILED", "url: must be at most 2048 characters").param).toBe("url");
    expect(new AppError("VALIDATION_FAILED", "answers.t1: must be one of …").param).toBe("answers.t1");
    expect(
      new AppError("VALIDATION_FAILED", "Pms-Version: unknown", { param: "Pms-Version" }).toEnvelope().error.param,
    ).toBe("Pms-Version");
    // The request as a whole, several fields, or a message that names none: no param.
    for (const message of ["body: is not valid JSON.", "plan, pack: send exactly one of them", "Too deep."])
      expect(new AppError("VALIDATION_FAILED", message).param, message).toBeUndefined();
    expect(new AppError("VALIDATION_FAILED", "url: x", { param: null }).param).toBeUndefined();
    // Other codes name a field only when told.
    expect(new AppError("NOT_FOUND", "id: no such thing").toEnvelope().error).not.toHaveProperty("param");
  });

  it("names the field of a GraphQL variable refusal, inside the input", () => {
    const param = (message: string) => toAppError(new GraphQLError(message)).param;
    expect(
      param(
        'Variable "$input" got invalid value { url: "x", colour: "r" }; Field "colour" is not defined by type "ScoreInput".',
      ),
    ).toBe("colour");
    expect(
      param('Variable "$input" got invalid value "s" at "input.n"; Int cannot represent non-integer value: "s"'),
    ).toBe("n");
    expect(
      param(
        'Variable "$input" got invalid value { a: 1, b: 2 } at "input.inner"; Field "b" is not defined by type "Inner".',
      ),
    ).toBe("inner.b");
    expect(param('Variable "$limit" of required type "Int!" was not provided.')).toBe("limit");
    expect(param('Cannot query field "nope" on type "Query".')).toBeUndefined();
  });

  it("says a refusal's wait in words every transport can follow, never by naming a header GraphQL callers do not get", () => {
    const limited = new AppError("ANON_RATE_LIMIT", "One per hour.", { headers: { "Retry-After": "3541" } });
    expect(limited.retryAfterSeconds).toBe(3541);
    expect(limited.action).toBe("Sign up to score more, or retry after 3541 seconds.");
    expect(new AppError("SCORING_RATE_LIMITED", "Too many.", { headers: { "Retry-After": "7" } }).action).toBe(
      "Retry after 7 seconds.",
    );
    // Without a wait there is no retryAfter, and no advice mentions a header.
    const unknownWait = new AppError("SCORING_RATE_LIMITED", "Too many.");
    expect(unknownWait.toGraphQLExtensions()).not.toHaveProperty("retryAfter");
    for (const entry of Object.values(errorCatalogue)) expect(entry.action).not.toMatch(/Retry-After/);
  });

  it("masks unknown errors: no message, stack or SQL reaches the caller", () => {
    const leaked = new Error('duplicate key value violates unique constraint "users_pkey" (SELECT * FROM users)');
    const mapped = toAppError(leaked);
    expect(mapped.code).toBe("INTERNAL");
    expect(mapped.message).toBe("An unexpected error occurred.");
    expect(JSON.stringify(mapped.toEnvelope())).not.toMatch(/users|SELECT|at /);
  });

  it("gives a 503 the same wait on both doors: Retry-After over HTTP, extensions.retryAfter over GraphQL", () => {
    const plain = new AppError("SERVICE_UNAVAILABLE", "The database is away.");
    expect(plain.headers).toEqual({ "Retry-After": "5" });
    expect(plain.toGraphQLExtensions()).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
    const own = new AppError("SERVICE_UNAVAILABLE", "Draining.", { headers: { "retry-after": "30" } });
    expect(own.headers).toEqual({ "retry-after": "30" });
    expect(own.toGraphQLExtensions()).toMatchObject({ retryAfter: 30 });
    // A database outage mapped from the driver's error gets it too; other codes name no wait they do not know.
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(toAppError(refused).toGraphQLExtensions()).toMatchObject({ retryAfter: 5 });
    expect(new AppError("INTERNAL", "x").toGraphQLExtensions()).not.toHaveProperty("retryAfter");
  });

  it("names the field of a literal input as the same refusal in variables would (param)", () => {
    const schema = buildSchema(`
      input Inner { b: Int }
      input ScoreInput { url: String!, inner: Inner }
      type Query { score(input: ScoreInput!): Int }
    `);
    const paramOf = (query: string) => {
      const [error] = validate(schema, parse(query));
      return error && toAppError(error).param;
    };
    expect(paramOf(`{ score(input: { url: "x", colour: 1 }) }`)).toBe("colour");
    expect(paramOf(`{ score(input: { url: 5 }) }`)).toBe("url");
    expect(paramOf(`{ score(input: { url: "x", inner: { b: 1, c: 2 } }) }`)).toBe("inner.c");
    expect(paramOf(`{ score(input: { inner: { b: 1 } }) }`)).toBe("url");
    // Not about an input field: no param.
    expect(paramOf(`{ nope }`)).toBeUndefined();
  });

  it("reports a database that cannot be reached as SERVICE_UNAVAILABLE, retryable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(toAppError(refused)).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryable: true });
    expect(toAppError(new Error("wrapped", { cause: refused })).code).toBe("SERVICE_UNAVAILABLE");
    expect(toAppError(new Error("Connection terminated unexpectedly")).code).toBe("SERVICE_UNAVAILABLE");
    expect(toAppError(refused).message).not.toContain("5432");
  });

  // What pg raises (a DatabaseError with the server's SQLSTATE and source file) when Postgres is up but will not serve us now.
  const postgresError = (code: string, message: string, file = "postinit.c") =>
    Object.assign(new Error(message), { name: "error", severity: "FATAL", code, file });

  it.each([
    ["57P01", "terminating connection due to administrator command"],
    ["57P02", "terminating connection because of crash of another server process"],
    ["57P03", "the database system is starting up"],
    ["57P04", "terminating connection because database is being dropped"],
    ["53300", "sorry, too many clients already"],
    ["3D000", 'database "pms" does not exist'],
    ["08000", "connection exception"],
    ["08001", "could not establish connection"],
    ["08003", "connection does not exist"],
    ["08004", "server rejected the connection"],
    ["08006", "connection failure"],
    ["55000", 'database "pms" is not currently accepting connections'],
    ["55000", 'cannot connect to invalid database "pms"'],
  ])("reports SQLSTATE %s (%s) as SERVICE_UNAVAILABLE, retryable, also when TypeORM wraps it", (code, message) => {
    const raised = postgresError(code, message);
    expect(toAppError(raised)).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryable: true });
    // TypeORM's QueryFailedError copies the driver error's fields onto itself.
    expect(
      toAppError(
        Object.assign(new Error(message), { name: "QueryFailedError", driverError: raised, code, file: raised.file }),
      ).code,
    ).toBe("SERVICE_UNAVAILABLE");
    expect(toAppError(raised).message).not.toContain("pms");
  });

  it("keeps 55000 raised by a query (a bug of ours, not an outage) INTERNAL", () => {
    expect(
      toAppError(postgresError("55000", 'currval of sequence "s" is not yet defined in this session', "sequence.c"))
        .code,
    ).toBe("INTERNAL");
    expect(toAppError(postgresError("55000", 'tablespace "t" is not empty', "tablespace.c")).code).toBe("INTERNAL");
  });

  it("treats document errors as the caller's and execution errors as ours", () => {
    expect(toAppError(new GraphQLError('Cannot query field "x" on type "Query".')).code).toBe("VALIDATION_FAILED");
    expect(
      toAppError(new GraphQLError("Cannot return null for non-nullable field Query.health.", { path: ["health"] }))
        .code,
    ).toBe("INTERNAL");
    const wrapped = new GraphQLError("wrapped", { originalError: new AppError("NOT_FOUND", "No such result.") });
    expect(toAppError(wrapped)).toMatchObject({ code: "NOT_FOUND", message: "No such result." });
  });

  it("names the nested field of type-graphql 2's ArgumentValidationError (a GraphQLError) inside a located error", () => {
    class ArgumentValidationError extends GraphQLError {
      constructor(validationErrors: unknown[]) {
        super("Argument Validation Error", { extensions: { code: "BAD_USER_INPUT", validationErrors } });
      }
    }
    const inner = new ArgumentValidationError([
      {
        property: "input",
        children: [
          { property: "name", constraints: { isLength: "name must be shorter than or equal to 100 characters" } },
        ],
      },
    ]);
    const located = new GraphQLError(inner.message, { path: ["createApiKey"], originalError: inner });
    expect(toAppError(located)).toMatchObject({
      code: "VALIDATION_FAILED",
      message: "name: name must be shorter than or equal to 100 characters",
    });
  });

  it("names the field when type-graphql argument validation fails", () => {
    const validation = Object.assign(new Error("Argument Validation Error"), {
      name: "ArgumentValidationError",
      validationErrors: [
        { property: "url", constraints: { maxLength: "url must be shorter than or equal to 2048 characters" } },
      ],
    });
    expect(toAppError(validation)).toMatchObject({
      code: "VALIDATION_FAILED",
      message: "url: url must be shorter than or equal to 2048 characters",
    });
  });
});
