import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { DatabaseConnection } from "../../db/database.js";
import { Transactions } from "../../db/transaction.js";
import type { DomainEvent, DomainEvents } from "../../events/domain-events.js";
import { MONITOR_CLAIM_BATCH } from "../../limits.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import { actionCostTenths, tenthsToCredits } from "../billing/plans.js";
import { nextDueAt } from "../products/monitor-schedule.js";
import { ProductRepository, type DueProduct } from "../products/product.repository.js";
import type { ScoreService } from "../score/score.service.js";

/** What one claim did. */
export interface ClaimResult {
  /** Due products taken (and moved to their next due time). */
  readonly claimed: number;
  /** Re-score jobs created and charged. */
  readonly jobIds: readonly string[];
  /** Runs skipped because the account could not pay (a `monitor.skipped` each). */
  readonly skipped: number;
  /** Runs skipped because the product's previous re-score is still queued or running. */
  readonly busy: number;
}

export interface MonitorSchedulerOptions {
  readonly clock?: () => Date;
  /** Due products per claim transaction. */
  readonly batch?: number;
}

/**
 * Re-scores monitored products when they fall due (docs/api.md §13). The schedule
 * lives only in PostgreSQL (`products.monitor_next_run_at`); any number of processes
 * run this, and a claim is one transaction: lock due rows (SKIP LOCKED, so claims
 * of several processes are disjoint), move each to its next due time, and charge
 * and insert its job or record `monitor.skipped`. The row locks are the lease: a
 * process that dies mid-claim rolls all of it back and the rows are due again for
 * the next claim. Jobs are announced and enqueued after the commit; when the queue
 * is down, the maintenance sweep enqueues them later from the stored rows.
 */
export class MonitorScheduler {
  private readonly clock: () => Date;
  private readonly batch: number;

  constructor(
    private readonly products: ProductRepository,
    private readonly scores: ScoreService,
    private readonly ledger: CreditLedger,
    private readonly events: DomainEvents,
    private readonly transactions: Transactions,
    private readonly logger: Pick<Logger, "info" | "warn">,
    options: MonitorSchedulerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.batch = options.batch ?? MONITOR_CLAIM_BATCH;
  }

  /** Claims until nothing is due (or another process holds what is left); answers the totals. */
  async tick(): Promise<ClaimResult> {
    const total = { claimed: 0, jobIds: [] as string[], skipped: 0, busy: 0 };
    for (;;) {
      const claim = await this.claim();
      total.claimed += claim.claimed;
      total.jobIds.push(...claim.jobIds);
      total.skipped += claim.skipped;
      total.busy += claim.busy;
      if (claim.claimed < this.batch) break;
    }
    if (total.claimed > 0)
      this.logger.info(
        { claimed: total.claimed, queued: total.jobIds.length, skipped: total.skipped, busy: total.busy },
        "monitored products re-scored",
      );
    return total;
  }

  /** One claim transaction of at most `batch` due products, then its jobs are announced. */
  async claim(): Promise<ClaimResult> {
    const recorded: DomainEvent[] = [];
    const result = await this.transactions.run(async (tx) => {
      const now = this.clock();
      const due = await this.products.claimDue(tx, now, this.batch);
      if (due.length === 0) return { claimed: 0, jobIds: [], skipped: 0, busy: 0 };
      // Whole periods from the due time: an outage of several periods gives one run, not a burst.
      await this.products.reschedule(
        tx,
        due.map((product) => ({ id: product.id, at: nextDueAt(product.dueAt, product.interval, now) })),
      );
      // A product whose previous re-score has not finished skips this period (no second charge for one site).
      const runnable = due.filter((product) => !product.busy);
      const byId = new Map<string, DueProduct>(runnable.map((product) => [product.id, product]));
      const outcome = await this.scores.queueScheduled(
        tx,
        runnable.map((product) => ({ accountId: product.accountId, productId: product.id, url: product.url })),
      );
      for (const { run, error } of outcome.refused) {
        const usage = await this.ledger.usage(run.accountId, { manager: tx });
        const credits = usage.credits.remaining === null ? null : usage.credits.remaining + usage.credits.packBalance;
        recorded.push(
          await this.events.record(tx, "monitor.skipped", {
            accountId: run.accountId,
            productId: run.productId,
            url: run.url,
            dueAt: byId.get(run.productId)!.dueAt.toISOString(),
            reason: error.code === "QUOTA_EXCEEDED" ? "quota_exceeded" : "credits_exhausted",
            creditsNeeded: tenthsToCredits(actionCostTenths.score),
            creditsAvailable: credits,
          }),
        );
      }
      return {
        claimed: due.length,
        jobIds: outcome.jobIds,
        skipped: outcome.refused.length,
        busy: due.length - runnable.length,
      };
    });
    // Committed: the jobs are charged and stored whatever happens to these announcements.
    await this.scores.announceQueued(result.jobIds);
    await this.events
      .publish(recorded)
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not publish monitor events now"));
    return result;
  }
}

/**
 * The scheduler's tick in this process: every `tickMs` (unref'd, one tick at a time),
 * and once at start. `stop` waits for a tick in flight; a failed tick is logged and
 * the next one tries again (its rows were rolled back, so they are still due).
 */
export function startMonitorScheduler(
  scheduler: Pick<MonitorScheduler, "tick">,
  logger: Pick<Logger, "warn">,
  tickMs: number,
): { stop(): Promise<void>; tick(): Promise<void> } {
  let inFlight: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return inFlight.then(() => undefined);
    inFlight = inFlight
      .then(() => scheduler.tick())
      .catch((error: unknown) => logger.warn({ err: error }, "monitor tick failed"));
    return inFlight.then(() => undefined);
  };
  const timer = setInterval(() => void tick(), tickMs);
  timer.unref();
  void tick();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}

/**
 * The scheduler of one process (the API's and `npm run worker`'s alike), off when
 * MONITOR_TICK_MS is 0. Its jobs are charged and enqueued like any product score.
 */
export function startMonitor(deps: {
  config: Pick<Config, "monitorTickMs">;
  dataSource: DatabaseConnection;
  scores: ScoreService;
  ledger: CreditLedger;
  events: DomainEvents;
  logger: Pick<Logger, "info" | "warn">;
}): { stop(): Promise<void>; tick(): Promise<void> } | undefined {
  if (deps.config.monitorTickMs === 0) return undefined;
  const scheduler = new MonitorScheduler(
    new ProductRepository(deps.dataSource),
    deps.scores,
    deps.ledger,
    deps.events,
    new Transactions(deps.dataSource),
    deps.logger,
  );
  return startMonitorScheduler(scheduler, deps.logger, deps.config.monitorTickMs);
}
