import type { DataSource } from "typeorm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { productKey } from "../../../src/modules/products/products.service.js";
import { MIN_POPULATION, type RankedResult } from "../../../src/modules/score/percentiles.js";
import { PercentilesService } from "../../../src/modules/score/percentiles.service.js";
import { ScorePopulationRepository } from "../../../src/modules/score/score-population.repository.js";
import { dimensions as frameworkDimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { storeScore, type StoredScore } from "../../support/population.js";

/**
 * The population behind percentiles (docs/api.md §13), on a database of its own:
 * each completion enters its result in the transaction that stores it, a site
 * counts once (its latest full result), versions and frameworks are apart, and the
 * histograms always equal a count made from scratch over the stored results.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let service: PercentilesService;

beforeAll(async () => {
  database = await openClonedDatabase(12);
  dataSource = database.dataSource;
  service = new PercentilesService(new ScorePopulationRepository(dataSource));
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  await dataSource.query(`TRUNCATE "score_population", "score_histograms", "score_results" CASCADE`);
});

const dimensionIds = frameworkDimensions.map((dimension) => dimension.id as string);

interface HistogramRow {
  framework: string;
  framework_version: string;
  metric: string;
  counts: number[];
  sites: number;
}

async function histograms(): Promise<HistogramRow[]> {
  return dataSource.query(
    `SELECT "framework", "framework_version", "metric", "counts", "sites" FROM "score_histograms" ORDER BY 1, 2, 3`,
  );
}

/** The population counted from scratch: the latest full result of each site, per framework version. */
async function bruteForcePopulation(): Promise<Map<string, Array<{ total: number; dims: Record<string, number> }>>> {
  const rows = (await dataSource.query(
    `SELECT r."id", r."url", r."framework", r."framework_version", r."mode", r."total_score", r."created_at",
            jsonb_object_agg(d."dimension_id", d."score") AS "dims"
       FROM "score_results" r JOIN "score_dimensions" d ON d."result_id" = r."id"
      GROUP BY r."id"`,
  )) as Array<{
    id: string;
    url: string;
    framework: string;
    framework_version: string;
    mode: string;
    total_score: number;
    created_at: Date;
    dims: Record<string, number>;
  }>;
  const latest = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    if (row.mode !== "full") continue;
    const key = `${row.framework}|${row.framework_version}|${productKey(new URL(row.url))}`;
    const held = latest.get(key);
    const newer =
      !held ||
      row.created_at.getTime() > held.created_at.getTime() ||
      (row.created_at.getTime() === held.created_at.getTime() && row.id > held.id);
    if (newer) latest.set(key, row);
  }
  const byVersion = new Map<string, Array<{ total: number; dims: Record<string, number> }>>();
  for (const row of latest.values()) {
    const version = `${row.framework}|${row.framework_version}`;
    byVersion.set(version, [...(byVersion.get(version) ?? []), { total: row.total_score, dims: row.dims }]);
  }
  return byVersion;
}

/** Histograms counted from scratch, in the table's shape. */
async function bruteForceHistograms(): Promise<HistogramRow[]> {
  const rows: HistogramRow[] = [];
  for (const [version, sites] of await bruteForcePopulation()) {
    const [framework, frameworkVersion] = version.split("|") as [string, string];
    for (const metric of ["total", ...dimensionIds]) {
      const counts = Array.from({ length: 101 }, () => 0);
      for (const site of sites) counts[metric === "total" ? site.total : site.dims[metric]!]! += 1;
      rows.push({ framework, framework_version: frameworkVersion, metric, counts, sites: sites.length });
    }
  }
  return rows.sort((a, b) =>
    `${a.framework}|${a.framework_version}|${a.metric}` < `${b.framework}|${b.framework_version}|${b.metric}` ? -1 : 1,
  );
}

const ranked = (score: StoredScore & { id?: string }): RankedResult => ({
  id: score.id ?? `r-${score.url}-${score.total}`,
  framework: score.framework ?? "maturity",
  frameworkVersion: score.frameworkVersion ?? "2.2.0",
  mode: score.mode ?? "full",
  totalScore: score.total,
  dimensions: dimensionIds.map((dimensionId, index) => ({
    dimensionId,
    score: score.dimensions?.[index] ?? score.total,
  })),
});

const totalCounts = async (framework = "maturity", version = "2.2.0") =>
  (await histograms()).find(
    (row) => row.framework === framework && row.framework_version === version && row.metric === "total",
  );

