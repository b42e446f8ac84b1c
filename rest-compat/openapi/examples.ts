import { fileURLToPath } from "node:url";
import committed from "./examples.json" with { type: "json" };

/**
 * The examples of the OpenAPI document: what a real run of the service sent and
 * answered, written by `npm run openapi:examples` (scripts/openapi-examples.ts) and
 * committed. Keyed by the GraphQL operation a route runs, so a route keeps its
 * examples when its path or table row changes. A test validates every example
 * against the document's schemas and fails when an operation has none.
 */

export interface OperationExamples {
  /** Path parameters of the request. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** The JSON body sent. */
  request?: unknown;
  /** By status: the body answered (`null` for none). */
  responses: Record<string, unknown>;
}

export interface WebhookExample {
  /** The Standard Webhooks headers, the signature made with the example's (fake) secret. */
  headers: Record<string, string>;
  body: unknown;
}

export interface ExampleFile {
  generatedBy: string;
  operations: Record<string, OperationExamples>;
  /** By error code: an envelope the service answered (or one shaped like them, for codes a run cannot provoke). */
  errors: Record<string, unknown>;
  /** By event kind: one delivery. */
  webhooks: Record<string, WebhookExample>;
}

/** Where the script writes them (the source tree; read only by the script). */
export const EXAMPLES_FILE = fileURLToPath(new URL("./examples.json", import.meta.url));

export const examples = committed as unknown as ExampleFile;
