import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local server speaking the Chat Completions wire protocol for the chat engine's
 * tests: the real `openai` client streams from it (server-sent events of
 * `chat.completion.chunk` objects, then `[DONE]`). Each request takes the next
 * scripted step; an unscripted request gets a 500.
 */
export type ChatStep =
  | { readonly kind: "stream"; readonly tokens: readonly string[] }
  | { readonly kind: "rate_limited" }
  | { readonly kind: "malformed" };

export interface FakeOpenAiChat {
  readonly baseUrl: string;
  readonly requests: Array<{ path: string; body: Record<string, unknown>; authorization: string | undefined }>;
  script(...steps: ChatStep[]): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiChat(): Promise<FakeOpenAiChat> {
  const steps: ChatStep[] = [];
  const requests: FakeOpenAiChat["requests"] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      requests.push({ path: request.url ?? "", body, authorization: request.headers.authorization });
      const step = steps.shift();
      if (!step || request.url !== "/v1/chat/completions") {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "unscripted request", type: "server_error" } }));
        return;
      }
      if (step.kind === "rate_limited") {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "20" });
        response.end(
          JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (step.kind === "malformed") {
        response.end("data: {this is not json\n\n");
        return;
      }
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: String(body.model), choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.write(chunk({ role: "assistant", content: "" }, null));
      for (const token of step.tokens) response.write(chunk({ content: token }, null));
      response.write(chunk({}, "stop"));
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (...next) => void steps.push(...next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
