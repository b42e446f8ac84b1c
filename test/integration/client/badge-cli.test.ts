import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsApiError, PmsClient } from "../../../src/client/index.js";
import { exitCodes } from "../../../src/cli/exit-codes.js";
import { keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Badges through the typed client (`badge`, `productBadge`) and the built `pms badge`
 * (dist/src/cli/pms.js: build first), against the running service.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);

let service: ScoringTestApp;
let apiKey: string;
let resultId: string;
let productId: string;
beforeAll(async () => {
  service = await startScoringApp();
  apiKey = (await keyedMember(service, "badge-cli@client.test")).apiKey;
  const client = new PmsClient({ baseUrl: service.url, apiKey });
  const outcome = await client.score(service.siteUrl("growing.test"), { mode: "product" });
  if (outcome.status !== "completed") throw new Error("the product score did not finish within the wait");
  resultId = outcome.result.id;
  productId = (outcome.result as { productId: string }).productId;
}, 120_000);
afterAll(() => service?.close());

async function pms(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: join(tmpdir(), "pms-badge-no-home"), PMS_API_URL: service.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

describe("badges in the typed client", () => {
  it("answers a result's badge, the same SVG as GET /r/{id}/badge.svg", async () => {
    const badge = await new PmsClient({ baseUrl: service.url }).badge(resultId);
    expect(badge.url).toBe(`${service.config.publicBaseUrl}/r/${resultId}/badge.svg`);
    expect(badge.markdown).toContain(`](${service.config.publicBaseUrl}/r/${resultId})`);
    expect(badge.html).toContain(`<img src="${badge.url}"`);
    expect(badge.svg).toBe(await (await fetch(`${service.url}/r/${resultId}/badge.svg`)).text());
  });

  it("answers a product's badge only once it is public, NOT_FOUND before", async () => {
    const client = new PmsClient({ baseUrl: service.url });
    const refused = await client.productBadge(productId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PmsApiError);
    expect((refused as PmsApiError).code).toBe("NOT_FOUND");
    await service.app.database.dataSource.query(`UPDATE "products" SET "public_badge" = true WHERE "id" = $1`, [
      productId,
    ]);
    const badge = await client.productBadge(productId);
    expect(badge.url).toBe(`${service.config.publicBaseUrl}/api/products/${productId}/badge.svg`);
    expect(badge.svg).toBe(await (await fetch(`${service.url}/api/products/${productId}/badge.svg`)).text());
  });
});

describe("pms badge", { timeout: 60_000 }, () => {
  it("prints Markdown by default, and each other format on request", async () => {
    const markdown = await pms(["badge", resultId]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^\[!\[maturity: \d+ · \w+\]\(.+\/badge\.svg\)\]\(.+\)\n$/);
    const url = await pms(["badge", resultId, "--format", "url"]);
    expect(url.stdout).toBe(`${service.config.publicBaseUrl}/r/${resultId}/badge.svg\n`);
    const html = await pms(["badge", resultId, "--format", "html"]);
    expect(html.stdout).toMatch(/^<a href=".+"><img src=".+" alt="maturity: [^"]+"><\/a>\n$/);
    const svg = await pms(["badge", resultId, "--format", "svg"]);
    expect(svg.stdout).toMatch(/^<svg [^>]*role="img"/);
    const json = await pms(["badge", resultId, "--json"]);
    expect(Object.keys(JSON.parse(json.stdout)).sort()).toEqual(["html", "markdown", "svg", "url"]);
  });

  it("prints a product's public badge with --product", async () => {
    const run = await pms(["badge", "--product", productId, "--format", "url"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${service.config.publicBaseUrl}/api/products/${productId}/badge.svg\n`);
  });

  it("refuses bad usage (exit 2) and unknown ids (exit 3, NOT_FOUND)", async () => {
    const format = await pms(["badge", resultId, "--format", "png"]);
    expect(format.code).toBe(exitCodes.usage.code);
    expect(format.stderr).toContain("--format: one of markdown, html, url, svg");
    expect((await pms(["badge"])).code).toBe(exitCodes.usage.code);
    expect((await pms(["badge", resultId, "--product", productId])).code).toBe(exitCodes.usage.code);
    const unknown = await pms(["badge", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.code).toBe(exitCodes.refused.code);
    expect(unknown.stderr).toContain("NOT_FOUND");
    const product = await pms(["badge", "--product", "00000000-0000-4000-8000-000000000000"]);
    expect(product.code).toBe(exitCodes.refused.code);
  });
});
