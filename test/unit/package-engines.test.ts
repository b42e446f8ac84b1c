import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * `npm ci` warns (EBADENGINE) for every installed package whose `engines.node` does not
 * accept the Node running it. package.json promises the Node 20 line from its lowest
 * version up; some dependencies' newest releases need Node 22, so `overrides` pin them
 * to releases that run on 20. Checked against the lock so a dependency update cannot
 * bring the warnings (and the untested runtime) back unnoticed.
 */
const root = new URL("../../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL("package-lock.json", root), "utf8")) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe("package-lock engines", () => {
  it("every locked package runs on the whole oldest Node line package.json accepts", () => {
    const oldest = semver.minVersion(manifest.engines.node)!;
    const line = `>=${oldest.version} <${oldest.major + 1}`;
    expect(semver.subset(line, manifest.engines.node)).toBe(true);

    const refusing = Object.entries(lock.packages)
      .filter(([location]) => location !== "")
      .flatMap(([location, entry]) => {
        // Old packages wrote engines as a list of strings; npm ignores those.
        const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return wanted && !semver.subset(line, wanted) ? [`${location}@${entry.version}: node ${wanted}`] : [];
      });
    expect(refusing).toEqual([]);
  });
});
