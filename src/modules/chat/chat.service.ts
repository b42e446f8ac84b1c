import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { AlsoInTransaction, Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import { isUuid } from "../../db/uuid.js";
import { ABANDONED_AFTER_MS } from "../idempotency/idempotent-requests.js";
import { requireMember, type Viewer } from "../accounts/viewer.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import { actionCostTenths, tenthsToCredits } from "../billing/plans.js";
import { memberSubject, type RateLimiter } from "../billing/rate-limit/rate-limiter.js";
import type { ProductsService } from "../products/products.service.js";
import { pageLimit } from "../../db/keyset-page.js";
import type { ScoreResultsService } from "../score/score-results.service.js";
import { ChatEngineError, type ChatEngine, type ChatReply, type ChatRequest } from "./chat-engine.js";
import type { ChatMessage } from "./chat.entity.js";
import type { ChatRepository } from "./chat.repository.js";

import { MAX_CHAT_MESSAGE_LENGTH } from "../../limits.js";
/** Earlier turns the engine sees: the newest ones, each cut to this length. */
const HISTORY_TURNS = 10;
const HISTORY_TURN_LENGTH = 2_000;

export interface ChatInput {
  readonly message: unknown;
  readonly resultId?: unknown;
  readonly productId?: unknown;
  readonly conversationId?: unknown;
}

/** One event of a streamed reply: tokens as they come, then the stored reply. */
export interface ChatReplyEvent {
  readonly token: string | null;
  readonly done: boolean;
  readonly conversationId: string | null;
  readonly reply: ChatMessage | null;
}

export interface ChatAnswer {
  readonly conversationId: string;
  readonly reply: ChatMessage;
  readonly usage: { readonly credits: number };
}

/**
 * Unusable chat replies (the model answered, nothing showable) an account may have
 * refunded in any hour. Each stands for up to two
 * model calls (an unusable reply is asked once more), so this bounds the model calls
 * an account gets for free; past it new chats are refused until the hour frees one.
 */
export const CHAT_REFUNDS_PER_HOUR = 10;

/**
 * Chat about a result (contract: chat costs 1 credit, 30 per 60 s, Free 30 a month,
 * anonymous none). The layers in order: the hourly bound on refunded replies, the
 * short-window limit (per person, per account for API keys; fail-closed), then in one
 * transaction the quota and credits with the stored question; then the engine. A
 * reply that fails is settled by `settleFailure` and nothing of it is stored.
 * Conversations belong to the account.
 */
export class ChatService {
  constructor(
    private readonly chats: ChatRepository,
    private readonly transactions: Transactions,
    private readonly ledger: CreditLedger,
    private readonly limiter: RateLimiter,
    private readonly results: ScoreResultsService,
    private readonly products: ProductsService,
    private readonly engine: ChatEngine,
    private readonly logger: Pick<Logger, "warn">,
  ) {}

  async send(
    viewer: Viewer,
    input: ChatInput,
    onToken?: (token: string) => void,
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<ChatAnswer> {
    const member = requireMember(viewer);
    const message = validMessage(input.message);
    const subject = await this.subject(member.accountId, input);
    // Before the short-window limit, so a chat refused here spends none of its slots.
    await this.refuseAfterManyRefunds(member.accountId);

    const decision = await this.limiter.check("chat", memberSubject(member));
    if (!decision.allowed) throw decision.toError();

    const questionId = randomUUID();
    const reference = `chat:${questionId}`;
    const conversationId = await this.transactions.run(async (tx) => {
      await this.ledger.spend(member.accountId, "chat", actionCostTenths.chat, reference, { manager: tx });
      let id = subject.conversationId;
      if (!id) {
        id = await this.chats.startConversation(tx, {
          accountId: member.accountId,
          resultId: subject.resultId,
          productId: subject.productId,
        });
      } else {
        await this.chats.touchConversation(tx, id, new Date());
      }
      await this.chats.addQuestion(tx, questionId, id, message);
      return id;
    });

    try {
      const result = await this.results.getPublic(subject.resultId);
      const history = await this.history(conversationId, questionId);
      const reply = await this.replyWithOneRetry({ result, history, message, ...(onToken ? { onToken } : {}) });
      const stored = await this.chats.addReply(
        conversationId,
        questionId,
        reply.content,
        reply.citations,
        alsoInTransaction,
      );
      return { conversationId, reply: stored, usage: { credits: tenthsToCredits(actionCostTenths.chat) } };
    } catch (error) {
      // A reply whose commit went through before its connection dropped was made and is kept: it is not a failure
      // to refund (with an Idempotency-Key the retry replays it).
      if (await this.chats.replied(questionId).catch(() => false)) {
        throw new AppError(
          "SERVICE_UNAVAILABLE",
          "The reply was stored, but the answer to this request was lost; it is in the conversation. It was charged once.",
          { cause: error },
        );
      }
      // No answer; the question stays in the conversation.
      throw await this.settleFailure(member.accountId, questionId, error);
    }
  }

  /**
   * A reply the service cannot use is asked for once more, when nothing of it reached
   * the caller (the second attempt's tokens would follow the first's otherwise).
   */
  private async replyWithOneRetry(request: ChatRequest): Promise<ChatReply> {
    try {
      return await this.engine.reply(request);
    } catch (error) {
      if (!(error instanceof ChatEngineError && error.kind === "unusable" && !error.shown)) throw error;
      this.logger.warn({ err: error }, "the chat model's reply was unusable; asking once more");
      return this.engine.reply(request);
    }
  }

  /**
   * What a failed reply costs, and the error to answer. The model call is the cost:
   * when the model did reply (unusable) the credit is refunded but the message still
   * counts toward the month's chats, at most CHAT_REFUNDS_PER_HOUR times an hour, past
   * which the charge stands; when no reply was produced (the provider refused or was
   * unreachable) nothing was used, and both are given back, without a bound.
   */
  private async settleFailure(accountId: string, questionId: string, error: unknown): Promise<AppError> {
    const reference = `chat:${questionId}`;
    const modelReplied = error instanceof ChatEngineError && error.kind === "unusable";
    let charge: string;
    try {
      if (!modelReplied) {
        await this.ledger.refund(accountId, reference);
        charge = "Nothing was charged.";
      } else {
        const limit = { action: "chat", perHour: CHAT_REFUNDS_PER_HOUR } as const;
        const refunded = await this.ledger.refundCreditsWithinHourlyLimit(accountId, reference, limit);
        charge =
          refunded === "limited"
            ? `It was charged: ${CHAT_REFUNDS_PER_HOUR} unusable replies of this account were refunded in the last hour, the most per hour.`
            : "The credit was refunded; the message still counts toward this month's chat messages.";
      }
      // Settled: the abandonment sweep leaves it alone. Unmarked (the database failed here), the sweep refunds
      // it later, at most once (a refund is one per spend).
      await this.chats
        .markFailed(questionId)
        .catch((markError: unknown) => this.logger.warn({ err: markError, reference }, "could not mark a failed chat"));
    } catch (refundError) {
      this.logger.warn(
        { err: refundError, reference },
        "could not refund a failed chat reply; the ledger keeps the spend",
      );
      // Left pending: the abandonment sweep gives the credit back once the question is 10 minutes old.
      charge = "It could not be refunded just now; it will be within 15 minutes.";
    }
    if (error instanceof AppError) return error;
    const reason = error instanceof ChatEngineError ? error.message : "The reply could not be produced.";
    return new AppError("SERVICE_UNAVAILABLE", `${reason} ${charge}`, { cause: error });
  }

  /**
   * Gives back the credit of chats whose process died after charging and before settling (no reply stored, no
   * failure answered) once they are ABANDONED_AFTER_MS old: far longer than any reply takes, and when their
   * Idempotency-Key, too, is taken as abandoned. Each is marked and refunded in one commit, and only while still
   * pending, so a reply stored late is never refunded and no spend is refunded twice. At most `limit` a sweep.
   */
  async refundAbandoned(now: Date = new Date(), limit = 100): Promise<number> {
    const questions = await this.chats.pendingQuestions(new Date(now.getTime() - ABANDONED_AFTER_MS), limit);
    let refunded = 0;
    for (const question of questions) {
      const done = await this.transactions.run(async (tx) => {
        if (!(await this.chats.markAbandoned(tx, question.id))) return false;
        await this.ledger.refund(question.accountId, `chat:${question.id}`, { manager: tx });
        return true;
      });
      if (done) refunded += 1;
    }
    if (refunded > 0) this.logger.warn({ refunded }, "refunded chats whose process died before they were settled");
    return refunded;
  }

  /** 429 while the account has had its most refunded unusable replies of the hour: each was a model call nobody paid for. */
  private async refuseAfterManyRefunds(accountId: string): Promise<void> {
    const recent = await this.ledger.creditRefundsInLastHour(accountId, "chat", CHAT_REFUNDS_PER_HOUR);
    if (recent.count < CHAT_REFUNDS_PER_HOUR) return;
    const retryAfter = Math.max(recent.retryAfterSeconds, 1);
    throw new AppError(
      "SCORING_RATE_LIMITED",
      `${CHAT_REFUNDS_PER_HOUR} chat replies of this account were unusable and refunded in the last hour, the most per hour; retry in ${retryAfter} seconds.`,
      { headers: { "Retry-After": String(retryAfter) } },
    );
  }

  /**
   * The answer of a chat an idempotent request sent, for its replay: the stored reply,
   * read back (no model call, no charge).
   */
  async answered(viewer: Viewer, replyId: string): Promise<ChatAnswer> {
    const member = requireMember(viewer);
    const reply = isUuid(replyId) ? await this.chats.findMessageOfAccount(member.accountId, replyId) : null;
    if (!reply) throw new AppError("NOT_FOUND", "The reply this Idempotency-Key was answered with is gone.");
    return {
      conversationId: reply.conversationId,
      reply,
      usage: { credits: tenthsToCredits(actionCostTenths.chat) },
    };
  }

  /** A conversation of the account, its messages newest first, keyset-paginated. */
  async conversation(viewer: Viewer, id: string, limit: number | null | undefined, cursor: string | undefined) {
    const member = requireMember(viewer);
    const conversation = isUuid(id) ? await this.chats.findConversationOfAccount(member.accountId, id) : null;
    if (!conversation) throw new AppError("NOT_FOUND", "No such conversation.");
    const page = await this.chats.pageOfMessages(conversation.id, pageLimit(limit), cursor);
    return { conversation, messages: page.rows, nextCursor: page.nextCursor };
  }

  /** What the conversation is about: an existing conversation of the account, a result (public by id), or a product of the account (its newest result). */
  private async subject(
    accountId: string,
    input: ChatInput,
  ): Promise<{ conversationId?: string; resultId: string; productId: string | null }> {
    const given = ["conversationId", "resultId", "productId"].filter(
      (key) => input[key as keyof ChatInput] !== undefined && input[key as keyof ChatInput] !== null,
    );
    if (input.conversationId !== undefined && input.conversationId !== null) {
      const id = input.conversationId;
      const conversation =
        typeof id === "string" && isUuid(id) ? await this.chats.findConversationOfAccount(accountId, id) : null;
      if (!conversation) throw new AppError("NOT_FOUND", "No such conversation.");
      return { conversationId: conversation.id, resultId: conversation.resultId, productId: conversation.productId };
    }
    if (given.length !== 1)
      throw new AppError(
        "VALIDATION_FAILED",
        "resultId: send a resultId or a productId (one of them), or the conversationId of an earlier message",
      );
    if (input.resultId !== undefined && input.resultId !== null) {
      if (typeof input.resultId !== "string") throw new AppError("VALIDATION_FAILED", "resultId: must be a string");
      const result = await this.results.getPublic(input.resultId);
      return { resultId: result.id, productId: null };
    }
    const productId = input.productId;
    // The products module's own lookup: NOT_FOUND for another account's product or an id that is not one.
    if (typeof productId !== "string") throw new AppError("NOT_FOUND", "No such product.");
    const product = await this.products.get(accountId, productId);
    const latest = await this.chats.latestResultOfProduct(product.id);
    if (!latest) throw new AppError("VALIDATION_FAILED", "productId: this product has no score yet; score it first");
    return { resultId: latest, productId: product.id };
  }

  private async history(conversationId: string, currentId: string) {
    const rows = await this.chats.newestMessagesExcept(conversationId, currentId, HISTORY_TURNS);
    return rows.reverse().map((row) => ({ role: row.role, content: row.content.slice(0, HISTORY_TURN_LENGTH) }));
  }
}

function validMessage(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw new AppError("VALIDATION_FAILED", "message: is required");
  if (value.length > MAX_CHAT_MESSAGE_LENGTH)
    throw new AppError("VALIDATION_FAILED", `message: must be at most ${MAX_CHAT_MESSAGE_LENGTH} characters`);
  return value;
}

/**
 * `send` as a stream (the GraphQL `chatReply` subscription): each token as the engine
 * produces it, then one last event with the stored reply. Charging, limits and refunds
 * are `send`'s. A subscriber that leaves early does not cancel the reply: it is
 * stored, and can be read back with the conversation.
 */
export async function* chatReplyStream(
  chat: ChatService,
  viewer: Viewer,
  input: ChatInput,
): AsyncGenerator<ChatReplyEvent> {
  const tokens: string[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let answer: ChatAnswer | undefined;
  let failure: unknown;
  void chat
    .send(viewer, input, (token) => {
      tokens.push(token);
      wake?.();
    })
    .then(
      (value) => (answer = value),
      (error: unknown) => (failure = error),
    )
    .finally(() => {
      finished = true;
      wake?.();
    });
  for (;;) {
    while (tokens.length > 0) yield { token: tokens.shift()!, done: false, conversationId: null, reply: null };
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  if (failure !== undefined || !answer) throw failure ?? new AppError("INTERNAL", "The reply ended without an answer.");
  yield { token: null, done: true, conversationId: answer.conversationId, reply: answer.reply };
}

/** Runs `refundAbandoned` every `everyMs` (unref'd); `stop` waits for a sweep in flight. */
export function startChatSweep(
  chat: Pick<ChatService, "refundAbandoned">,
  logger: Pick<Logger, "warn">,
  everyMs = 60_000,
): { stop(): Promise<void> } {
  let inFlight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = inFlight
      .then(() => chat.refundAbandoned())
      .catch((error: unknown) => logger.warn({ err: error }, "chat sweep failed"));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
