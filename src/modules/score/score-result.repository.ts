import { In, IsNull, type DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { dimensions as frameworkDimensions } from "../scoring/framework/dimensions.js";
import type { ScoreResult, ScorerInfo } from "../scoring/scoring.types.js";
import type { ScoreJob } from "./score-job.entity.js";
import { keysetPage } from "../../db/keyset-page.js";
import { ScoreDimensionRecord, ScoreResultRecord } from "./score-result.entity.js";
import type { CoreRecord } from "./score-result.view.js";

/** The newest result of the product whose id is the statement parameter `param` (its index: product_id, created_at). */
export const latestResultOfProduct = (param: string): string =>
  `(SELECT "id" FROM "score_results" WHERE "product_id" = ${param} ORDER BY "created_at" DESC, "id" DESC LIMIT 1)`;

/** A scorer's result as the job that produced it stores it. */
export interface NewResult {
  readonly id: string;
  readonly job: Pick<ScoreJob, "id" | "accountId" | "productId" | "claimTokenHash">;
  readonly result: ScoreResult;
  /** A held (anonymous) result's end of hold; null for an account's. */
  readonly claimExpiresAt: Date | null;
}

const position = new Map(frameworkDimensions.map((dimension, index) => [dimension.id as string, index]));
/** The product-view columns of a result, read only when asked for. */
export type DetailRow = Pick<
  ScoreResultRecord,
  "id" | "crawledPages" | "crossDimensionNotes" | "antiPatterns" | "crawlStats" | "scorer"
>;

/**
 * The `score_results` table and its `score_dimensions`, always written together:
 * the runner's insert, the reads of share links, history and product pages, the
 * link of a held result and the purge of expired holds.
 */
export class ScoreResultRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a result with its dimensions (in the framework's order) in `tx`. */
  async insert(tx: Transaction, { id: resultId, job, result, claimExpiresAt }: NewResult): Promise<void> {
    await tx.insert(ScoreResultRecord, {
      id: resultId,
      accountId: job.accountId,
      productId: job.productId,
      jobId: job.id,
      url: result.url,
      companyName: result.companyName,
      totalScore: result.totalScore,
      stageName: result.stageName,
      framework: result.framework,
      frameworkVersion: result.frameworkVersion,
      mode: result.mode,
      strengths: [...result.strengths],
      gaps: [...result.gaps],
      crossDimensionNotes: result.crossDimensionNotes,
      antiPatterns: [...result.antiPatternsDetected],
      crawledPages: [...result.crawledPages],
      crawlStats: result.crawlStats,
      scorer: storedScorer(result),
      lifecycleStageId: result.lifecycleStageId ?? null,
      claimTokenHash: job.claimTokenHash,
      claimExpiresAt,
    });
    await tx.insert(
      ScoreDimensionRecord,
      result.dimensions.map((dimension) => ({
        resultId,
        dimensionId: dimension.dimensionId,
        position: position.get(dimension.dimensionId) ?? 0,
        dimensionName: dimension.dimensionName,
        pillar: dimension.pillar,
        score: dimension.score,
        stageName: dimension.stageName,
        evidence: dimension.evidence,
        evidenceItems: [...dimension.evidenceItems],
        confidence: dimension.confidence,
        reasoning: dimension.reasoning,
      })),
    );
  }

  /**
   * The hot read of share links: the result's core columns (with the scorer's list
   * of dimensions that did not apply) and its dimensions as plain rows (no entity
   * hydration, none of the wide product-view columns), both
   * queries at once on two pooled connections.
   */
  async readCore(id: string): Promise<{ record: CoreRecord; dimensions: ScoreDimensionRecord[] } | undefined> {
    const [[row], dimensions]: [Array<Record<string, unknown>>, Array<Record<string, unknown>>] = await Promise.all([
      this.dataSource.query(
        `SELECT "id", "account_id", "product_id", "url", "company_name", "total_score", "stage_name", "framework",
                "framework_version", "mode", "strengths", "gaps", "lifecycle_stage_id", "created_at",
                "claim_expires_at", "scorer" -> 'notApplicable' AS "not_applicable"
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
    return {
      record: {
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
        claimExpiresAt: row.claim_expires_at as Date | null,
        // Only the list of dimensions that did not apply: the rest of the scorer's record is a detail.
        scorer: { notApplicable: (row.not_applicable as ScorerInfo["notApplicable"] | null) ?? undefined },
      },
      dimensions: dimensions as unknown as ScoreDimensionRecord[],
    };
  }

  /**
   * The result stored just before `id` in its series: the same product when it has
   * one (index: product_id, created_at), else the same account, address and
   * framework among results without a product (a walk of the account's history index).
   */
  async previousId(id: string, productId: string | null): Promise<string | undefined> {
    const [row]: Array<{ id: string }> = productId
      ? await this.dataSource.query(
          `SELECT p."id" FROM "score_results" r
             JOIN "score_results" p ON p."product_id" = r."product_id" AND (p."created_at", p."id") < (r."created_at", r."id")
            WHERE r."id" = $1 AND r."product_id" = $2
            ORDER BY p."created_at" DESC, p."id" DESC LIMIT 1`,
          [id, productId],
        )
      : await this.dataSource.query(
          `SELECT p."id" FROM "score_results" r
             JOIN "score_results" p ON p."account_id" = r."account_id" AND p."product_id" IS NULL
                  AND p."url" = r."url" AND p."framework" = r."framework"
                  AND (p."created_at", p."id") < (r."created_at", r."id")
            WHERE r."id" = $1 AND r."account_id" IS NOT NULL
            ORDER BY p."created_at" DESC, p."id" DESC LIMIT 1`,
          [id],
        );
    return row?.id;
  }

  /** The product-view columns of these results. */
  async details(ids: readonly string[]): Promise<DetailRow[]> {
    return this.dataSource.query(
      `SELECT "id", "crawled_pages" AS "crawledPages", "cross_dimension_notes" AS "crossDimensionNotes", "anti_patterns" AS "antiPatterns",
              "crawl_stats" AS "crawlStats", "scorer" FROM "score_results" WHERE "id" = ANY($1::uuid[])`,
      [ids],
    );
  }

  /** The dimensions of these results (in no particular order). */
  async dimensionsOf(resultIds: readonly string[]): Promise<ScoreDimensionRecord[]> {
    return this.dataSource.getRepository(ScoreDimensionRecord).find({ where: { resultId: In([...resultIds]) } });
  }

  /** One page of the account's results, newest first, after `cursor`. */
  async pageOfAccount(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: ScoreResultRecord[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(ScoreResultRecord)
      .createQueryBuilder("result")
      .where("result.account_id = :accountId", { accountId });
    return keysetPage(query, "result", limit, cursor);
  }

  /**
   * Each product's newest results after `after`, at most `take` of each, newest
   * first. One statement: each product's page is an index walk of at most `take`
   * rows (through LATERAL), never all its results.
   */
  async newestOfProducts(
    productIds: readonly string[],
    take: number,
    after: { at: string; id: string } | undefined,
  ): Promise<ScoreResultRecord[]> {
    return this.dataSource
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
        { productIds: [...productIds], take, ...(after ? { at: after.at, afterId: after.id } : {}) },
      )
      .orderBy("result.created_at", "DESC")
      .addOrderBy("result.id", "DESC")
      .getMany();
  }

  /**
   * The product's newest result (in `tx` when given, so a completion sees what its
   * own transaction may not have committed yet): the start of a monitor schedule and
   * the baseline `score.changed` compares with.
   */
  async latestOfProduct(tx: Transaction | null, productId: string): Promise<ProductPoint | undefined> {
    const [row] = (await (tx ?? this.dataSource.manager).query(
      `SELECT "id", "total_score", "stage_name", "created_at" FROM "score_results"
        WHERE "product_id" = $1 ORDER BY "created_at" DESC, "id" DESC LIMIT 1`,
      [productId],
    )) as PointRow[];
    return row ? toPoint(row) : undefined;
  }

  /**
   * Each product's last `take` totals, oldest first: one statement, each product an
   * index walk of IDX_score_results_product (product_id, created_at) of `take` rows.
   */
  async trendsOfProducts(
    productIds: readonly string[],
    take: number,
  ): Promise<Array<ProductPoint & { productId: string }>> {
    const rows = (await this.dataSource.query(
      `SELECT product."id" AS "product_id", page.* FROM unnest($1::uuid[]) AS product("id")
        CROSS JOIN LATERAL (
          SELECT "id", "total_score", "stage_name", "created_at" FROM "score_results"
           WHERE "product_id" = product."id" ORDER BY "created_at" DESC, "id" DESC LIMIT $2
        ) page
        ORDER BY page."created_at", page."id"`,
      [[...productIds], take],
    )) as Array<PointRow & { product_id: string }>;
    return rows.map((row) => ({ ...toPoint(row), productId: row.product_id }));
  }

  /** The product's last `take` totals up to and including `until`, oldest first (a share page's fixed trend). */
  async trendUntil(productId: string, until: { at: Date; id: string }, take: number): Promise<ProductPoint[]> {
    const rows = (await this.dataSource.query(
      `SELECT * FROM (
         SELECT "id", "total_score", "stage_name", "created_at" FROM "score_results"
          WHERE "product_id" = $1 AND ("created_at", "id") <= ($2::timestamptz, $3::uuid)
          ORDER BY "created_at" DESC, "id" DESC LIMIT $4) page
        ORDER BY "created_at", "id"`,
      [productId, until.at, until.id, take],
    )) as PointRow[];
    return rows.map(toPoint);
  }

  /** A held (not yet linked) result, locked in `tx` until it commits: one link at a time. */
  async lockHeld(tx: Transaction, id: string): Promise<ScoreResultRecord | null> {
    return tx.findOne(ScoreResultRecord, { where: { id, accountId: IsNull() }, lock: { mode: "pessimistic_write" } });
  }

  /** Moves a held result into the account's history; its claim is spent. */
  async link(tx: Transaction, held: ScoreResultRecord, accountId: string): Promise<ScoreResultRecord> {
    held.accountId = accountId;
    held.claimTokenHash = null;
    held.claimExpiresAt = null;
    return tx.save(held);
  }

  /** Deletes held results whose hold expired before `now`; returns how many. */
  async purgeExpiredHeld(now: Date): Promise<number> {
    const [rows]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM "score_results" WHERE "account_id" IS NULL AND "claim_expires_at" < $1 RETURNING "id"`,
      [now],
    );
    return rows.length;
  }
}

/** The scorer's record plus the dimensions that did not apply: the share page draws those apart. */
function storedScorer(result: ScoreResult): ScorerInfo {
  const notApplicable = result.dimensions.filter((dimension) => dimension.applicable === false);
  return notApplicable.length === 0
    ? result.scorer
    : { ...result.scorer, notApplicable: notApplicable.map((dimension) => dimension.dimensionId) };
}

/** One completed total of a product: a point of its trend. */
export interface ProductPoint {
  readonly resultId: string;
  readonly total: number;
  readonly stage: string;
  readonly createdAt: Date;
}

interface PointRow {
  id: string;
  total_score: number;
  stage_name: string;
  created_at: Date;
}

const toPoint = (row: PointRow): ProductPoint => ({
  resultId: row.id,
  total: row.total_score,
  stage: row.stage_name,
  createdAt: row.created_at,
});
