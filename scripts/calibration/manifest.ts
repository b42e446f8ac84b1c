import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One row of the calibration manifest (sites.tsv): a real site rebuilt from a public repository. */
export interface CorpusSite {
  readonly name: string;
  readonly repo: string;
  readonly ref: string;
  readonly startPath: string;
  /** Hosts whose absolute links are the site's own (rewritten to the local server). */
  readonly originalHosts: readonly string[];
  readonly kind: "commercial" | "open-source";
  /** The 1–5 maturity judgment written down before any scoring. */
  readonly judged: number;
}

export function readManifest(path: string): CorpusSite[] {
  const [header, ...rows] = readFileSync(path, "utf8").split("\n").filter((line) => line.trim() && !line.startsWith("#"));
  const columns = header!.split("\t");
  const at = (cells: string[], name: string) => cells[columns.indexOf(name)] ?? "";
  return rows.map((row) => {
    const cells = row.split("\t");
    const kind = at(cells, "kind");
    const judged = Number(at(cells, "judged"));
    if ((kind !== "commercial" && kind !== "open-source") || !(judged >= 1 && judged <= 5)) throw new Error(`sites.tsv: bad row ${row}`);
    return {
      name: at(cells, "name"),
      repo: at(cells, "repo"),
      ref: at(cells, "ref"),
      startPath: at(cells, "start_url_path") || "/",
      originalHosts: at(cells, "original_hosts").split(",").map((host) => host.trim()).filter(Boolean),
      kind,
      judged,
    };
  });
}

/**
 * The commit date of a site's snapshot, read from the fetched repository, so
 * recency is judged as of the day the site was published, not today (a 2017
 * site is not "stale" for having no 2026 news). Undefined when the mirror is absent.
 */
export function snapshotDate(site: CorpusSite, mirrorDir: string): string | undefined {
  const base = join(mirrorDir, site.repo.replace("/", "+"), "repo");
  const gitDir = existsSync(join(base, ".git")) ? join(base, ".git") : base;
  if (!existsSync(gitDir)) return undefined;
  try {
    const iso = execFileSync("git", ["--git-dir", gitDir, "show", "-s", "--format=%cI", site.ref], { encoding: "utf8" }).trim();
    return new Date(iso).toISOString();
  } catch {
    return undefined;
  }
}
