import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.js";

/**
 * Redocly's linter (`@redocly/cli`, the recommended rules as redocly.yaml sets them) on
 * the document the service serves: no error and no warning. It checks what a schema
 * validator does not: every example against its schema, tag and licence descriptions,
 * unused or undefined references, operation ids, security on every operation.
 */
let service: TestApp;
let scratch: string;
beforeAll(async () => {
  // Configured as a deployment is: `servers` is PUBLIC_BASE_URL, and the rule no-server-example.com
  // rightly warns on the development default (http://localhost:4000).
  service = await startTestApp({ PUBLIC_BASE_URL: "https://api.productmaturity.example" });
  scratch = mkdtempSync(path.join(tmpdir(), "openapi-lint-"));
});
afterAll(async () => {
  await service?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

function redoclyLint(file: string): Promise<LintReport> {
  const cli = path.resolve("node_modules/@redocly/cli/bin/cli.js");
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, "lint", file, "--format=json", `--config=${path.resolve("redocly.yaml")}`],
      // No telemetry or update check: the run stays on this machine.
      { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }, timeout: 120_000 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as LintReport);
        } catch {
          reject(new Error(`redocly lint gave no report (${error?.message ?? "no error"}): ${stderr.slice(0, 2000)}`));
        }
      },
    ),
  );
}

describe("redocly lint of GET /api/openapi.json", () => {
  it("reports no error and no warning", async () => {
    const response = await fetch(`${service.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const file = path.join(scratch, "openapi.json");
    writeFileSync(file, await response.text());
    const report = await redoclyLint(file);
    expect(
      report.problems.map(
        (problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
      ),
    ).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 150_000);
});
