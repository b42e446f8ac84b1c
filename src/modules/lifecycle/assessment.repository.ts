import type { DataSource } from "typeorm";
import { keysetPage } from "../../db/keyset-page.js";
import { latestResultOfProduct } from "../score/score-results.service.js";
import { LifecycleAssessment } from "./assessment.entity.js";

export type NewAssessment = Pick<
  LifecycleAssessment,
  "accountId" | "productId" | "answers" | "currentStage" | "stages" | "nextTasks" | "lifecycleVersion"
>;

/** Lifecycle self-assessments (`lifecycle_assessments`): every one a new row, the product's history. */
export class AssessmentRepository {
  constructor(private readonly dataSource: DataSource) {}

  insert(assessment: NewAssessment): Promise<LifecycleAssessment> {
    const repository = this.dataSource.getRepository(LifecycleAssessment);
    return repository.save(repository.create(assessment));
  }

  /** The account's assessments of the product, newest first, keyset-paginated. */
  pageOfProduct(
    accountId: string,
    productId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ rows: LifecycleAssessment[]; nextCursor: string | null }> {
    const query = this.dataSource
      .getRepository(LifecycleAssessment)
      .createQueryBuilder("assessment")
      .where("assessment.product_id = :productId AND assessment.account_id = :accountId", { productId, accountId });
    return keysetPage(query, "assessment", limit, cursor);
  }

  latestOfProduct(accountId: string, productId: string): Promise<LifecycleAssessment | null> {
    return this.dataSource
      .getRepository(LifecycleAssessment)
      .findOne({ where: { productId, accountId }, order: { createdAt: "DESC", id: "DESC" } });
  }

  /** Dimension id → score of the product's newest result (empty without one): what ranks the next tasks. */
  async latestDimensionScores(productId: string): Promise<Map<string, number>> {
    const rows = (await this.dataSource.query(
      `SELECT d."dimension_id", d."score" FROM "score_dimensions" d
        WHERE d."result_id" = ${latestResultOfProduct("$1")}`,
      [productId],
    )) as Array<{ dimension_id: string; score: number }>;
    return new Map(rows.map((row) => [row.dimension_id, row.score]));
  }
}
