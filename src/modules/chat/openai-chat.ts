import OpenAI from "openai";
import { AppError } from "../../errors.js";
import type { ResultCore } from "../score/score-result.view.js";
import type { Citation } from "./chat.entity.js";
import { citationFor, type ChatEngine, type ChatReply, type ChatRequest } from "./chat-engine.js";

const MAX_REPLY_TOKENS = 700;
const MARKER = /\[\[([a-z_]{3,40})\]\]/g;

/**
 * Replies through the OpenAI Chat Completions API (`openai` client; OPENAI_BASE_URL
 * and CHAT_MODEL settings), streamed. The model sees the result's dimensions, their
 * evidence and reasoning, and the conversation so far; it cites a dimension by
 * writing [[dimension_id]], and only markers naming a dimension of this result with
 * evidence become citations (the rest are dropped). A rate limit, a failure or an
 * empty answer is an error the chat service refunds.
 */
export class OpenAiChatEngine implements ChatEngine {
  readonly name = "llm" as const;
  private readonly client: OpenAI;

  constructor(options: { apiKey: string; baseUrl?: string | undefined; model: string; timeoutMs?: number }) {
    this.client = new OpenAI({ apiKey: options.apiKey, ...(options.baseUrl ? { baseURL: options.baseUrl } : {}), maxRetries: 0, timeout: options.timeoutMs ?? 60_000 });
    this.model = options.model;
  }

  private readonly model: string;

  async reply(request: ChatRequest): Promise<ChatReply> {
    let text = "";
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.model,
          stream: true,
          temperature: 0.2,
          max_tokens: MAX_REPLY_TOKENS,
          messages: [
            { role: "system", content: systemPrompt(request.result) },
            ...request.history.map((turn) => ({ role: turn.role, content: turn.content })),
            { role: "user", content: request.message },
          ],
        },
        request.signal ? { signal: request.signal } : {},
      );
      for await (const chunk of stream) {
        const token = chunk.choices?.[0]?.delta?.content;
        if (typeof token !== "string" || token === "") continue;
        text += token;
        request.onToken?.(token);
      }
    } catch (error) {
      if (error instanceof OpenAI.APIError && error.status === 429) {
        throw new AppError("SERVICE_UNAVAILABLE", "The chat model is busy; nothing was charged. Try again in a minute.");
      }
      throw new AppError("SERVICE_UNAVAILABLE", "The chat model could not answer; nothing was charged. Try again.", { cause: error });
    }
    const content = text.replace(MARKER, "").replace(/[ \t]+\n/g, "\n").trim();
    if (content === "") throw new AppError("SERVICE_UNAVAILABLE", "The chat model gave an empty answer; nothing was charged. Try again.");
    const cited = new Set([...text.matchAll(MARKER)].map((match) => match[1]!));
    const citations = [...cited].flatMap((dimensionId) => {
      const citation = citationFor(request.result, dimensionId);
      return citation ? [citation] : ([] as Citation[]);
    });
    return { content, citations };
  }
}

function systemPrompt(result: ResultCore): string {
  const dimensions = result.dimensions.map((dimension) => ({
    id: dimension.dimensionId,
    name: dimension.dimensionName,
    score: dimension.score,
    stage: dimension.stageName,
    confidence: dimension.confidence,
    evidence: dimension.evidenceItems.slice(0, 3).map((item) => ({ url: item.url ?? null, text: item.text.slice(0, 300) })),
    reasoning: dimension.reasoning.slice(0, 600),
  }));
  return [
    "You answer a founder's questions about their product's maturity score. Use only the score below: never invent evidence, customers or numbers.",
    "After each claim that rests on a dimension's evidence, write the dimension's id in double brackets, e.g. [[pricing_packaging]].",
    "Be concrete and brief: what the score shows, why, and what would raise it most.",
    `Company: ${result.companyName}; site ${result.url}; total ${result.totalScore}/100 (${result.stageName}); framework ${result.framework} ${result.frameworkVersion}.`,
    `Strengths: ${result.strengths.join(", ") || "none"}. Gaps: ${result.gaps.join(", ") || "none"}.`,
    `Dimensions (JSON): ${JSON.stringify(dimensions)}`,
  ].join("\n");
}
