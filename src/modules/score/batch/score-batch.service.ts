import { randomUUID } from "node:crypto";
import { isUuid } from "../../../db/uuid.js";
import type { Transaction, Transactions } from "../../../db/transaction.js";
import { AppError } from "../../../errors.js";
import { MAX_BATCH_URLS } from "../../../limits.js";
import type { PlanId } from "../../accounts/account.entity.js";
import type { AccountRepository } from "../../accounts/account.repository.js";
import { requireMember, type Viewer } from "../../accounts/viewer.js";
import type { CreditLedger } from "../../billing/ledger.service.js";
import { actionCostTenths } from "../../billing/plans.js";
import { memberSubject, type RateLimiter } from "../../billing/rate-limit/rate-limiter.js";
import {
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyClaim,
  type IdempotencyClaim,
  type IdempotentRequests,
} from "../../idempotency/idempotent-requests.js";
import type { ScoreJobRepository } from "../score-job.repository.js";
import { validContext, validUrl, type ScoreCaller, type ScoreService } from "../score.service.js";
import { batchView, type BatchView } from "./batch-view.js";
import type { BatchItemError } from "./score-batch.entity.js";
import type { NewBatchItem, ScoreBatchRepository } from "./score-batch.repository.js";

/** Batches are included on the plans that include live API keys (programmatic use; the contract's Authentication §3). */
const BATCH_PLANS: ReadonlySet<PlanId> = new Set(["business", "enterprise"]);

/** The idempotency operation of a batch (scoring's single operations use their kinds). */
const BATCH_OPERATION = "score.batch";

export interface BatchRequest {
  readonly urls: unknown;
  readonly context?: unknown;
}

/** The list as sent, read: each item is a distinct address to score, a duplicate of one, or refused. */
interface Planned {
  readonly items: readonly (Omit<NewBatchItem, "jobId"> & { readonly first: number | null })[];
  /** The positions of the items that get a job of their own, in order. */
  readonly distinct: readonly number[];
}

/**
 * Scores a list of addresses for a Business or Enterprise account (docs/api.md §13):
 * each address passes the checks a single score runs, or is refused on its own and
 * costs nothing; distinct addresses get one full maturity job each, all charged in
 * one transaction (or none, when the credits cannot cover them all) and queued
 * with consecutive places in the account's backlog, so other accounts' jobs are
 * served between them. The batch is one request: one short-window slot, one API call.
 */
export class ScoreBatchService {
  constructor(
    private readonly batches: ScoreBatchRepository,
    private readonly jobs: ScoreJobRepository,
    private readonly idempotency: IdempotentRequests,
    private readonly transactions: Transactions,
    private readonly accounts: AccountRepository,
    private readonly ledger: CreditLedger,
    private readonly limiter: RateLimiter,
    /** Announces and enqueues committed jobs, as it does for scores and scheduled re-scores. */
    private readonly scores: Pick<ScoreService, "announceQueued">,
    /** The crawler's address guard, as ScoreService uses it. */
    private readonly checkAddress: (url: URL) => void = () => undefined,
  ) {}

  async start(caller: ScoreCaller, request: BatchRequest): Promise<BatchView> {
    const member = requireMember(caller.viewer);
    const urls = validUrls(request.urls);
    const context = validContext(request.context);
    const { plan } = await this.accounts.get(member.accountId);
    if (!BATCH_PLANS.has(plan)) {
      throw new AppError("PLAN_LIMIT_REACHED", "Scoring a list is included on the Business and Enterprise plans.", {
        action: "Upgrade to Business or Enterprise, or score the addresses one at a time (POST /api/score).",
      });
    }
    const claim = idempotencyClaim(member.accountId, caller.idempotencyKey, BATCH_OPERATION, { urls, context });
    if (claim) {
      const replay = await this.replay(caller, claim);
      if (replay) return replay;
    } else {
      await this.limit(caller);
    }
    const planned = this.plan(urls);
    const batchId = randomUUID();
    let jobIds: string[];
    try {
      jobIds = await this.transactions.run(async (tx) => {
        if (claim) {
          // First, so a concurrent retry with the same key waits here and then replays.
          await this.idempotency.reserve(tx, claim, batchId);
          await this.limit(caller);
        }
        return this.create(tx, caller, member.accountId, { batchId, context, planned });
      });
    } catch (error) {
      if (claim && this.idempotency.isTaken(error)) {
        const replay = await this.replay(caller, claim);
        if (replay) return replay;
      }
      throw error;
    }
    caller.apiCallCharged();
    // Committed and charged: a queue or bus hiccup must not fail the request (the sweep enqueues waiting jobs).
    await this.scores.announceQueued(jobIds);
    return this.read(batchId);
  }

  /** A batch of the viewer's account; anyone else's, or none, is NOT_FOUND alike. */
  async batchFor(viewer: Viewer, batchId: string): Promise<BatchView> {
    const member = requireMember(viewer);
    const stored = isUuid(batchId) ? await this.batches.find(batchId) : undefined;
    if (!stored || stored.accountId !== member.accountId) throw new AppError("NOT_FOUND", "No such batch.");
    return batchView(stored);
  }

