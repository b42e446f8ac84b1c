import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";

/** The buckets of a histogram: one per score, 0 to 100. */
export const BUCKETS = 101;

/** The product key of a stored address, in SQL (the same as `productKey`: origin and path, no query, fragment or trailing slash). */
const siteKeyOf = (url: string): string => `regexp_replace(split_part(split_part(${url}, '#', 1), '?', 1), '/+$', '')`;

/** One metric's histogram, as a read answers it. */
export interface Histogram {
  readonly metric: string;
  /** counts[score]: how many sites score exactly `score` (0–100). */
  readonly counts: readonly number[];
  readonly sites: number;
  readonly revision: number;
}

/** A result's scores as they enter the population. */
interface Scores {
  readonly total: number;
  readonly dimensions: Readonly<Record<string, number>>;
}

/**
 * `score_population` (the latest full result of each distinct site, per framework
 * version) and `score_histograms` (its 101-bucket histograms per metric), always
 * changed together in the transaction that stores a result.
 *
 * Locks, always in this order, so completions never deadlock: the site's entry
 * (its primary key), then the version's histogram rows sorted by metric. The
 * histogram rows are hot: every completion of one framework version updates its 28
 * rows and holds them until its commit, so completions of a version serialize on
 * them. That is the price of reads costing one indexed lookup; it is paid by a
 * worker step that runs once per score (after a crawl of seconds to minutes), never
 * by a caller's request, and `enter` is the last write of that transaction, so the
 * rows are held for a few milliseconds (hundreds of completions a second per
 * version). Past that, the way out is sharded rows summed on read.
 */
