import { createHash, randomBytes, randomUUID } from "node:crypto";
import { isUuid } from "../../db/uuid.js";
import type { Logger } from "pino";
import type { Transaction, Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import type { AccountRepository } from "../accounts/account.repository.js";
import type { MeteredCaller, Viewer } from "../accounts/viewer.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import { actionCostTenths } from "../billing/plans.js";
import type { AnonymousCap } from "../billing/rate-limit/anonymous-cap.js";
import { memberSubject, type RateLimiter } from "../billing/rate-limit/rate-limiter.js";
import { normalizeInputUrl } from "../crawl/url.js";
import { clientNetwork } from "../../net/client-network.js";
import type { ProductsService } from "../products/products.service.js";
import { openClaimToken, sealClaimToken } from "../idempotency/idempotency-seal.js";
import {
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyClaim,
  type IdempotencyClaim,
  type IdempotentRequests,
} from "../idempotency/idempotent-requests.js";
import type { ScoreJob, ScoreKind } from "./score-job.entity.js";
import type { NewJob, ScoreJobRepository } from "./score-job.repository.js";
import { isTerminal, type JobQueue, type ProgressBus, type ScoreProgress } from "./score-progress.js";

import { MAX_CONTEXT_LENGTH, MAX_URL_LENGTH } from "../../limits.js";
export { IDEMPOTENCY_WINDOW_MS } from "../idempotency/idempotent-requests.js";

export interface ScoreRequest {
  readonly kind: ScoreKind;
  readonly url: unknown;
  readonly context?: unknown;
}

/** Who asks, as the front door saw it. */
export interface ScoreCaller extends MeteredCaller {
  readonly clientIp: string;
  readonly requestId: string;
  readonly idempotencyKey: string | undefined;
}

export interface StartedJob {
  readonly job: ScoreJob;
  /** Anonymous jobs: the one-time token that links the held result to an account. */
  readonly claimToken: string | null;
}

/** A request past `admit`: its valid fields, who it is counted as, and its idempotency identity. */
interface Admitted {
  readonly kind: ScoreKind;
  readonly url: URL;
  readonly context: string | null;
  /** The requester's network (an address, or an IPv6 /64): what anonymous callers are counted by. */
  readonly network: string;
  /** The request's idempotency identity, when it sent a key (scoped to the account, or `ip:<network>`). */
  readonly claim: IdempotencyClaim | undefined;
}

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

/**
 * Starts scoring jobs (docs/api.md §3, accounts issue): the layers run in the
 * contract's order, and a request refused by any of them is charged nothing:
 * short-window rate limit (per user, per account for API keys; the anonymous cap per
 * network), then in one
 * transaction the plan quota and credits, the API-call ceiling, the product limit,
 * and the job row. A replayed Idempotency-Key skips all of it.
 */
export class ScoreService {
  private readonly stopping = new AbortController();

  constructor(
    private readonly jobs: ScoreJobRepository,
    private readonly idempotency: IdempotentRequests,
    private readonly transactions: Transactions,
    private readonly accounts: AccountRepository,
    private readonly ledger: CreditLedger,
    private readonly limiter: RateLimiter,
    private readonly anonymousCap: AnonymousCap,
    private readonly products: ProductsService,
    private readonly queue: JobQueue,
    private readonly bus: ProgressBus,
    private readonly logger: Pick<Logger, "warn">,
    /** Refuses at once an address the crawl would refuse without DNS (the crawler's address guard). */
    private readonly checkAddress: (url: URL) => void = () => undefined,
  ) {}

  /**
   * `admit` the request; answer a used key's job (`replay`); apply layer 1 (`limit`);
   * then in one transaction `reserve` the key, `charge` and `insertJob`; `announce` it.
   */
  async start(caller: ScoreCaller, request: ScoreRequest): Promise<StartedJob> {
    const admitted = this.admit(caller, request);
    if (admitted.claim) {
      const replay = await this.replay(caller, admitted);
      if (replay) return replay;
    }
    // With a key, layer 1 runs once the key is this request's (in `reserve`): concurrent retries of one
    // request then wait for the first and replay it, instead of each spending a slot (or, anonymous,
    // being refused the hour's one score that the first request is using).
    if (!admitted.claim) await this.limit(caller, admitted);

    const claimToken = caller.viewer.kind === "anonymous" ? `clm_${randomBytes(24).toString("base64url")}` : null;
    let job: ScoreJob;
    try {
      job = await this.transactions.run(async (tx) => {
        const jobId = randomUUID();
        await this.reserve(tx, caller, admitted, jobId, claimToken);
        const productId = await this.charge(tx, caller, admitted, jobId);
        return this.insertJob(tx, caller, admitted, { jobId, productId, claimToken });
      });
    } catch (error) {
      // A concurrent request with the same key committed first: answer its job.
      if (admitted.claim && this.idempotency.isTaken(error)) {
        const replay = await this.replay(caller, admitted);
        if (replay) return replay;
      }
      throw error;
    }
    if (caller.viewer.kind === "member") caller.apiCallCharged();
    await this.announce(job);
    return { job, claimToken };
  }

  /**
   * The checks that need no state: the request's fields, the crawler's address
   * check and who may ask for a product score; then who the caller is counted as
   * (an account, or an anonymous network) and the request's idempotency identity.
   */
  private admit(caller: ScoreCaller, request: ScoreRequest): Admitted {
    const url = validUrl(request.url);
    this.checkAddress(url);
    const context = validContext(request.context);
    const { viewer } = caller;
    if (request.kind === "product" && viewer.kind !== "member") {
      throw new AppError("AUTH_REQUIRED", "Product scores are stored in an account: sign in or send an API key.");
    }
    // Anonymous callers are counted by network (an IPv6 /64), not by address.
    const network = clientNetwork(caller.clientIp);
    const scope = viewer.kind === "member" ? viewer.accountId : `ip:${network}`;
    const claim = idempotencyClaim(scope, caller.idempotencyKey, request.kind, [request.kind, url.href, context]);
    return { kind: request.kind, url, context, network, claim };
  }

  /** The job a stored key names, when this request's key was used before (undefined: it was not). */
  private async replay(caller: ScoreCaller, admitted: Admitted): Promise<StartedJob | undefined> {
    const replay = await this.findReplay(admitted.claim!);
    if (!replay) return undefined;
    caller.setHeaders({ [IDEMPOTENT_REPLAYED_HEADER]: "true" });
    // A replay spends no slot, but says where the caller stands, as any answer of a limited route does.
    const { viewer } = caller;
    const headers =
      viewer.kind === "anonymous"
        ? await this.anonymousCap.peek(admitted.network)
        : await this.limiter.peek("score", memberSubject(viewer));
    if (headers) caller.setHeaders(headers);
    return replay;
  }

  /**
   * Layer 1: the short-window limit, for every caller: per person signed in, per account for
   * API keys (all of an account's keys share it, so minting keys buys no extra crawls).
   */
  private async limit(caller: ScoreCaller, admitted: Admitted): Promise<void> {
    const { viewer } = caller;
    if (viewer.kind === "anonymous") {
      const cap = await this.anonymousCap.consume(admitted.network);
      caller.setHeaders(cap.headers);
    } else {
      const decision = await this.limiter.check("score", memberSubject(viewer));
      caller.setHeaders(decision.headers);
      if (!decision.allowed) throw decision.toError();
    }
  }

  /** With a key: makes it this request's, then applies layer 1. */
  private async reserve(
    tx: Transaction,
    caller: ScoreCaller,
    admitted: Admitted,
    jobId: string,
    claimToken: string | null,
  ): Promise<void> {
    const { claim } = admitted;
    if (!claim) return;
    // First, so a concurrent request with the same key waits here (holding nothing else) and then replays.
    await this.idempotency.reserve(
      tx,
      claim,
      jobId,
      claimToken ? sealClaimToken(claimToken, claim.scope, claim.key) : null,
    );
    // A refusal rolls the key back with everything else: a later retry with it is a first request.
    await this.limit(caller, admitted);
  }

  /** A member's charges and product, in the job's transaction; answers the product's id (null: none). */
  private async charge(
    tx: Transaction,
    caller: ScoreCaller,
    admitted: Admitted,
    jobId: string,
  ): Promise<string | null> {
    const { viewer } = caller;
    if (viewer.kind !== "member") return null;
    // Layer 2: plan quota and credits; layer 3: the API-call ceiling; then the product limit.
    // One transaction, all or nothing. Locks are taken in one order everywhere: the account
    // row (a product score may create a product, which locks it) before the credit rows,
    // as a checkout does, so the two never deadlock.
    if (admitted.kind === "product") await this.accounts.lock(tx, viewer.accountId);
    await this.spendScore(tx, viewer.accountId, jobId);
    await caller.chargeApiCall(tx);
    if (admitted.kind !== "product") return null;
    return (await this.products.productFor(tx, viewer.accountId, admitted.url)).id;
  }

  /** The price of one score, referenced by its job (a failed job refunds exactly this). */
  private async spendScore(tx: Transaction, accountId: string, jobId: string): Promise<void> {
    await this.ledger.spend(accountId, "score", actionCostTenths.score, `job:${jobId}`, { manager: tx });
  }

  /**
   * Scheduled re-scores of monitored products (docs/api.md §13), in the scheduler's
   * claim transaction: each charged as a product score is (plan quota and credits,
   * `job:<id>`), with no API-call charge and no short-window limit (nobody called).
   * Accounts are charged in id order, so concurrent schedulers take the credit rows in
   * one order and never deadlock. A run the account cannot pay for is answered as
   * refused, with nothing written for it; any other error fails the whole claim.
   */
  async queueScheduled(tx: Transaction, runs: readonly ScheduledRun[]): Promise<ScheduledOutcome> {
    const ordered = [...runs].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
    const backlogs = await this.jobs.countBacklogs(tx, [...new Set(ordered.map((run) => run.accountId))]);
    const rows: NewJob[] = [];
    const refused: Array<{ run: ScheduledRun; error: AppError }> = [];
    const accept = (run: ScheduledRun, jobId: string) => {
      // Its place in the owner's backlog, after the jobs this claim queued before it.
      const fairRank = backlogs.get(run.accountId) ?? 0;
      backlogs.set(run.accountId, fairRank + 1);
      rows.push(
        jobRow(jobId, fairRank, { accountId: run.accountId, kind: "product", url: run.url, productId: run.productId }),
      );
    };
    const groups = byAccount(ordered).map((group) => group.map((run) => ({ run, jobId: randomUUID() })));
    // Every account whose plan credits cover all its due runs is charged in one go (a fixed number of statements
    // for the whole claim); the others one run at a time, which opens a cycle, uses pack credits or refuses.
    const charged = await this.ledger.spendAcrossFromPlan(
      tx,
      "score",
      actionCostTenths.score,
      new Map(groups.map((group) => [group[0]!.run.accountId, group.map(({ jobId }) => `job:${jobId}`)])),
    );
    for (const group of groups) {
      if (charged.has(group[0]!.run.accountId)) {
        for (const { run, jobId } of group) accept(run, jobId);
        continue;
      }
      for (const { run, jobId } of group) {
        try {
          await this.spendScore(tx, run.accountId, jobId);
        } catch (error) {
          if (error instanceof AppError && (error.code === "CREDIT_EXHAUSTED" || error.code === "QUOTA_EXCEEDED")) {
            refused.push({ run, error });
            continue;
          }
          throw error;
        }
        accept(run, jobId);
      }
    }
    await this.jobs.insertQueuedMany(tx, rows);
    return { jobIds: rows.map((row) => row.id), refused };
  }

  /** After the claim committed: announces and enqueues its jobs (a queue that is down leaves them to the sweep). */
  async announceQueued(jobIds: readonly string[]): Promise<void> {
    for (const jobId of jobIds) await this.announce({ id: jobId });
  }

  /** The queued job, at its place in the owner's backlog. */
  private async insertJob(
    tx: Transaction,
    caller: ScoreCaller,
    admitted: Admitted,
    { jobId, productId, claimToken }: { jobId: string; productId: string | null; claimToken: string | null },
  ): Promise<ScoreJob> {
    const { viewer } = caller;
    // Its place in the owner's backlog: the fair queue serves every owner's next job in turn.
    const fairRank = await this.jobs.countBacklog(
      tx,
      viewer.kind === "member" ? { accountId: viewer.accountId } : { network: admitted.network },
    );
    return this.jobs.insertQueued(
      tx,
      jobRow(jobId, fairRank, {
        accountId: viewer.kind === "member" ? viewer.accountId : null,
        userId: viewer.kind === "member" && viewer.via === "session" ? viewer.userId : null,
        apiKeyId: viewer.kind === "member" && viewer.via === "api_key" ? viewer.apiKeyId : null,
        requesterIp: viewer.kind === "anonymous" ? admitted.network : null,
        claimTokenHash: claimToken ? hashToken(claimToken) : null,
        kind: admitted.kind,
        url: admitted.url.href,
        context: admitted.context,
        productId,
      }),
    );
  }

  /**
   * The job is committed and charged: a queue or bus hiccup must not fail the request.
   * The maintenance sweep enqueues any job left waiting without a worker.
   */
  private async announce(job: Pick<ScoreJob, "id">): Promise<void> {
    await this.bus
      .publish({ jobId: job.id, status: "queued" })
      .catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, "could not publish queued"));
    await this.queue
      .enqueue(job.id)
      .catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, "could not enqueue; the sweep will"));
  }

  /**
   * Resolves when the job ends, `timeoutMs` passes or the process stops
   * (`stopWaiting`); answers the job as stored then. The bus also hears the stored
   * job (a lost completion message is found within the recheck interval).
   */
  async waitForEnd(jobId: string, timeoutMs: number): Promise<ScoreJob> {
    let wake: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = await this.bus.subscribe(jobId, (progress: ScoreProgress) => {
      if (isTerminal(progress.status)) wake();
    });
    const timer = setTimeout(wake, timeoutMs);
    const stopping = this.stopping.signal;
    stopping.addEventListener("abort", wake, { once: true });
    try {
      const now = await this.job(jobId);
      if (!isTerminal(now.status) && !stopping.aborted) await ended;
      return await this.job(jobId);
    } finally {
      clearTimeout(timer);
      stopping.removeEventListener("abort", wake);
      await unsubscribe();
    }
  }

  /**
   * A shutdown: every wait ends now (and any wait begun later at once), so callers
   * get the job as it stands (202, follow it) before the process exits, instead of
   * a connection cut at exit that invites a retry, and a second charge.
   */
  stopWaiting(): void {
    this.stopping.abort();
  }

  async job(jobId: string): Promise<ScoreJob> {
    const job = await this.jobs.findById(jobId);
    if (!job) throw new AppError("NOT_FOUND", "No such scoring job.");
    return job;
  }

  /** Who may see a job and its progress: a member of its account, or the anonymous requester's network (address; IPv6 /64). */
  async jobFor(viewer: Viewer, clientIp: string, jobId: string): Promise<ScoreJob> {
    const job = isUuid(jobId) ? await this.jobs.findById(jobId) : null;
    const allowed =
      job !== null &&
      (job.accountId !== null
        ? viewer.kind === "member" && viewer.accountId === job.accountId
        : viewer.kind === "anonymous" && job.requesterIp === clientNetwork(clientIp));
    if (!job || !allowed) throw new AppError("NOT_FOUND", "No such scoring job.");
    return job;
  }

  /** Forgets idempotency keys older than the window; returns how many went. */
  async purgeIdempotencyKeys(): Promise<number> {
    return this.idempotency.purge();
  }

  /** The first answer of a key used within the window with the same request; a different request is a conflict. */
  private async findReplay(claim: IdempotencyClaim): Promise<StartedJob | undefined> {
    const record = await this.idempotency.recorded(claim);
    // A scoring key is reserved with its job, in the job's transaction: a record always names one.
    if (!record?.resourceId) return undefined;
    const job = await this.job(record.resourceId);
    // The same token the first answer carried, whichever process answered it.
    const claimToken =
      record.sealedClaimToken === null ? null : openClaimToken(record.sealedClaimToken, claim.scope, claim.key);
    if (claimToken === undefined)
      this.logger.warn({ jobId: job.id }, "an idempotency record's claim token did not open with its key");
    return { job, claimToken: claimToken ?? null };
  }
}

