import { BREAK, GraphQLError, Kind, parse, visit, type ObjectFieldNode } from "graphql";

/**
 * The error catalogue (docs/api.md §4): one table, read by both front doors.
 * GraphQL errors carry `extensions.{code, action, retryable, …}`; REST answers the
 * status and `{"error": {code, message, action, retryable, …}}` (see `ErrorEnvelope`).
 */
export const errorCatalogue = {
  VALIDATION_FAILED: { status: 400, retryable: false, action: "Fix the named field and send the request again." },
  INVALID_URL: {
    status: 400,
    retryable: false,
    action: "Send a public http(s) address, for example https://example.com.",
  },
  CRAWL_FAILED: {
    status: 400,
    retryable: false,
    action: "Check that the site is public and reachable, then try again.",
  },
  AUTH_REQUIRED: {
    status: 401,
    retryable: false,
    action: "Sign in, or send a valid API key as 'Authorization: Bearer <key>'.",
  },
  CREDIT_EXHAUSTED: {
    status: 402,
    retryable: false,
    action: "Buy a score pack or upgrade your plan; credits also reset at the next billing cycle.",
  },
  PLAN_LIMIT_REACHED: { status: 402, retryable: false, action: "Upgrade your plan to raise this limit." },
  FORBIDDEN: { status: 403, retryable: false, action: "Use credentials that are allowed to perform this action." },
  NOT_FOUND: { status: 404, retryable: false, action: "Check the identifier or path." },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, action: "Use one of the methods listed in the Allow header." },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    retryable: false,
    action: "Use a new Idempotency-Key for a different request body.",
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    retryable: true,
    action: "Retry the same request with the same Idempotency-Key shortly: the first one's answer will be replayed.",
  },
  DELIVERY_IN_PROGRESS: {
    status: 409,
    retryable: true,
    action: "Wait until the delivery log shows the attempt under way has ended, then replay it if it is still needed.",
  },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, action: "Send a request body of at most 64 KiB." },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    action: "Send the body as JSON with 'Content-Type: application/json'.",
  },
  QUOTA_EXCEEDED: { status: 429, retryable: false, action: "Wait for the next billing cycle or upgrade your plan." },
  ANON_RATE_LIMIT: {
    status: 429,
    retryable: true,
    action: "Sign up to score more, or retry once the hour has passed.",
  },
  SCORING_RATE_LIMITED: {
    status: 429,
    retryable: true,
    action: "Retry after a short wait.",
  },
  INTERNAL: {
    status: 500,
    retryable: true,
    action: "Retry later; if it persists, contact support quoting the X-Request-Id response header.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    action: "Retry with backoff; a dependency of the service is unavailable.",
  },
} as const satisfies Record<string, { status: number; retryable: boolean; action: string }>;

/** The wait a 503 names when its cause gives none, in seconds. */
export const SERVICE_UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The advice of a refusal that knows its wait, in words every transport can follow
 * (a GraphQL caller never sees the Retry-After header; it gets `retryAfter`).
 */
const actionsWithWait: Partial<Record<keyof typeof errorCatalogue, (seconds: number) => string>> = {
  ANON_RATE_LIMIT: (seconds) => `Sign up to score more, or retry after ${seconds} seconds.`,
  SCORING_RATE_LIMITED: (seconds) => `Retry after ${seconds} seconds.`,
  IDEMPOTENCY_IN_PROGRESS: (seconds) =>
    `Retry the same request with the same Idempotency-Key after ${seconds} seconds: the first one's answer will be replayed.`,
};

export type ErrorCode = keyof typeof errorCatalogue;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === "string" && Object.hasOwn(errorCatalogue, value);

/**
 * The envelope carries the contract's four fields always, and may carry more, never
 * less: `param` when one field is at fault, `requestId` (the answer's X-Request-Id)
 * and `docUrl` (the code's entry in the reference).
 */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    action: string;
    retryable: boolean;
    param?: string;
    requestId?: string;
    docUrl: string;
  };
}

/** Where the reference served at /docs (Redoc) explains the code. */
export const DOCS_PATH = "/docs";

/**
 * The code's anchor in /docs. Redoc makes a section of each level-1 and level-2
 * markdown heading of the document's `info.description`, with the anchor
 * `section/<Heading>/<Subheading>` (headings slugified; a code is its own slug). So the
 * description holds a `# Errors` heading and, under it, one `## <CODE>` per code.
 */
export function docUrlFor(code: ErrorCode): string {
  return `${DOCS_PATH}#section/Errors/${code}`;
}

/**
 * The field a validation message names: by convention (docs/api.md §4) such a message
 * starts with the field path, `url: must be …`, `answers.t1: …`. Messages about the
 * request as a whole (`body: …`, `path: …`) or several fields (`plan, pack: …`) name none.
 */
export function fieldNamedBy(message: string): string | undefined {
  const field = /^([A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])*): /.exec(message)?.[1];
  return field === undefined || field === "body" || field === "path" ? undefined : field;
}

/** Codes whose message names the field at fault (see `fieldNamedBy`). */
const fieldCodes: ReadonlySet<ErrorCode> = new Set(["VALIDATION_FAILED"]);

