import { pillarIds, pillarNames, pillarScores, type PillarId, type ScoreResult } from "../client/index.js";
import { UsageError } from "./exit-codes.js";

/**
 * `--min-score` and `--min-pillar`: the CLI as a CI gate. A pillar's score is the
 * share page's (the mean of its dimensions, src/scale/pillars.ts); a result below
 * any threshold exits 8 with one summary line fit for a CI log.
 */

export interface Threshold {
  /** `total` for --min-score, else the pillar's id. */
  readonly name: "total" | PillarId;
  readonly min: number;
}

/** One threshold checked against a result: `--json` prints these under `gate.checks`. */
export interface Check extends Threshold {
  /** null: the result has no dimension of that pillar (it fails the check). */
  readonly score: number | null;
  readonly passed: boolean;
}

export interface Gate {
  readonly passed: boolean;
  readonly checks: readonly Check[];
}

/** The thresholds of a command line, in the order given; undefined when none was given. */
export function parseThresholds(minScore: unknown, minPillars: unknown): Threshold[] | undefined {
  const thresholds: Threshold[] = [];
  if (typeof minScore === "string") thresholds.push({ name: "total", min: thresholdValue("--min-score", minScore) });
  for (const spec of Array.isArray(minPillars) ? (minPillars as string[]) : []) {
    const equals = spec.lastIndexOf("=");
    if (equals <= 0) throw new UsageError(`--min-pillar expects PILLAR=N (got "${spec}")`);
    const pillar = pillarNamed(spec.slice(0, equals));
    if (thresholds.some((threshold) => threshold.name === pillar))
      throw new UsageError(`--min-pillar ${pillar} is given twice`);
    thresholds.push({ name: pillar, min: thresholdValue(`--min-pillar ${pillar}`, spec.slice(equals + 1)) });
  }
  return thresholds.length > 0 ? thresholds : undefined;
}

/** A pillar by its id (`trust_enterprise`) or its name as the share page writes it (`Trust & Enterprise`), any case. */
export function pillarNamed(text: string): PillarId {
  const wanted = text.trim().toLowerCase();
  const found = pillarIds.find((id) => id === wanted || pillarNames[id].toLowerCase() === wanted);
  if (found) return found;
  const valid = pillarIds.map((id) => `${id} ("${pillarNames[id]}")`).join(", ");
  throw new UsageError(`--min-pillar: unknown pillar "${text.trim()}"; one of ${valid}`);
}

function thresholdValue(flag: string, text: string): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(value) || value < 0 || value > 100)
    throw new UsageError(`${flag}: a whole number from 0 to 100 (got "${text}")`);
  return value;
}

export function evaluateGate(result: ScoreResult, thresholds: readonly Threshold[]): Gate {
  const pillars = pillarScores(result);
  const checks = thresholds.map((threshold): Check => {
    const score = threshold.name === "total" ? result.totalScore : pillars[threshold.name];
    return { ...threshold, score, passed: score !== null && score >= threshold.min };
  });
  return { passed: checks.every((check) => check.passed), checks };
}

/**
 * One line for a CI log: `pms: FAIL 58/100 Developing < 60; trust_enterprise 41 < 60`,
 * `pms: PASS 72/100 Scaling ≥ 60`. The total always leads (with its threshold when set).
 */
export function gateLine(result: ScoreResult, gate: Gate): string {
  const compare = (check: Check) => `${check.passed ? "≥" : "<"} ${check.min}`;
  const total = gate.checks.find((check) => check.name === "total");
  const parts = [
    `${result.totalScore}/100 ${result.stageName}${total ? ` ${compare(total)}` : ""}`,
    ...gate.checks
      .filter((check) => check.name !== "total")
      .map((check) => `${check.name} ${check.score ?? "n/a"} ${compare(check)}`),
  ];
  return `pms: ${gate.passed ? "PASS" : "FAIL"} ${parts.join("; ")}\n`;
}
