import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { Transactions } from "../../src/db/transaction.js";
import { ScorePopulationRepository } from "../../src/modules/score/score-population.repository.js";
import { ScoreResultRepository } from "../../src/modules/score/score-result.repository.js";
import { dimensions as frameworkDimensions } from "../../src/modules/scoring/framework/dimensions.js";
import type { ScoreResult } from "../../src/modules/scoring/scoring.types.js";

export interface StoredScore {
  readonly url: string;
  readonly total: number;
  /** One score per framework dimension, in the framework's order (default: all equal to total). */
  readonly dimensions?: readonly number[];
  readonly framework?: "maturity" | "product";
  readonly frameworkVersion?: string;
  readonly mode?: "full" | "quick";
  /** The result's time (default: the transaction's). */
  readonly createdAt?: Date;
  readonly accountId?: string | null;
  /** The account's product the result belongs to (default: none). */
  readonly productId?: string | null;
}

/** A scorer's result with these scores (everything else minimal). */
export function scoreResultOf(score: StoredScore): ScoreResult {
  return {
    url: score.url,
    companyName: "Co",
    framework: score.framework ?? "maturity",
    frameworkVersion: score.frameworkVersion ?? "2.2.0",
    mode: score.mode ?? "full",
    totalScore: score.total,
    stageName: "Scaling",
    dimensions: frameworkDimensions.map((dimension, index) => ({
      dimensionId: dimension.id,
      dimensionName: dimension.name,
      pillar: dimension.pillar,
      score: score.dimensions?.[index] ?? score.total,
      stageName: "Scaling",
      evidence: "",
      evidenceItems: [],
      confidence: "medium",
      reasoning: "",
    })),
    strengths: [],
    gaps: [],
    crossDimensionNotes: "",
    antiPatternsDetected: [],
    crawledPages: [score.url],
    crawlStats: {
      pagesAnalyzed: 1,
      contentLength: 10,
      failures: [],
      durationMs: 5,
      partial: false,
      pagesPlanned: 1,
      robotsTxt: "absent",
      sitemapUrls: 0,
      securityTxt: false,
      skippedByRobots: 0,
    },
    scorer: { engine: "heuristic" } as unknown as ScoreResult["scorer"],
  };
}

/**
 * Stores a result and enters it into the population in one transaction, as the
 * job runner's completion does (the result rows, then the population last).
 */
export async function storeScore(dataSource: DataSource, score: StoredScore): Promise<string> {
  const id = randomUUID();
  const results = new ScoreResultRepository(dataSource);
  const population = new ScorePopulationRepository(dataSource);
  await new Transactions(dataSource).run(async (tx) => {
    await results.insert(tx, {
      id,
      job: {
        id: randomUUID(),
        accountId: score.accountId ?? null,
        productId: score.productId ?? null,
        claimTokenHash: null,
      },
      result: scoreResultOf(score),
      claimExpiresAt: null,
    });
    if (score.createdAt)
      await tx.query(`UPDATE "score_results" SET "created_at" = $2 WHERE "id" = $1`, [id, score.createdAt]);
    await population.enter(tx, id);
  });
  return id;
}