export interface AppErrorOptions {
  /** Overrides the catalogue's advice for this one occurrence. */
  action?: string;
  /**
   * The path of the one field at fault (`url`, `answers.t1`, `Pms-Version`). Defaults,
   * for VALIDATION_FAILED, to the field its message starts with; `null`: none.
   */
  param?: string | null;
  /** Response headers the REST door must send (Retry-After, Allow …). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An expected failure with a catalogue code; its message is safe to show the caller. */
export class AppError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  readonly action: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly param: string | undefined;
  /** The wait its Retry-After header names, in whole seconds: `extensions.retryAfter` over GraphQL. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    const entry = errorCatalogue[code];
    this.status = entry.status;
    this.retryable = entry.retryable;
    // A 503 says when to come back, as a 429 does (a dependency that blipped is usually back within seconds):
    // the header over HTTP, `extensions.retryAfter` over GraphQL, whichever door the caller came through.
    this.headers =
      code === "SERVICE_UNAVAILABLE" && retryAfterOf(options.headers ?? {}) === undefined
        ? { ...options.headers, "Retry-After": String(SERVICE_UNAVAILABLE_RETRY_SECONDS) }
        : (options.headers ?? {});
    this.param =
      options.param === null
        ? undefined
        : (options.param ?? (fieldCodes.has(code) ? fieldNamedBy(message) : undefined));
    this.retryAfterSeconds = retryAfterOf(this.headers);
    const withWait = this.retryAfterSeconds === undefined ? undefined : actionsWithWait[code];
    this.action = options.action ?? withWait?.(this.retryAfterSeconds!) ?? entry.action;
  }

  /** The REST body; `requestId` is the answer's X-Request-Id. */
  toEnvelope(requestId?: string): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        action: this.action,
        retryable: this.retryable,
        ...this.extras(requestId),
        docUrl: docUrlFor(this.code),
      },
    };
  }

  /** The same fields for a GraphQL error's `extensions` (the message is the error's own), and the wait. */
  toGraphQLExtensions(requestId?: string): Record<string, unknown> {
    return {
      code: this.code,
      action: this.action,
      retryable: this.retryable,
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfter: this.retryAfterSeconds }),
      ...this.extras(requestId),
      docUrl: docUrlFor(this.code),
    };
  }

  private extras(requestId: string | undefined): { param?: string; requestId?: string } {
    return {
      ...(this.param === undefined ? {} : { param: this.param }),
      ...(requestId === undefined ? {} : { requestId }),
    };
  }
}

/** A Retry-After header's delay in seconds (any case of the name); undefined without one or for an HTTP date. */
function retryAfterOf(headers: Readonly<Record<string, string>>): number | undefined {
  const name = Object.keys(headers).find((candidate) => candidate.toLowerCase() === "retry-after");
  const value = name === undefined ? undefined : headers[name];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Errors a database driver raises when the server cannot be reached, is shutting down or will not take a session now. */
const unavailableErrorCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "57P04", // database_dropped
  "53300", // too_many_connections
  "3D000", // invalid_catalog_name: the database does not exist (dropped, or not restored yet)
  "08000",
  "08001",
  "08003",
  "08004",
  "08006", // connection exceptions
]);

/**
 * 55000 (object_not_in_prerequisite_state) is mostly a bug of ours (currval before
 * nextval, a sequence or tablespace in use), so only the start-up refusal counts:
 * `ALLOW_CONNECTIONS false`, or a database left invalid by an interrupted DROP. Both
 * are raised in postinit.c; the file name, unlike the message, is not translated.
 */
const refusesSessions = (candidate: { code?: unknown; file?: unknown; message?: unknown }) =>
  candidate.code === "55000" &&
  (candidate.file === "postinit.c" ||
    (typeof candidate.message === "string" && /is not currently accepting connections/.test(candidate.message)));

export function isUnavailableError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as {
      code?: unknown;
      file?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof candidate.code === "string" && unavailableErrorCodes.has(candidate.code)) return true;
    if (refusesSessions(candidate)) return true;
    if (
      typeof candidate.message === "string" &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
        candidate.message,
      )
    ) {
      return true;
    }
    // pg's own bound on opening a connection (every pooled client has one, see db/database.ts).
    if (candidate.message === "timeout expired") return true;
    if (Array.isArray(candidate.errors) && candidate.errors.some(isUnavailableError)) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * Maps anything thrown to a catalogue error. Unknown errors become INTERNAL with a
 * generic message: their text (stack, SQL, driver detail) never reaches the caller.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const validation =
    validationErrorsOf(error) ?? validationErrorsOf((error as { originalError?: unknown }).originalError);
  if (validation) return validationFromArguments(validation, error);
  if (error instanceof GraphQLError) {
    // A GraphQLError wrapping another (scalar coercion) keeps the outer message: it names the variable.
    if (error.originalError && !(error.originalError instanceof GraphQLError)) return toAppError(error.originalError);
    return graphQLRequestError(error);
  }
  if (isUnavailableError(error)) {
    return new AppError("SERVICE_UNAVAILABLE", "The service cannot reach its database right now.", { cause: error });
  }
  return new AppError("INTERNAL", "An unexpected error occurred.", { cause: error });
}