  /** The batch as stored now (its owner was checked before). */
  async read(batchId: string): Promise<BatchView> {
    const stored = await this.batches.find(batchId);
    if (!stored) throw new AppError("NOT_FOUND", "No such batch.");
    return batchView(stored);
  }

  /** Reads every address: normalized and checked as a single score does, or refused with its error. */
  private plan(urls: readonly string[]): Planned {
    const firstOf = new Map<string, number>();
    const distinct: number[] = [];
    const items = urls.map((url, position) => {
      let normalized: URL;
      try {
        normalized = validUrl(url.trim());
        this.checkAddress(normalized);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const refusal: BatchItemError = { code: error.code, message: error.message };
        return { position, url, normalizedUrl: null, duplicateOf: null, error: refusal, first: null };
      }
      const earlier = firstOf.get(normalized.href);
      if (earlier === undefined) {
        firstOf.set(normalized.href, position);
        distinct.push(position);
      }
      return {
        position,
        url,
        normalizedUrl: normalized.href,
        duplicateOf: earlier ?? null,
        error: null,
        first: earlier ?? position,
      };
    });
    return { items, distinct };
  }

  /**
   * In the transaction: spends a score per distinct address with the reference its
   * job's refund uses (`job:<id>`), charges the one API call, and inserts the jobs at
   * consecutive places of the account's backlog, then the batch. Any refusal (credits,
   * quota) rolls all of it back.
   */
  private async create(
    tx: Transaction,
    caller: ScoreCaller,
    accountId: string,
    { batchId, context, planned }: { batchId: string; context: string | null; planned: Planned },
  ): Promise<string[]> {
    const jobOf = new Map<number, string>(planned.distinct.map((position) => [position, randomUUID()]));
    const references = [...jobOf.values()].map((jobId) => `job:${jobId}`);
    // The whole list in one statement when plan credits cover it; otherwise one spend each (the cycle's first
    // charge, pack credits), the first refusal refusing the batch.
    const charged = await this.ledger.spendAcrossFromPlan(
      tx,
      "score",
      actionCostTenths.score,
      new Map([[accountId, references]]),
    );
    if (!charged.has(accountId)) {
      for (const reference of references) {
        await this.ledger.spend(accountId, "score", actionCostTenths.score, reference, { manager: tx });
      }
    }
    await caller.chargeApiCall(tx);
    const { viewer } = caller;
    const backlog = await this.jobs.countBacklog(tx, { accountId });
    // One statement for all of them; their places in the backlog follow each other.
    await this.jobs.insertQueuedMany(
      tx,
      [...jobOf].map(([position, jobId], index) => ({
        id: jobId,
        fairRank: backlog + index,
        accountId,
        userId: viewer.kind === "member" && viewer.via === "session" ? viewer.userId : null,
        apiKeyId: viewer.kind === "member" && viewer.via === "api_key" ? viewer.apiKeyId : null,
        requesterIp: null,
        claimTokenHash: null,
        kind: "score",
        url: planned.items[position]!.normalizedUrl!,
        context,
        productId: null,
        progress: { jobId, status: "queued" },
      })),
    );
    await this.batches.insert(
      tx,
      { id: batchId, accountId, context },
      planned.items.map(({ first, ...item }) => ({ ...item, jobId: first === null ? null : jobOf.get(first)! })),
    );
    return [...jobOf.values()];
  }

  /** The short-window limit: the batch is one request (one slot), as one score is. */
  private async limit(caller: ScoreCaller): Promise<void> {
    const decision = await this.limiter.check("score", memberSubject(requireMember(caller.viewer)));
    caller.setHeaders(decision.headers);
    if (!decision.allowed) throw decision.toError();
  }

  /** The batch a used key names; undefined when the key is unused. */
  private async replay(caller: ScoreCaller, claim: IdempotencyClaim): Promise<BatchView | undefined> {
    const record = await this.idempotency.recorded(claim);
    if (!record?.resourceId) return undefined;
    caller.setHeaders({ [IDEMPOTENT_REPLAYED_HEADER]: "true" });
    const headers = await this.limiter.peek("score", memberSubject(requireMember(caller.viewer)));
    if (headers) caller.setHeaders(headers);
    return this.read(record.resourceId);
  }
}

/** 1 to MAX_BATCH_URLS strings; each is judged on its own later (a bad one is refused alone). */
function validUrls(input: unknown): string[] {
  if (!Array.isArray(input))
    throw new AppError("VALIDATION_FAILED", "urls: must be a list of addresses", { param: "urls" });
  if (input.length === 0)
    throw new AppError("VALIDATION_FAILED", "urls: must list at least one address", { param: "urls" });
  if (input.length > MAX_BATCH_URLS)
    throw new AppError("VALIDATION_FAILED", `urls: must list at most ${MAX_BATCH_URLS} addresses`, { param: "urls" });
  return input.map((url) => (typeof url === "string" ? url : String(url)));
}
