import { Check, Column, Entity, PrimaryColumn } from "typeorm";

/**
 * One site's place in the population of its framework version (docs/api.md §13):
 * its latest full result's scores. No foreign key to the result: a purged held
 * result or a deleted account leaves the site counted (it was scored; only numbers
 * are kept, and the histograms stay equal to this table).
 */
@Entity({ name: "score_population" })
@Check("CHK_score_population_total", `"total" BETWEEN 0 AND 100`)
export class ScorePopulationEntry {
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_score_population" })
  framework: string;

  @PrimaryColumn({ name: "framework_version", type: "text", primaryKeyConstraintName: "PK_score_population" })
  frameworkVersion: string;

  /** The product key of the result's address: origin and path, no query, fragment or trailing slash. */
  @PrimaryColumn({ name: "site_key", type: "text", primaryKeyConstraintName: "PK_score_population" })
  siteKey: string;

  @Column({ name: "result_id", type: "uuid" })
  resultId: string;

  /** The result's own time: an entry is replaced only by a newer result. */
  @Column({ name: "result_created_at", type: "timestamptz", precision: 3 })
  resultCreatedAt: Date;

  @Column({ type: "smallint" })
  total: number;

  /** Dimension id → score. */
  @Column({ name: "dimension_scores", type: "jsonb" })
  dimensionScores: Record<string, number>;
}

/**
 * How many sites of a framework version score each value 0–100 on one metric
 * ('total' or a dimension id): `counts[score]` (101 buckets), `sites` their sum.
 * `revision` counts the changes, so a page drawn from it can tell it is current.
 */
@Entity({ name: "score_histograms" })
@Check("CHK_score_histograms_buckets", `array_length("counts", 1) = 101`)
export class ScoreHistogramRow {
  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_score_histograms" })
  framework: string;

  @PrimaryColumn({ name: "framework_version", type: "text", primaryKeyConstraintName: "PK_score_histograms" })
  frameworkVersion: string;

  @PrimaryColumn({ type: "text", primaryKeyConstraintName: "PK_score_histograms" })
  metric: string;

  @Column({ type: "integer", array: true })
  counts: number[];

  @Column({ type: "integer", default: 0 })
  sites: number;

  @Column({ type: "integer", default: 0 })
  revision: number;
}
