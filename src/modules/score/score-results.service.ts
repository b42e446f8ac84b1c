import { timingSafeEqual } from "node:crypto";
import { isUuid } from "../../db/uuid.js";
import DataLoader from "dataloader";
import type { Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import { decodeCursor, encodeCursor } from "../../db/keyset-page.js";
import type { ScoreDimensionRecord, ScoreResultRecord } from "./score-result.entity.js";
import type { ProductPoint, ScoreResultRepository } from "./score-result.repository.js";
import {
  coreView,
  detailsOf,
  resultView,
  withDetails,
  type ResultCore,
  type ResultDetails,
  type ScoreResultView,
} from "./score-result.view.js";
import { hashToken } from "./score.service.js";
import { assertComparable, compareResults, type ScoreComparison } from "./compare.js";

/** Completed results never change, so the public reads of popular share links are served from memory. */
const PUBLIC_CACHE_SIZE = 256;

// Chat and lifecycle build their statements on it.
export { latestResultOfProduct } from "./score-result.repository.js";

/** Reads of stored results: public by id, the account's history, a product's results, and linking held ones. */
export class ScoreResultsService {
  private readonly publicCache = new Map<string, ResultCore>();

  constructor(
    private readonly results: ScoreResultRepository,
    private readonly transactions: Transactions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Anyone with the id (share links). Cached once it belongs to an account: it can then never change. */
  async getPublic(id: string): Promise<ResultCore> {
    const cached = this.publicCache.get(id);
    if (cached) return cached;
    const view = isUuid(id) ? await this.readOne(id) : undefined;
    if (!view) throw new AppError("NOT_FOUND", "No such score result.");
    // A held result may still be linked or purged: only final results are cached.
    if (view.held) return view;
    this.publicCache.set(id, view);
    if (this.publicCache.size > PUBLIC_CACHE_SIZE) this.publicCache.delete(this.publicCache.keys().next().value!);
    return view;
  }

  /** The account's results, newest first, keyset-paginated. */
  async history(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ results: ScoreResultView[]; nextCursor: string | null }> {
    const page = await this.results.pageOfAccount(accountId, limit, cursor);
    return { results: await this.withDimensions(page.rows), nextCursor: page.nextCursor };
  }

  /**
   * Per-request loader of products' results, newest first, one page per product
   * (`limit`, after `cursor`): any number of products in one GraphQL request cost
   * two SQL statements, and each product reads at most limit + 1 rows (an index
   * walk per product through LATERAL), never all its results.
   */
  productResultsLoader(
    limit: number,
    cursor: string | undefined,
  ): DataLoader<string, { results: ScoreResultView[]; nextCursor: string | null }> {
    const after = cursor ? decodeCursor(cursor) : undefined;
    return new DataLoader(async (productIds) => {
      // One statement: each product's page is an index walk of at most limit + 1 rows.
      const records = await this.results.newestOfProducts(productIds, limit + 1, after);
      const views = await this.withDimensions(records);
      return productIds.map((productId) => {
        const mine = views.filter((view) => view.productId === productId);
        const page = mine.slice(0, limit);
        const last = page.at(-1);
        return {
          results: page,
          nextCursor: mine.length > limit && last ? encodeCursor(last.createdAt, last.id) : null,
        };
      });
    });
  }

  /**
   * Moves a held anonymous result into the account's history. The claim token works
   * once; an unknown id, a wrong or used token and an expired hold all answer the
   * same NOT_FOUND, so a caller learns nothing about results it cannot claim.
   */
  async link(accountId: string, resultId: unknown, claimToken: unknown): Promise<ScoreResultView> {
    if (typeof resultId !== "string" || resultId === "")
      throw new AppError("VALIDATION_FAILED", "resultId: is required");
    if (typeof claimToken !== "string" || claimToken === "")
      throw new AppError("VALIDATION_FAILED", "claimToken: is required");
    const notFound = new AppError(
      "NOT_FOUND",
      "No held result matches this resultId and claimToken (tokens work once, for 30 days).",
    );
    if (!isUuid(resultId)) throw notFound;
    const linked = await this.transactions.run(async (tx) => {
      const held = await this.results.lockHeld(tx, resultId);
      if (!held?.claimTokenHash || !held.claimExpiresAt || held.claimExpiresAt <= this.clock()) throw notFound;
      const given = Buffer.from(hashToken(claimToken), "hex");
      const stored = Buffer.from(held.claimTokenHash, "hex");
      if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw notFound;
      return this.results.link(tx, held, accountId);
    });
    this.publicCache.delete(resultId);
    return (await this.withDimensions([linked]))[0]!;
  }

  /**
   * The change from `otherId` (the baseline) to `id` (docs/api.md §13). Each id is
   * read exactly as `GET /api/score/{id}` reads it, so an id that route would answer
   * 404 is 404 here too, and final results come from the same memory cache.
   */
  async compare(id: string, otherId: string, allowVersionMismatch: boolean): Promise<ScoreComparison> {
    const to = await this.getPublic(id);
    const from = await this.getPublic(otherId);
    assertComparable(to, from, allowVersionMismatch);
    return compareResults(to, from);
  }

  /**
   * The result a share page compares with (docs/api.md §13): of a product, its newest
   * result stored before this one; of an account's plain score, its newest earlier
   * score of the same address and framework in the same account. A held result has
   * none: it belongs to nobody yet, and nothing of an account is shown beside it.
   */
  async previousOf(result: ResultCore): Promise<ResultCore | undefined> {
    if (result.held) return undefined;
    const id = await this.results.previousId(result.id, result.productId);
    return id ? this.getPublic(id) : undefined;
  }

  /**
   * The change since the previous result of its series, for the share page. A series
   * holds one framework (a product's, or the address's results filtered by it), but
   * it may span framework versions: the page shows those, and which dimensions it
   * could not compare, rather than nothing.
   */
  async sincePrevious(result: ResultCore): Promise<ScoreComparison | undefined> {
    const previous = await this.previousOf(result);
    if (!previous || previous.framework !== result.framework) return undefined;
    return compareResults(result, previous);
  }

  /** A result with its details (the share page). */
  async getPublicWithDetails(id: string): Promise<ScoreResultView> {
    const core = await this.getPublic(id);
    const details = await this.detailsLoader().load(core.id);
    if (!details) throw new AppError("NOT_FOUND", "No such score result.");
    return withDetails(core, details);
  }

  /**
   * A product result's trend as of that result: the product's last `take` totals up
   * to it, oldest first (none for a result of no product). Fixed once the result
   * exists, so the share page stays cacheable as later results come in.
   */
  async trendAsOf(
    result: Pick<ScoreResultView, "id" | "productId" | "createdAt">,
    take: number,
  ): Promise<ProductPoint[]> {
    if (!result.productId) return [];
    return this.results.trendUntil(result.productId, { at: new Date(result.createdAt), id: result.id }, take);
  }

  /** Per-request loader of results' details: the product-view fields, only when a query asks for them. */
  detailsLoader(): DataLoader<string, ResultDetails | undefined> {
    return new DataLoader(async (ids) => {
      const rows = await this.results.details(ids);
      const byId = new Map(rows.map((row) => [row.id, detailsOf(row)]));
      return ids.map((id) => byId.get(id));
    });
  }

  /** The core columns and dimensions of one result (see `ScoreResultRepository.readCore`). */
  private async readOne(id: string): Promise<ResultCore | undefined> {
    const stored = await this.results.readCore(id);
    return stored ? coreView(stored.record, stored.dimensions) : undefined;
  }

  private async withDimensions(records: readonly ScoreResultRecord[]): Promise<ScoreResultView[]> {
    if (records.length === 0) return [];
    const dimensions = await this.results.dimensionsOf(records.map((record) => record.id));
    const byResult = new Map<string, ScoreDimensionRecord[]>();
    for (const dimension of dimensions)
      byResult.set(dimension.resultId, [...(byResult.get(dimension.resultId) ?? []), dimension]);
    return records.map((record) => resultView(record, byResult.get(record.id) ?? []));
  }
}
