import type { AnyRestRoute } from "../route.js";
import type { OperationExamples } from "./examples.js";

/**
 * `x-codeSamples` of each operation (Redoc shows them beside it): curl and, in
 * TypeScript, the typed client (src/client) where it has a method for the route or
 * a plain `fetch` where it has none, and the `pms` command where one exists. curl
 * and fetch are built from the row (method, path, who may call it, Idempotency-Key)
 * and the operation's recorded example; the client and CLI tables below say only
 * which method or command runs the route and with which of the example's values.
 * Addresses and credentials are environment variables, as the CLI reads them.
 */

export interface CodeSample {
  readonly lang: string;
  readonly label: string;
  readonly source: string;
}

interface Values {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A method of PmsClient (dotted for `webhooks.create`) and its arguments, as TypeScript. */
export interface ClientCall {
  readonly method: string;
  readonly args: (values: Values) => string[];
}

/** A `pms` command (as `pms --help` lists it) and its arguments. */
export interface CliCall {
  readonly command: string;
  readonly args: (values: Values) => string[];
}

const literal = (value: unknown) => JSON.stringify(value);
const withContext = (values: Values, extra: Record<string, unknown> = {}) => {
  const options = { ...extra, ...(values.body.context === undefined ? {} : { context: values.body.context }) };
  return Object.keys(options).length > 0 ? [literal(options).replace(/"(\w+)":/g, "$1: ")] : [];
};

/** By operation: the client method that runs the route. */
export const CLIENT_CALLS: Readonly<Record<string, ClientCall>> = {
  Health: { method: "health", args: () => [] },
  Usage: { method: "usage", args: () => [] },
  Score: { method: "score", args: (values) => [literal(values.body.url), ...withContext(values)] },
  QuickScore: {
    method: "score",
    args: (values) => [literal(values.body.url), ...withContext(values, { mode: "quick" })],
  },
  ProductScore: {
    method: "score",
    args: (values) => [literal(values.body.url), ...withContext(values, { mode: "product" })],
  },
  ScoreJob: { method: "job", args: (values) => [literal(values.params.id)] },
  ScoreBatch: { method: "scoreBatch", args: (values) => [literal(values.body.urls ?? []), ...withContext(values)] },
  Batch: { method: "batch", args: (values) => [literal(values.params.id)] },
  ScoreResult: { method: "result", args: (values) => [literal(values.params.id)] },
  CompareScores: {
    method: "compare",
    args: (values) => [
      literal(values.params.id),
      literal(values.params.otherId),
      ...(values.query.allowVersionMismatch === "true" ? ["{ allowVersionMismatch: true }"] : []),
    ],
  },
  ScoreHistory: {
    method: "history",
    args: (values) => (values.query.limit ? [`{ limit: ${Number(values.query.limit)} }`] : []),
  },
  LinkScore: {
    method: "link",
    args: (values) => [literal(values.body.resultId), literal(values.body.claimToken)],
  },
  ListWebhooks: { method: "webhooks.list", args: () => [] },
  CreateWebhook: {
    method: "webhooks.create",
    args: (values) => [
      literal(values.body.url),
      ...(values.body.events ? [`{ events: ${literal(values.body.events)} }`] : []),
    ],
  },
  Webhook: { method: "webhooks.get", args: (values) => [literal(values.params.id)] },
  DeleteWebhook: { method: "webhooks.delete", args: (values) => [literal(values.params.id)] },
  ProductBadge: { method: "productBadge", args: (values) => [literal(values.params.id)] },
};

/** By operation: the `pms` command that runs the route. */
export const CLI_CALLS: Readonly<Record<string, CliCall>> = {
  Health: { command: "health", args: () => [] },
  Usage: { command: "usage", args: () => [] },
  Score: {
    command: "score",
    args: (values) => [
      String(values.body.url),
      ...(values.body.context ? ["--context", shell(values.body.context)] : []),
    ],
  },
  QuickScore: { command: "score", args: (values) => [String(values.body.url), "--quick"] },
  ProductScore: { command: "score", args: (values) => [String(values.body.url), "--product"] },
  ScoreResult: { command: "result", args: (values) => [values.params.id ?? ""] },
  CompareScores: {
    command: "compare",
    args: (values) => [
      values.params.id ?? "",
      values.params.otherId ?? "",
      ...(values.query.allowVersionMismatch === "true" ? ["--allow-version-mismatch"] : []),
    ],
  },
  // The list goes in a file, one address per line.
  ScoreBatch: { command: "batch", args: () => ["urls.txt", "--out", "results.csv"] },
  ScoreHistory: {
    command: "history",
    args: (values) => (values.query.limit ? ["--limit", values.query.limit] : []),
  },
  ListWebhooks: { command: "webhooks list", args: () => [] },
  CreateWebhook: {
    command: "webhooks create",
    args: (values) => [
      String(values.body.url),
      ...(Array.isArray(values.body.events) ? ["--events", values.body.events.join(",")] : []),
    ],
  },
  DeleteWebhook: { command: "webhooks delete", args: (values) => [values.params.id ?? ""] },
  ProductBadge: { command: "badge", args: (values) => ["--product", values.params.id ?? "", "--format", "svg"] },
};

/** A word for a POSIX shell: single-quoted unless it is plain. */
function shell(value: unknown): string {
  const text = String(value);
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

export function codeSamples(
  row: AnyRestRoute,
  operationId: string,
  example: OperationExamples | undefined,
): CodeSample[] {
  const values: Values = {
    params: example?.params ?? {},
    query: example?.query ?? {},
    body: (example?.request ?? {}) as Record<string, unknown>,
  };
  const path = row.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => values.params[name] ?? `{${name}}`);
  const query = Object.keys(values.query).length > 0 ? `?${new URLSearchParams(values.query)}` : "";
  const body = example?.request;
  const samples: CodeSample[] = [{ lang: "Shell", label: "curl", source: curl(row, path + query, body) }];
  const client = CLIENT_CALLS[operationId];
  const sessionOnly = row.doc.auth === "session";
  samples.push(
    client && !sessionOnly
      ? { lang: "TypeScript", label: "TypeScript client", source: clientSample(row, client, values) }
      : { lang: "TypeScript", label: "TypeScript (fetch)", source: fetchSample(row, path + query, body) },
  );
  const cli = CLI_CALLS[operationId];
  if (cli) samples.push({ lang: "Shell", label: "pms CLI", source: cliSample(row, cli, values) });
  return samples;
}

function curl(row: AnyRestRoute, target: string, body: unknown): string {
  const lines = [`curl${row.method === "GET" ? "" : ` -X ${row.method}`} "$PMS_API_URL${target}"`];
  if (row.doc.auth === "session") lines.push(`-b "__session=$PMS_SESSION"`);
  else if (row.doc.auth !== "public") lines.push(`-H "Authorization: Bearer $PMS_API_KEY"`);
  if (row.doc.idempotent) lines.push(`-H "Idempotency-Key: $(uuidgen)"`);
  if (body !== undefined) lines.push(`-H "Content-Type: application/json"`, `-d ${shell(JSON.stringify(body))}`);
  return lines.join(" \\\n  ");
}

function clientSample(row: AnyRestRoute, call: ClientCall, values: Values): string {
  const credentials = row.doc.auth === "public" ? "" : ", apiKey: process.env.PMS_API_KEY";
  return [
    `import { PmsClient } from "./src/client/index.js"; // this repository's typed client (docs/client.md)`,
    "",
    `const client = new PmsClient({ baseUrl: process.env.PMS_API_URL!${credentials} });`,
    `const answer = await client.${call.method}(${call.args(values).join(", ")});`,
  ].join("\n");
}

function fetchSample(row: AnyRestRoute, target: string, body: unknown): string {
  const headers = [
    ...(row.doc.auth === "session" ? ["cookie: `__session=${process.env.PMS_SESSION}`"] : []),
    ...(row.doc.auth === "member" || row.doc.auth === "anonymous"
      ? ["authorization: `Bearer ${process.env.PMS_API_KEY}`"]
      : []),
    ...(row.doc.idempotent ? ['"idempotency-key": crypto.randomUUID()'] : []),
    ...(body !== undefined ? ['"content-type": "application/json"'] : []),
  ];
  const init = [
    ...(row.method === "GET" ? [] : [`  method: "${row.method}",`]),
    ...(headers.length > 0 ? [`  headers: { ${headers.join(", ")} },`] : []),
    ...(body !== undefined ? [`  body: JSON.stringify(${JSON.stringify(body)}),`] : []),
  ];
  const answered = row.doc.responses[204] === null ? "response.status; // 204: no body" : "await response.json();";
  return [
    `const response = await fetch(\`\${process.env.PMS_API_URL}${target}\`${init.length > 0 ? `, {\n${init.join("\n")}\n}` : ""});`,
    `const answer = ${answered}`,
  ].join("\n");
}

function cliSample(row: AnyRestRoute, call: CliCall, values: Values): string {
  const environment = row.doc.auth === "public" ? "PMS_API_URL" : "PMS_API_URL and PMS_API_KEY";
  return `# reads ${environment} from the environment\npms ${call.command}${call
    .args(values)
    .map((arg) => ` ${arg}`)
    .join("")}`;
}
