import { timingSafeEqual } from "node:crypto";
import { isUuid } from "../../db/uuid.js";
import DataLoader from "dataloader";
import { In, IsNull, type DataSource } from "typeorm";
import { AppError } from "../../errors.js";
import { decodeCursor, encodeCursor, keysetPage } from "./cursor.js";
import { ScoreDimensionRecord, ScoreResultRecord } from "./score-result.entity.js";
import { coreView, detailsOf, resultView, type ResultCore, type ResultDetails, type ScoreResultView } from "./score-result.view.js";
import { hashToken } from "./score.service.js";

/** Completed results never change, so the public reads of popular share links are served from memory. */
const PUBLIC_CACHE_SIZE = 256;

/** The newest result of the product whose id is the statement parameter `param` (its index: product_id, created_at). */
export const latestResultOfProduct = (param: string): string =>
  `(SELECT "id" FROM "score_results" WHERE "product_id" = ${param} ORDER BY "created_at" DESC, "id" DESC LIMIT 1)`;

/** Reads of stored results: public by id, the account's history, a product's results, and linking held ones. */
export class ScoreResultsService {
  private readonly publicCache = new Map<string, ResultCore>();

  constructor(
    private readonly dataSource: DataSource,
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
  async history(accountId: string, limit: number, cursor: string | undefined): Promise<{ results: ScoreResultView[]; nextCursor: string | null }> {
    const query = this.dataSource.getRepository(ScoreResultRecord).createQueryBuilder("result").where("result.account_id = :accountId", { accountId });
    const page = await keysetPage(query, "result", limit, cursor);
    return { results: await this.withDimensions(page.rows), nextCursor: page.nextCursor };
  }

  /**
   * Per-request loader of products' results, newest first, one page per product
   * (`limit`, after `cursor`): any number of products in one GraphQL request cost
   * two SQL statements, and each product reads at most limit + 1 rows (an index
   * walk per product through LATERAL), never all its results.
   */
  productResultsLoader(limit: number, cursor: string | undefined): DataLoader<string, { results: ScoreResultView[]; nextCursor: string | null }> {
    const after = cursor ? decodeCursor(cursor) : undefined;
    return new DataLoader(async (productIds) => {
      // One statement: each product's page is an index walk of at most limit + 1 rows.
      const records = await this.dataSource
        .getRepository(ScoreResultRecord)
        .createQueryBuilder("result")
        .where(
          `result.id IN (
             SELECT page."id" FROM unnest(CAST(:productIds AS uuid[])) AS product("id")
             CROSS JOIN LATERAL (
               SELECT "id" FROM "score_results"
                WHERE "product_id" = product."id" ${after ? `AND ("created_at", "id") < (CAST(:at AS timestamptz), CAST(:afterId AS uuid))` : ""}
                ORDER BY "created_at" DESC, "id" DESC
                LIMIT :take
             ) page)`,
          { productIds: [...productIds], take: limit + 1, ...(after ? { at: after.at, afterId: after.id } : {}) },
        )
        .orderBy("result.created_at", "DESC")
        .addOrderBy("result.id", "DESC")
        .getMany();
      const views = await this.withDimensions(records);
      return productIds.map((productId) => {
        const mine = views.filter((view) => view.productId === productId);
        const page = mine.slice(0, limit);
        const last = page.at(-1);
        return { results: page, nextCursor: mine.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
      });
    });
  }

  /**
   * Moves a held anonymous result into the account's history. The claim token works
   * once; an unknown id, a wrong or used token and an expired hold all answer the
   * same NOT_FOUND, so a caller learns nothing about results it cannot claim.
   */
  async link(accountId: string, resultId: unknown, claimToken: unknown): Promise<ScoreResultView> {
    if (typeof resultId !== "string" || resultId === "") throw new AppError("VALIDATION_FAILED", "resultId: is required");
    if (typeof claimToken !== "string" || claimToken === "") throw new AppError("VALIDATION_FAILED", "claimToken: is required");
    const notFound = new AppError("NOT_FOUND", "No held result matches this resultId and claimToken (tokens work once, for 30 days).");
    if (!isUuid(resultId)) throw notFound;
    const linked = await this.dataSource.transaction(async (manager) => {
      const record = await manager.findOne(ScoreResultRecord, { where: { id: resultId, accountId: IsNull() }, lock: { mode: "pessimistic_write" } });
      if (!record?.claimTokenHash || !record.claimExpiresAt || record.claimExpiresAt <= this.clock()) throw notFound;
      const given = Buffer.from(hashToken(claimToken), "hex");
      const stored = Buffer.from(record.claimTokenHash, "hex");
      if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw notFound;
      record.accountId = accountId;
      record.claimTokenHash = null;
      record.claimExpiresAt = null;
      return manager.save(record);
    });
    this.publicCache.delete(resultId);
    return (await this.withDimensions([linked]))[0]!;
  }

  /** A result with its details (the share page). */
  async getPublicWithDetails(id: string): Promise<ScoreResultView> {
    const core = await this.getPublic(id);
    const details = await this.detailsLoader().load(core.id);
    if (!details) throw new AppError("NOT_FOUND", "No such score result.");
    return { ...core, ...details };
  }

  /** Per-request loader of results' details: the product-view fields, only when a query asks for them. */
  detailsLoader(): DataLoader<string, ResultDetails | undefined> {
    return new DataLoader(async (ids) => {
      const rows: Array<Pick<ScoreResultRecord, "id" | "crawledPages" | "crossDimensionNotes" | "antiPatterns" | "crawlStats" | "scorer">> = await this.dataSource.query(
        `SELECT "id", "crawled_pages" AS "crawledPages", "cross_dimension_notes" AS "crossDimensionNotes", "anti_patterns" AS "antiPatterns",
                "crawl_stats" AS "crawlStats", "scorer" FROM "score_results" WHERE "id" = ANY($1::uuid[])`,
        [ids],
      );
      const byId = new Map(rows.map((row) => [row.id, detailsOf(row)]));
      return ids.map((id) => byId.get(id));
    });
  }

  /**
   * The hot read of share links: the result's core columns and its dimensions as
   * plain rows (no entity hydration, none of the wide product-view columns), both
   * queries at once on two pooled connections.
   */
  private async readOne(id: string): Promise<ResultCore | undefined> {
    const [[row], dimensions]: [Array<Record<string, unknown>>, Array<Record<string, unknown>>] = await Promise.all([
      this.dataSource.query(
        `SELECT "id", "account_id", "product_id", "url", "company_name", "total_score", "stage_name", "framework",
                "framework_version", "mode", "strengths", "gaps", "lifecycle_stage_id", "created_at"
           FROM "score_results" WHERE "id" = $1`,
        [id],
      ),
      this.dataSource.query(
        `SELECT "result_id" AS "resultId", "dimension_id" AS "dimensionId", "position", "dimension_name" AS "dimensionName", "pillar",
                "score", "stage_name" AS "stageName", "evidence", "evidence_items" AS "evidenceItems", "confidence", "reasoning"
           FROM "score_dimensions" WHERE "result_id" = $1 ORDER BY "position"`,
        [id],
      ),
    ]);
    if (!row) return undefined;
    return coreView(
      {
        id: row.id as string,
        accountId: row.account_id as string | null,
        productId: row.product_id as string | null,
        url: row.url as string,
        companyName: row.company_name as string,
        totalScore: row.total_score as number,
        stageName: row.stage_name as string,
        framework: row.framework as string,
        frameworkVersion: row.framework_version as string,
        mode: row.mode as string,
        strengths: row.strengths as string[],
        gaps: row.gaps as string[],
        lifecycleStageId: row.lifecycle_stage_id as string | null,
        createdAt: row.created_at as Date,
      },
      dimensions as unknown as ScoreDimensionRecord[],
    );
  }

  private async withDimensions(records: readonly ScoreResultRecord[]): Promise<ScoreResultView[]> {
    if (records.length === 0) return [];
    const dimensions = await this.dataSource.getRepository(ScoreDimensionRecord).find({ where: { resultId: In(records.map((record) => record.id)) } });
    const byResult = new Map<string, ScoreDimensionRecord[]>();
    for (const dimension of dimensions) byResult.set(dimension.resultId, [...(byResult.get(dimension.resultId) ?? []), dimension]);
    return records.map((record) => resultView(record, byResult.get(record.id) ?? []));
  }
}