export class ScorePopulationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Enters a just-stored result (in its transaction `tx`) into its population:
   * a first result of its site adds it; a newer result of a counted site replaces
   * the site's entry (its old scores leave the histograms, the new ones enter); an
   * older one changes nothing. Quick results are not counted (docs/api.md §13).
   */
  async enter(tx: Transaction, resultId: string): Promise<void> {
    const [inserted] = (await tx.query(
      `INSERT INTO "score_population"
         ("framework", "framework_version", "site_key", "result_id", "result_created_at", "total", "dimension_scores")
       SELECT r."framework", r."framework_version", ${siteKeyOf(`r."url"`)}, r."id", r."created_at", r."total_score",
              COALESCE((SELECT jsonb_object_agg(d."dimension_id", d."score") FROM "score_dimensions" d WHERE d."result_id" = r."id"), '{}')
         FROM "score_results" r WHERE r."id" = $1 AND r."mode" = 'full'
       ON CONFLICT ("framework", "framework_version", "site_key") DO NOTHING
       RETURNING "framework", "framework_version" AS "frameworkVersion", "total", "dimension_scores" AS "dimensions"`,
      [resultId],
    )) as Array<{ framework: string; frameworkVersion: string } & Scores>;
    if (inserted) {
      await this.count(tx, inserted.framework, inserted.frameworkVersion, inserted, undefined);
      return;
    }
    // The site is counted already (or the result is quick: no row). Waits for a concurrent
    // completion of the same site, then reads the entry as that one left it.
    const [counted] = (await tx.query(
      `SELECT p."framework", p."framework_version" AS "frameworkVersion", p."site_key" AS "siteKey",
              p."total", p."dimension_scores" AS "dimensions",
              (r."created_at", r."id") > (p."result_created_at", p."result_id") AS "newer"
         FROM "score_results" r
         JOIN "score_population" p ON p."framework" = r."framework" AND p."framework_version" = r."framework_version"
                                  AND p."site_key" = ${siteKeyOf(`r."url"`)}
        WHERE r."id" = $1 AND r."mode" = 'full'
          FOR UPDATE OF p`,
      [resultId],
    )) as Array<{ framework: string; frameworkVersion: string; siteKey: string; newer: boolean } & Scores>;
    if (!counted?.newer) return;
    const [[replaced]] = (await tx.query(
      `UPDATE "score_population" p
          SET "result_id" = r."id", "result_created_at" = r."created_at", "total" = r."total_score",
              "dimension_scores" = COALESCE((SELECT jsonb_object_agg(d."dimension_id", d."score") FROM "score_dimensions" d WHERE d."result_id" = r."id"), '{}')
         FROM "score_results" r
        WHERE r."id" = $1 AND p."framework" = $2 AND p."framework_version" = $3 AND p."site_key" = $4
       RETURNING p."total", p."dimension_scores" AS "dimensions"`,
      [resultId, counted.framework, counted.frameworkVersion, counted.siteKey],
    )) as [Scores[], number];
    if (replaced) await this.count(tx, counted.framework, counted.frameworkVersion, replaced, counted);
  }

  /** Moves one site in the version's histograms: `removed` (its previous scores, if any) out, `added` in. */
  private async count(
    tx: Transaction,
    framework: string,
    frameworkVersion: string,
    added: Scores,
    removed: Scores | undefined,
  ): Promise<void> {
    const metrics = ["total", ...Object.keys(added.dimensions)].sort();
    const scoreOf = (scores: Scores | undefined, metric: string): number | null => {
      const value = metric === "total" ? scores?.total : scores?.dimensions[metric];
      return value === undefined ? null : Math.min(BUCKETS - 1, Math.max(0, Math.round(value)));
    };
    // The fixed lock order: by metric (rows are locked after the sort). A new version's
    // rows (or a new dimension's) are created empty first; a concurrent first
    // completion of the version waits on them, then finds them.
    const lock = async () =>
      (
        (await tx.query(
          `SELECT 1 FROM "score_histograms" WHERE "framework" = $1 AND "framework_version" = $2 AND "metric" = ANY($3::text[])
          ORDER BY "metric" FOR UPDATE`,
          [framework, frameworkVersion, metrics],
        )) as unknown[]
      ).length;
    if ((await lock()) < metrics.length) {
      await tx.query(
        `INSERT INTO "score_histograms" ("framework", "framework_version", "metric", "counts")
         SELECT $1, $2, m, array_fill(0, ARRAY[${BUCKETS}]) FROM unnest($3::text[]) AS m ORDER BY m
         ON CONFLICT DO NOTHING`,
        [framework, frameworkVersion, metrics],
      );
      await lock();
    }
    await tx.query(
      `UPDATE "score_histograms" h
          SET "counts" = ARRAY(
                SELECT u.c + (CASE WHEN u.i - 1 = d.added THEN 1 ELSE 0 END) - (CASE WHEN u.i - 1 = d.removed THEN 1 ELSE 0 END)
                  FROM unnest(h."counts") WITH ORDINALITY AS u(c, i) ORDER BY u.i),
              "sites" = h."sites" + (CASE WHEN d.removed IS NULL THEN 1 ELSE 0 END),
              "revision" = h."revision" + 1
         FROM unnest($3::text[], $4::int[], $5::int[]) AS d(metric, added, removed)
        WHERE h."framework" = $1 AND h."framework_version" = $2 AND h."metric" = d.metric`,
      [
        framework,
        frameworkVersion,
        metrics,
        metrics.map((metric) => scoreOf(added, metric)),
        metrics.map((metric) => scoreOf(removed, metric)),
      ],
    );
  }

  /**
   * The histograms of these framework versions, in one statement over the primary
   * key's leading columns. The buckets come as the array's text and are split here:
   * that costs less than the driver's parsing of 28 integer arrays (bench:percentiles).
   */
  async histograms(
    versions: ReadonlyArray<{ framework: string; frameworkVersion: string }>,
  ): Promise<Array<Histogram & { framework: string; frameworkVersion: string }>> {
    if (versions.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT "framework", "framework_version" AS "frameworkVersion", "metric", "counts"::text AS "counts", "sites", "revision"
         FROM "score_histograms"
        WHERE ("framework", "framework_version") IN (${versions.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(", ")})`,
      versions.flatMap((version) => [version.framework, version.frameworkVersion]),
    )) as Array<Omit<Histogram, "counts"> & { framework: string; frameworkVersion: string; counts: string }>;
    // "{0,3,1,…}": integers only, never quoted or null (the table's check keeps 101 of them).
    return rows.map((row) => ({ ...row, counts: row.counts.slice(1, -1).split(",").map(Number) }));
  }
}