describe("the population of distinct sites", () => {
  it("counts a site once: a newer result replaces its entry, an older one changes nothing", async () => {
    const t0 = new Date("2026-03-01T10:00:00Z");
    await storeScore(dataSource, { url: "https://acme.example/", total: 40, createdAt: t0 });
    let total = await totalCounts();
    expect(total?.sites).toBe(1);
    expect(total?.counts[40]).toBe(1);

    const newer = await storeScore(dataSource, {
      url: "https://acme.example",
      total: 55,
      createdAt: new Date(t0.getTime() + 60_000),
    });
    total = await totalCounts();
    expect(total?.sites).toBe(1);
    expect(total?.counts[40]).toBe(0);
    expect(total?.counts[55]).toBe(1);

    await storeScore(dataSource, {
      url: "https://acme.example/",
      total: 90,
      createdAt: new Date(t0.getTime() - 60_000),
    });
    total = await totalCounts();
    expect(total?.counts[55]).toBe(1);
    expect(total?.counts[90]).toBe(0);
    const entries = (await dataSource.query(`SELECT "result_id", "site_key" FROM "score_population"`)) as Array<{
      result_id: string;
      site_key: string;
    }>;
    expect(entries).toEqual([{ result_id: newer, site_key: "https://acme.example" }]);
    expect(await histograms()).toEqual(await bruteForceHistograms());
  });

  it("keys sites by origin and path, as products are: query, fragment and trailing slash are the same site", async () => {
    await storeScore(dataSource, { url: "https://beta.example/docs/?utm=1#top", total: 10 });
    await storeScore(dataSource, { url: "https://beta.example/docs", total: 20 });
    await storeScore(dataSource, { url: "https://beta.example/", total: 30 });
    await storeScore(dataSource, { url: "http://beta.example/", total: 40 });
    const keys = (await dataSource.query(`SELECT "site_key" FROM "score_population" ORDER BY 1`)) as Array<{
      site_key: string;
    }>;
    expect(keys.map((row) => row.site_key)).toEqual([
      "http://beta.example",
      "https://beta.example",
      "https://beta.example/docs",
    ]);
    expect((await totalCounts())?.sites).toBe(3);
  });

  it("keeps frameworks and framework versions apart, and leaves quick scores out", async () => {
    await storeScore(dataSource, { url: "https://one.example", total: 50 });
    await storeScore(dataSource, { url: "https://one.example", total: 60, frameworkVersion: "2.3.0" });
    await storeScore(dataSource, { url: "https://one.example", total: 70, framework: "product" });
    await storeScore(dataSource, { url: "https://two.example", total: 80, mode: "quick" });
    expect((await totalCounts("maturity", "2.2.0"))?.counts[50]).toBe(1);
    expect((await totalCounts("maturity", "2.2.0"))?.sites).toBe(1);
    expect((await totalCounts("maturity", "2.3.0"))?.counts[60]).toBe(1);
    expect((await totalCounts("product", "2.2.0"))?.counts[70]).toBe(1);
    expect(await histograms()).toEqual(await bruteForceHistograms());
    const quick = await service.of(ranked({ url: "https://two.example", total: 80, mode: "quick" }));
    expect(quick).toMatchObject({ available: false, population: 1, total: null, dimensions: [] });
    expect(quick.reason).toMatch(/quick scores are not benchmarked/i);
  });

  it(`answers percentiles from ${MIN_POPULATION} distinct sites on, and says how many exist below that`, async () => {
    for (let i = 0; i < MIN_POPULATION - 1; i += 1)
      await storeScore(dataSource, { url: `https://s${i}.example`, total: i * 3 });
    // A second result of a counted site does not make a 30th site.
    await storeScore(dataSource, { url: "https://s0.example/", total: 1 });
    const below = await service.of(ranked({ url: "https://s0.example", total: 1 }));
    expect(below).toMatchObject({ available: false, population: MIN_POPULATION - 1, total: null, dimensions: [] });
    expect(below.reason).toBe(
      `Percentiles need ${MIN_POPULATION} distinct sites scored with the maturity framework 2.2.0; ${MIN_POPULATION - 1} so far.`,
    );

    await storeScore(dataSource, { url: "https://s-last.example", total: 100 });
    const at = await service.of(ranked({ url: "https://s-last.example", total: 100 }));
    expect(at).toMatchObject({ available: true, reason: null, population: MIN_POPULATION });
    // The best site alone: 29 below it, itself equal: (29 + 0.5) / 30, and the top 1/30.
    expect(at.total).toEqual({ percentile: 98.3, topPercent: 3.3 });
    expect(at.dimensions).toHaveLength(27);
    expect(at.dimensions[0]).toEqual({ dimensionId: dimensionIds[0], percentile: 98.3, topPercent: 3.3 });
  });

  it("equals a brute-force count over the stored results, for random data", async () => {
    let seed = 20261126;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = (n: number) => Math.floor(random() * n);
    const sites = Array.from({ length: 45 }, (_, i) => `https://site${i}.example${random() < 0.3 ? "/app" : ""}`);
    const base = Date.UTC(2026, 2, 1);
    for (let i = 0; i < 160; i += 1) {
      const url = sites[pick(sites.length)]! + (random() < 0.2 ? "/?ref=x" : "");
      const clustered = random() < 0.5;
      await storeScore(dataSource, {
        url,
        // Ties are common on purpose (clustered values), as real scores cluster.
        total: clustered ? 40 + pick(5) : pick(101),
        dimensions: dimensionIds.map(() => (clustered ? 5 * pick(4) : pick(101))),
        frameworkVersion: random() < 0.15 ? "2.1.0" : "2.2.0",
        mode: random() < 0.1 ? "quick" : "full",
        // Results arrive out of order: an older one must not replace a newer one.
        createdAt: new Date(base + pick(10_000) * 1000),
      });
    }
    expect(await histograms()).toEqual(await bruteForceHistograms());

    const population = (await bruteForcePopulation()).get("maturity|2.2.0")!;
    expect(population.length).toBeGreaterThanOrEqual(MIN_POPULATION);
    const expected = (values: number[], v: number) => {
      const below = values.filter((value) => value < v).length;
      const equal = values.filter((value) => value === v).length;
      return {
        percentile: Math.round((1000 * (below + equal / 2)) / values.length) / 10,
        topPercent: Math.round((1000 * (values.length - below)) / values.length) / 10,
      };
    };
    for (let probe = 0; probe < 25; probe += 1) {
      const scores = { total: pick(101), dims: dimensionIds.map(() => pick(101)) };
      const answer = await service.of(
        ranked({ url: "https://probe.example", total: scores.total, dimensions: scores.dims }),
      );
      expect(answer.population).toBe(population.length);
      expect(answer.total).toEqual(
        expected(
          population.map((site) => site.total),
          scores.total,
        ),
      );
      dimensionIds.forEach((id, index) =>
        expect(answer.dimensions[index]).toEqual({
          dimensionId: id,
          ...expected(
            population.map((site) => site.dims[id]!),
            scores.dims[index]!,
          ),
        }),
      );
    }
  });

  it("leaves one entry when completions of the same site commit at once, and never deadlocks across sites", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => storeScore(dataSource, { url: "https://race.example", total: 10 + i })),
    );
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        storeScore(dataSource, { url: `https://crowd${i % 6}.example`, total: (i * 13) % 101 }),
      ),
    );
    // First completions of a new version, all at once: its histogram rows are created once.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        storeScore(dataSource, { url: `https://fresh${i}.example`, total: i, frameworkVersion: "3.0.0" }),
      ),
    );
    expect((await totalCounts("maturity", "3.0.0"))?.sites).toBe(10);
    const entries = (await dataSource.query(
      `SELECT "site_key", count(*)::int AS "n" FROM "score_population" WHERE "framework_version" = '2.2.0' GROUP BY 1 ORDER BY 1`,
    )) as Array<{ site_key: string; n: number }>;
    expect(entries).toHaveLength(7);
    expect(entries.every((entry) => entry.n === 1)).toBe(true);
    expect((await totalCounts())?.sites).toBe(7);
    expect(await histograms()).toEqual(await bruteForceHistograms());
  });

  it("is backfilled by its migration from the results stored before it", async () => {
    const t0 = Date.UTC(2026, 4, 1);
    for (let i = 0; i < 12; i += 1)
      await storeScore(dataSource, {
        url: `https://old${i % 5}.example/${i % 2 ? "" : "?q=1"}`,
        total: (i * 17) % 101,
        frameworkVersion: i % 4 === 0 ? "2.1.0" : "2.2.0",
        mode: i === 7 ? "quick" : "full",
        createdAt: new Date(t0 + i * 1000),
      });
    const maintained = await histograms();
    const migrations = () =>
      dataSource.query(`SELECT "name" FROM "migrations" ORDER BY "id" DESC LIMIT 1`) as Promise<
        Array<{ name: string }>
      >;
    // Undo down to and including the population's migration (later ones go first), then run them all again.
    for (let undone = 0; (await migrations())[0]?.name !== "ScorePopulation1765430000000"; undone += 1) {
      expect(undone, "the population's migration is applied").toBeLessThan(10);
      await dataSource.undoLastMigration();
    }
    await dataSource.undoLastMigration();
    await dataSource.runMigrations();
    expect(await histograms()).toEqual(maintained);
    expect(maintained).toEqual(await bruteForceHistograms());
  });
});