/**
 * A GraphQLError with no cause: parse, validation and variable errors (no path) are
 * the caller's to fix; an execution error (with a path, e.g. null in a non-null
 * field) is ours and is masked.
 */
function graphQLRequestError(error: GraphQLError): AppError {
  const code = error.extensions?.code;
  // An error already formatted once (graphql-ws formats refusals again on their way out) keeps its wait.
  const retryAfter = error.extensions?.retryAfter;
  const param = error.extensions?.param;
  if (isErrorCode(code))
    return new AppError(code, error.message, {
      ...(Number.isInteger(retryAfter) ? { headers: { "Retry-After": String(retryAfter) } } : {}),
      ...(typeof param === "string" ? { param } : {}),
    });
  if (error.path) return new AppError("INTERNAL", "An unexpected error occurred.", { cause: error });
  return new AppError("VALIDATION_FAILED", error.message, {
    param: variableField(error.message) ?? literalField(error) ?? null,
  });
}

/**
 * The field a validation error about a literal input is at, as a path inside the argument (what
 * `variableField` answers for the same value sent in variables): `score(input: {url: "…", colour: 1})`
 * refused with `Field "colour" is not defined by type …` → `colour`; `{url: 5}` → `url`; nested,
 * `context.colour`; a required field left out (`Field "ScoreInput.url" of required type …`) → `url`.
 * The document is parsed again (only on this refusal) to find the input fields around the node.
 */
export function literalField(error: GraphQLError): string | undefined {
  const node = error.nodes?.[0];
  const start = node?.loc?.start;
  if (!node || start === undefined || !error.source) return undefined;
  const missing = /^Field "\w+\.(\w+)" of required type .* was not provided\.$/.exec(error.message)?.[1];
  let path: string[] | undefined;
  try {
    visit(parse(error.source), {
      enter(candidate, _key, parent, _path, ancestors) {
        if (candidate.kind !== node.kind || candidate.loc?.start !== start) return undefined;
        // `ancestors` stops short of the parent (an input field, for a value): all three together.
        path = [...ancestors, parent, candidate].filter(isObjectField).map((field) => field.name.value);
        return BREAK;
      },
    });
  } catch {
    return undefined;
  }
  if (!path) return undefined;
  if (missing) path.push(missing);
  return path.length > 0 ? path.join(".") : undefined;
}

const isObjectField = (node: unknown): node is ObjectFieldNode =>
  typeof node === "object" &&
  node !== null &&
  !Array.isArray(node) &&
  (node as { kind?: unknown }).kind === Kind.OBJECT_FIELD;

/**
 * The field a graphql-js variable error is about, as a path inside the input (what
 * the field-naming messages say: `url`, not `input.url`): `Variable "$input" got
 * invalid value … at "input.n"; …` → `n`; `…; Field "colour" is not defined by type …`
 * → `colour`; a scalar variable (`$limit`) is its own name.
 */
export function variableField(message: string): string | undefined {
  const refused =
    /^Variable "\$(\w+)" (?:got invalid value .*?(?: at "([\w.[\]]+)")?; (.*)|of required type .* was not provided\.)$/s.exec(
      message,
    );
  if (!refused) return undefined;
  const [, variable, at, reason] = refused as unknown as [string, string, string | undefined, string | undefined];
  const unknown = reason ? /^Field "(\w+)" is not defined by type/.exec(reason)?.[1] : undefined;
  const path = [...(at ?? variable).split(".").slice(1), ...(unknown ? [unknown] : [])].join(".");
  return path === "" ? variable : path;
}

type FieldValidationError = { property: string; constraints?: Record<string, string>; children?: unknown[] };

/**
 * class-validator's failures as type-graphql reports them: on the error itself
 * (type-graphql 1) or in `extensions.validationErrors` (type-graphql 2, a GraphQLError).
 */
function validationErrorsOf(error: unknown): FieldValidationError[] | undefined {
  // type-graphql 2's class extends GraphQLError, whose constructor sets name "GraphQLError".
  if (
    !(error instanceof Error) ||
    (error.name !== "ArgumentValidationError" && error.constructor.name !== "ArgumentValidationError")
  )
    return undefined;
  const holder = error as { validationErrors?: unknown; extensions?: { validationErrors?: unknown } };
  const list = holder.validationErrors ?? holder.extensions?.validationErrors;
  return Array.isArray(list) ? (list as FieldValidationError[]) : undefined;
}

/** type-graphql + class-validator failures: the message names the field, as docs/api.md §4 asks. */
function validationFromArguments(errors: FieldValidationError[], cause: unknown): AppError {
  // Input objects nest their fields' failures one level down (input.name).
  const first = errors[0]?.constraints
    ? errors[0]
    : ((errors[0]?.children?.[0] as FieldValidationError | undefined) ?? errors[0]);
  const constraint = first?.constraints ? Object.values(first.constraints)[0] : undefined;
  const message = first ? `${first.property}: ${constraint ?? "is invalid"}` : "Argument validation failed.";
  return new AppError("VALIDATION_FAILED", message, { cause });
}
