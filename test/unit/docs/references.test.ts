import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The repository stands on its own: a clone from its public home has nothing beside
 * it, so no doc or comment may send a reader outside it, and every relative link in
 * the docs must land on a file (and heading) that exists.
 */
const root = process.cwd();
const SKIP = new Set(["node_modules", "dist", "generated", ".git", "test-artifacts", "coverage", ".data"]);

function filesUnder(dir: string, extensions: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(relative, extensions));
    else if (extensions.some((extension) => entry.name.endsWith(extension))) found.push(relative);
  }
  return found;
}

const markdown = ["README.md", "BENCHMARKS.md", ...filesUnder("docs", [".md"]), ...filesUnder("calibration", [".md"])];
const code = [
  ...["src", "rest-compat", "test", "bench", "scripts"].flatMap((dir) =>
    filesUnder(dir, [".ts", ".mts", ".js", ".graphql"]),
  ),
  "schema.graphql",
  "docker-compose.yml",
  "Dockerfile",
  ".ci/run",
  "eslint.config.js",
  "vitest.config.mts",
];

/** A reference to something a clone does not have: the shared folder, this machine, an issue tracker entry. */
const OUTSIDE = /\.\.\/shared|\/work\/|\bissues? #?\d+|DESIGN\.md/gi;
// This file names the patterns it looks for.
const SELF = path.relative(root, new URL(import.meta.url).pathname);

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*)/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe("the repository stands on its own", () => {
  it("has no reference outside it in docs or code", () => {
    const found: string[] = [];
    for (const file of [...markdown, ...code]) {
      if (file === SELF || !existsSync(path.join(root, file))) continue;
      const text = readFileSync(path.join(root, file), "utf8");
      for (const match of text.matchAll(OUTSIDE)) {
        found.push(`${file}:${text.slice(0, match.index).split("\n").length}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("resolves every relative link of the docs to a file and heading inside it", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(path.join(root, file), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [pathPart, anchor] = target!.split("#", 2) as [string, string | undefined];
        const resolved = pathPart ? path.resolve(root, path.dirname(file), pathPart) : path.join(root, file);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (!realpathSync(resolved).startsWith(realpathSync(root))) broken.push(`${file}: ${target} (outside)`);
        else if (
          anchor &&
          statSync(resolved).isFile() &&
          resolved.endsWith(".md") &&
          !anchorsOf(resolved).has(anchor)
        ) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
