import type { DataSource } from "typeorm";

/** What a product's badge is drawn from: its switch and its newest result's total and stage. */
export interface ProductBadgeRow {
  readonly productId: string;
  readonly publicBadge: boolean;
  /** Null while the product has no result yet. */
  readonly latest: { readonly resultId: string; readonly totalScore: number; readonly stageName: string } | null;
}

/**
 * The read behind product badges, which READMEs and CDNs fetch anonymously: one
 * statement by primary key, the newest result found by its (product_id, created_at)
 * index, never a scan.
 */
export class ProductBadgeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async read(productIds: readonly string[]): Promise<ProductBadgeRow[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT "product"."id", "product"."public_badge", "latest"."id" AS "result_id", "latest"."total_score", "latest"."stage_name"
         FROM "products" "product"
         LEFT JOIN LATERAL (
           SELECT "id", "total_score", "stage_name" FROM "score_results"
            WHERE "product_id" = "product"."id" ORDER BY "created_at" DESC, "id" DESC LIMIT 1
         ) "latest" ON true
        WHERE "product"."id" = ANY($1::uuid[])`,
      [productIds],
    );
    return rows.map((row) => ({
      productId: row.id as string,
      publicBadge: row.public_badge as boolean,
      latest:
        row.result_id === null
          ? null
          : {
              resultId: row.result_id as string,
              totalScore: row.total_score as number,
              stageName: row.stage_name as string,
            },
    }));
  }
}