/** A monitored product due for its scheduled re-score. */
export interface ScheduledRun {
  readonly accountId: string;
  readonly productId: string;
  readonly url: string;
}

/** What `queueScheduled` did: the jobs it queued, and the runs their accounts could not pay for. */
export interface ScheduledOutcome {
  readonly jobIds: string[];
  readonly refused: Array<{ readonly run: ScheduledRun; readonly error: AppError }>;
}

/** Runs sorted by account, in runs of one account each. */
function byAccount(ordered: readonly ScheduledRun[]): ScheduledRun[][] {
  const groups: ScheduledRun[][] = [];
  for (const run of ordered) {
    const last = groups.at(-1);
    if (last && last[0]!.accountId === run.accountId) last.push(run);
    else groups.push([run]);
  }
  return groups;
}

/** A queued job's row; who asked and what it carries default to nobody and nothing. */
function jobRow(
  id: string,
  fairRank: number,
  fields: Pick<NewJob, "accountId" | "kind" | "url" | "productId"> & Partial<NewJob>,
): NewJob {
  return {
    userId: null,
    apiKeyId: null,
    requesterIp: null,
    claimTokenHash: null,
    context: null,
    ...fields,
    id,
    fairRank,
    progress: { jobId: id, status: "queued" },
  };
}

export function validUrl(input: unknown): URL {
  if (typeof input === "string" && input.length > MAX_URL_LENGTH) {
    throw new AppError("VALIDATION_FAILED", `url: must be at most ${MAX_URL_LENGTH} characters`);
  }
  if (input === undefined || input === null) throw new AppError("VALIDATION_FAILED", "url: is required");
  return normalizeInputUrl(input);
}

export function validContext(input: unknown): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "string") throw new AppError("VALIDATION_FAILED", "context: must be a string");
  if (input.length > MAX_CONTEXT_LENGTH)
    throw new AppError("VALIDATION_FAILED", `context: must be at most ${MAX_CONTEXT_LENGTH} characters`);
  const trimmed = input.trim();
  return trimmed === "" ? null : trimmed;
}
