import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The population results are benchmarked against (docs/api.md §13): the latest full
 * result of each distinct site per framework and version (`score_population`), and
 * per (framework, version, metric) a histogram of 101 buckets, one per score 0–100
 * (`score_histograms`), kept in step with it by the job that stores a result. The
 * existing results are counted here, so the population is right on deploy.
 *
 * The site key is the product key (origin and path, no query, fragment or trailing
 * slash) of the stored address; the SQL below spells it as `productKey` does.
 */
export class ScorePopulation1765430000000 implements MigrationInterface {
  name = "ScorePopulation1765430000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // The backfill reads every result: on a large table it outlasts the pool's 30 s
    // statement budget, which is for requests (this runs once, in its own transaction).
    await queryRunner.query(`SET LOCAL statement_timeout = 0`);
    await queryRunner.query(`
      CREATE TABLE "score_population" (
        "framework" text NOT NULL,
        "framework_version" text NOT NULL,
        "site_key" text NOT NULL,
        "result_id" uuid NOT NULL,
        "result_created_at" timestamptz(3) NOT NULL,
        "total" smallint NOT NULL,
        "dimension_scores" jsonb NOT NULL,
        CONSTRAINT "PK_score_population" PRIMARY KEY ("framework", "framework_version", "site_key"),
        CONSTRAINT "CHK_score_population_total" CHECK ("total" BETWEEN 0 AND 100)
      )`);
    await queryRunner.query(`
      CREATE TABLE "score_histograms" (
        "framework" text NOT NULL,
        "framework_version" text NOT NULL,
        "metric" text NOT NULL,
        "counts" integer array NOT NULL,
        "sites" integer NOT NULL DEFAULT 0,
        "revision" integer NOT NULL DEFAULT 0,
        CONSTRAINT "PK_score_histograms" PRIMARY KEY ("framework", "framework_version", "metric"),
        CONSTRAINT "CHK_score_histograms_buckets" CHECK (array_length("counts", 1) = 101)
      )`);
    // Backfill: the latest full result of each site (ties on time: the greater id, as the job's rule).
    await queryRunner.query(`
      INSERT INTO "score_population"
        ("framework", "framework_version", "site_key", "result_id", "result_created_at", "total", "dimension_scores")
      SELECT DISTINCT ON (r."framework", r."framework_version", s."site_key")
             r."framework", r."framework_version", s."site_key", r."id", r."created_at", r."total_score",
             COALESCE((SELECT jsonb_object_agg(d."dimension_id", d."score") FROM "score_dimensions" d WHERE d."result_id" = r."id"), '{}')
        FROM "score_results" r
       CROSS JOIN LATERAL (SELECT regexp_replace(split_part(split_part(r."url", '#', 1), '?', 1), '/+$', '') AS "site_key") s
       WHERE r."mode" = 'full'
       ORDER BY r."framework", r."framework_version", s."site_key", r."created_at" DESC, r."id" DESC`);
    await queryRunner.query(`
      WITH "scores" AS (
        SELECT "framework", "framework_version", 'total' AS "metric", "total"::int AS "score" FROM "score_population"
        UNION ALL
        SELECT p."framework", p."framework_version", d."key", d."value"::int
          FROM "score_population" p CROSS JOIN LATERAL jsonb_each_text(p."dimension_scores") d
      ), "counted" AS (
        SELECT "framework", "framework_version", "metric", "score", count(*)::int AS "n"
          FROM "scores" GROUP BY 1, 2, 3, 4
      )
      INSERT INTO "score_histograms" ("framework", "framework_version", "metric", "counts", "sites")
      SELECT k."framework", k."framework_version", k."metric",
             ARRAY(SELECT COALESCE(c."n", 0) FROM generate_series(0, 100) b
                     LEFT JOIN "counted" c ON c."framework" = k."framework" AND c."framework_version" = k."framework_version"
                                          AND c."metric" = k."metric" AND c."score" = b
                    ORDER BY b),
             k."sites"
        FROM (SELECT "framework", "framework_version", "metric", sum("n")::int AS "sites"
                FROM "counted" GROUP BY 1, 2, 3) k`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "score_histograms"`);
    await queryRunner.query(`DROP TABLE "score_population"`);
  }
}
