import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dimensionIds, type DimensionId } from "../../src/modules/scoring/scoring.types.js";

/**
 * A local OpenAI-compatible server for the LLM scorer's tests: the real `openai`
 * client talks HTTP to it, so request building, error classes, timeouts and
 * headers are exercised exactly as in production. Each request takes the next
 * scripted step; an unscripted request gets a 500 so an extra call is visible.
 */
export type FakeStep =
  | { readonly kind: "good"; readonly scores?: Partial<Record<DimensionId, number>>; readonly usage?: FakeUsage }
  | { readonly kind: "malformed" }
  | { readonly kind: "partial" }
  | { readonly kind: "slow"; readonly delayMs: number; readonly scores?: Partial<Record<DimensionId, number>> }
  | { readonly kind: "rate_limited"; readonly retryAfterSeconds?: number };

export interface FakeUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The body exactly as sent: determinism tests compare these bytes. */
  readonly raw: string;
  readonly body: unknown;
  readonly authorization: string | undefined;
}

export interface FakeOpenAi {
  /** What to pass as the client's baseURL. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  script(...steps: FakeStep[]): void;
  close(): Promise<void>;
}

/** Every dimension scored, each with one evidence line: the shape a real model returns. */
export function goodAnswer(scores: Partial<Record<DimensionId, number>> = {}, omit: readonly DimensionId[] = []) {
  return {
    dimensions: dimensionIds
      .filter((id) => !omit.includes(id))
      .map((id) => ({
        dimensionId: id,
        score: scores[id] ?? 50,
        confidence: "medium",
        evidence: `"Fake evidence for ${id}" (https://acme.example/)`,
        reasoning: `Fake reasoning for ${id}.`,
      })),
  };
}

export async function startFakeOpenAi(expect: { model?: string; seed?: number } = {}): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  const steps: FakeStep[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "").split("?")[0] ?? "";
    requests.push({ method: req.method ?? "", path, raw, body, authorization: req.headers.authorization });
    if (req.method !== "POST" || path !== "/v1/chat/completions")
      return sendError(res, 404, `Unknown path ${path}`, "invalid_request_error", "unknown_url");
    const problem = shapeProblem(body, expect);
    if (problem) return sendError(res, 400, problem, "invalid_request_error", null);
    const step = steps.shift();
    if (!step) return sendError(res, 500, "The fake server has no scripted answer left.", "server_error", null);
    const model = (body as { model: string }).model;
    switch (step.kind) {
      case "good":
        return sendCompletion(res, model, JSON.stringify(goodAnswer(step.scores)), step.usage);
      case "malformed":
        return sendCompletion(res, model, "Sure! Here are the scores: dimensions {", undefined);
      case "partial":
        return sendCompletion(res, model, JSON.stringify(goodAnswer({}, ["company_momentum"])), undefined);
      case "slow": {
        const timer = setTimeout(
          () => sendCompletion(res, model, JSON.stringify(goodAnswer(step.scores)), undefined),
          step.delayMs,
        );
        // The client gives up first: drop the answer rather than write to a closed socket.
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "rate_limited":
        res.setHeader("retry-after", String(step.retryAfterSeconds ?? 20));
        return sendError(
          res,
          429,
          "Rate limit reached for requests per minute. Please try again in 20s.",
          "requests",
          "rate_limit_exceeded",
        );
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...next) => void steps.push(...next),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** What the scorer must send; anything else is answered the way OpenAI answers a bad request. */
function shapeProblem(body: unknown, expect: { model?: string; seed?: number }): string | undefined {
  if (typeof body !== "object" || body === null) return "We could not parse the JSON body of your request.";
  const request = body as Record<string, unknown>;
  if (typeof request.model !== "string" || request.model === "") return "you must provide a model parameter";
  if (expect.model !== undefined && request.model !== expect.model)
    return `The model \`${request.model}\` does not exist.`;
  if (request.temperature !== 0) return "temperature must be 0 for scoring";
  if (typeof request.seed !== "number" || (expect.seed !== undefined && request.seed !== expect.seed))
    return `seed must be ${expect.seed ?? "a number"}`;
  const format = request.response_format as
    { type?: unknown; json_schema?: { name?: unknown; strict?: unknown; schema?: unknown } } | undefined;
  if (format?.type !== "json_schema") return "response_format.type must be json_schema";
  if (format.json_schema?.strict !== true || typeof format.json_schema.name !== "string")
    return "response_format.json_schema needs a name and strict: true";
  const schemaProblem = strictSchemaProblem(format.json_schema.schema, "schema");
  if (schemaProblem) return `Invalid schema for response_format 'maturity_score': ${schemaProblem}`;
  const messages = request.messages as Array<{ role?: unknown; content?: unknown }> | undefined;
  if (!Array.isArray(messages) || messages.length !== 2) return "messages must hold a system and a user message";
  if (messages[0]?.role !== "system" || messages[1]?.role !== "user") return "messages must be [system, user]";
  if (messages.some((message) => typeof message.content !== "string" || message.content === ""))
    return "message content must be a non-empty string";
  return undefined;
}

/** OpenAI's strict-mode rules: every object closes additionalProperties and requires all its properties. */
function strictSchemaProblem(schema: unknown, at: string): string | undefined {
  if (typeof schema !== "object" || schema === null) return `${at} is not a schema`;
  const node = schema as {
    type?: unknown;
    properties?: Record<string, unknown>;
    required?: unknown;
    additionalProperties?: unknown;
    items?: unknown;
  };
  if (node.type === "object") {
    if (node.additionalProperties !== false)
      return `${at}: 'additionalProperties' is required to be supplied and to be false`;
    const keys = Object.keys(node.properties ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = keys.filter((key) => !required.includes(key));
    if (missing.length > 0)
      return `${at}: 'required' is required to include every key in properties. Missing '${missing[0]}'`;
    for (const key of keys) {
      const problem = strictSchemaProblem(node.properties![key], `${at}.${key}`);
      if (problem) return problem;
    }
  }
  if (node.type === "array") return strictSchemaProblem(node.items, `${at}.items`);
  return undefined;
}

function sendCompletion(res: ServerResponse, model: string, content: string, usage: FakeUsage | undefined): void {
  const promptTokens = usage?.promptTokens ?? 1_000;
  const completionTokens = usage?.completionTokens ?? 500;
  sendJson(res, 200, {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_760_000_000,
    model,
    system_fingerprint: "fp_fake",
    choices: [
      { index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
