import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import type { ScoreResult } from "../../../src/modules/scoring/scoring.types.js";
import type { CalibrationSnapshot } from "../../../scripts/calibration/snapshot.js";

/**
 * Real product websites from the calibration corpus, as the crawler extracted them
 * (text and facts per page, no HTML), written by
 * `npm run calibrate -- --snapshot test/fixtures/calibration-snapshots --snapshot-sites …`.
 * The full corpus run is a benchmark; this is what CI can run offline: scoring these
 * crawls must keep the order a careful analyst gave the sites.
 */
const dir = join(import.meta.dirname, "../../fixtures/calibration-snapshots");
const snapshots: CalibrationSnapshot[] = readdirSync(dir)
  .filter((file) => file.endsWith(".json"))
  .map((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as CalibrationSnapshot)
  .sort((a, b) => b.judged - a.judged);
const scorer = new HeuristicScorer();
const scores = new Map<string, ScoreResult>(
  snapshots.map((snapshot) => [
    snapshot.name,
    scorer.scoreSync({ crawl: snapshot.crawl, framework: "maturity", mode: "full" }),
  ]),
);

describe("calibration snapshots of real sites", () => {
  it("covers four levels of maturity", () => {
    expect(new Set(snapshots.map((snapshot) => snapshot.judged)).size).toBeGreaterThanOrEqual(4);
  });

  it("scores a site judged more mature above every site judged less mature", () => {
    console.log(
      snapshots
        .map(
          (snapshot) =>
            `${snapshot.name.padEnd(14)} judged ${snapshot.judged}  total ${scores.get(snapshot.name)!.totalScore}`,
        )
        .join("\n"),
    );
    for (const higher of snapshots) {
      for (const lower of snapshots.filter((candidate) => candidate.judged < higher.judged)) {
        expect({
          higher: higher.name,
          lower: lower.name,
          ordered: scores.get(higher.name)!.totalScore > scores.get(lower.name)!.totalScore,
        }).toEqual({
          higher: higher.name,
          lower: lower.name,
          ordered: true,
        });
      }
    }
  });

  it("quotes every snippet verbatim from the page it cites", () => {
    for (const snapshot of snapshots) {
      const pages = new Map(
        snapshot.crawl.pages.map((page) => [
          page.url,
          `${page.title}\n${page.headings.map((heading) => heading.text).join("\n")}\n${page.text}`,
        ]),
      );
      for (const dimension of scores.get(snapshot.name)!.dimensions) {
        for (const item of dimension.evidenceItems.filter((entry) => entry.quoted)) {
          const quote = item.text.endsWith("…") ? item.text.slice(0, -1) : item.text;
          expect({
            site: snapshot.name,
            url: item.url,
            verbatim: pages.get(item.url!)?.includes(quote) ?? false,
          }).toEqual({ site: snapshot.name, url: item.url, verbatim: true });
        }
      }
    }
  });

  it("never names a dimension that does not apply as a strength or a gap", () => {
    for (const result of scores.values()) {
      const excused = new Set(
        result.dimensions
          .filter((dimension) => dimension.applicable === false)
          .map((dimension) => dimension.dimensionId),
      );
      expect([...result.strengths, ...result.gaps].filter((id) => excused.has(id))).toEqual([]);
    }
  });

  it("scores the same crawl to the same result, to the character", () => {
    const [first] = snapshots;
    expect(JSON.stringify(scorer.scoreSync({ crawl: first!.crawl, framework: "maturity", mode: "full" }))).toBe(
      JSON.stringify(scores.get(first!.name)),
    );
  });
});
