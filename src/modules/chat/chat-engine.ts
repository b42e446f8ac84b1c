import type { ResultCore } from "../score/score-result.view.js";
import type { Citation } from "./chat.entity.js";

export interface ChatTurn {
  readonly role: "user" | "assistant";
  readonly content: string;
}

export interface ChatRequest {
  /** The result the conversation is about, with its 27 dimensions, evidence and reasoning. */
  readonly result: ResultCore;
  /** Earlier turns of the conversation, oldest first (bounded by the service). */
  readonly history: readonly ChatTurn[];
  readonly message: string;
  /** Each piece of the reply as it is produced (the LLM streams; the deterministic engine sends one). */
  readonly onToken?: (token: string) => void;
  readonly signal?: AbortSignal;
}

export interface ChatReply {
  readonly content: string;
  /** Only citations of evidence the result really holds. */
  readonly citations: readonly Citation[];
}

/** Two engines, one interface, like the scorers. */
export interface ChatEngine {
  readonly name: "deterministic" | "llm";
  reply(request: ChatRequest): Promise<ChatReply>;
}

/** The first evidence item of a dimension that names a page: what a citation of it points at. */
export function citationFor(result: ResultCore, dimensionId: string): Citation | undefined {
  const dimension = result.dimensions.find((candidate) => candidate.dimensionId === dimensionId);
  const item =
    dimension?.evidenceItems.find((evidence) => evidence.url && !evidence.selfReported) ?? dimension?.evidenceItems[0];
  if (!dimension || !item) return undefined;
  return { dimensionId, url: item.url ?? null, quote: item.text };
}

/**
 * Why an engine has no reply, which decides what the customer pays:
 * - "unavailable": no model reply was produced (refused, unreachable, an error status
 *   or a broken stream before the first token), so nothing was used.
 * - "unusable": the model did reply, but with nothing the service can show (only
 *   citation markers, or a stream cut off part way): the model call happened.
 * `shown` says whether part of the reply already reached the caller as tokens.
 */
export class ChatEngineError extends Error {
  readonly shown: boolean;

  constructor(
    readonly kind: "unavailable" | "unusable",
    message: string,
    options: { readonly shown?: boolean; readonly cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ChatEngineError";
    this.shown = options.shown ?? false;
  }
}
