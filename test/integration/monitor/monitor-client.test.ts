import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsApiError, PmsClient } from "../../../src/client/index.js";
import { keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import { startTestApp, type TestApp } from "../../support/app.js";

/**
 * The typed client's product calls and the `pms monitor` / `pms badge-public`
 * commands (the built dist/src/cli/pms.js) against a running service.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = join(root, "dist/src/cli/pms.js");
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);

let service: TestApp;
let apiKey: string;
let productId: string;

beforeAll(async () => {
  service = await startTestApp({ MONITOR_TICK_MS: "0" });
  const member = await keyedMember(service, "cli@monitor-client.test", "business");
  apiKey = member.apiKey;
  const [row] = (await service.app.database.dataSource.query(
    `INSERT INTO products (account_id, name, url) VALUES ($1, 'acme.test', 'https://acme.test') RETURNING id`,
    [member.accountId],
  )) as Array<{ id: string }>;
  productId = row!.id;
});
afterAll(async () => {
  await service?.close();
});

async function pms(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(tmpdir(), "pms-monitor-no-home"),
      PMS_API_URL: service.url,
      PMS_API_KEY: apiKey,
    },
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

describe("the typed client", () => {
  it("updateProduct and product: monitor, badge, trend", async () => {
    const client = new PmsClient({ baseUrl: service.url, apiKey });
    const on = await client.updateProduct(productId, { monitor: { interval: "monthly" }, publicBadge: true });
    expect(on).toMatchObject({ id: productId, monitor: { interval: "monthly" }, publicBadge: true, trend: [] });
    const product = await client.product(productId, { trend: 52 });
    expect(product).toMatchObject({ id: productId, monitor: on.monitor, publicBadge: true, trend: [], results: [] });
    const off = await client.updateProduct(productId, { monitor: null, publicBadge: false });
    expect(off).toMatchObject({ monitor: null, publicBadge: false });
    const missing = await client
      .updateProduct("00000000-0000-4000-8000-000000000000", { publicBadge: true })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PmsApiError);
    expect((missing as PmsApiError).code).toBe("NOT_FOUND");
  });
});

describe("pms monitor and pms badge-public", { timeout: 60_000 }, () => {
  it("turns monitoring on and off, and the badge, in words and as JSON", async () => {
    const weekly = await pms(["monitor", productId, "weekly"]);
    expect(weekly.code).toBe(0);
    expect(weekly.stdout).toMatch(/^Monitoring https:\/\/acme\.test weekly; next re-score due \d{4}-\d\d-\d\dT/);
    const json = await pms(["monitor", productId, "monthly", "--json"]);
    expect(JSON.parse(json.stdout).product).toMatchObject({ id: productId, monitor: { interval: "monthly" } });
    expect((await pms(["monitor", productId, "off"])).stdout).toBe("Stopped monitoring https://acme.test\n");
    expect((await pms(["badge-public", productId, "on"])).stdout).toBe("The badge of https://acme.test is public\n");
    expect(JSON.parse((await pms(["badge-public", productId, "off", "--json"])).stdout).product.publicBadge).toBe(
      false,
    );
  });

  it("refuses a wrong interval before calling, and says NOT_FOUND for an unknown product", async () => {
    const wrong = await pms(["monitor", productId, "daily"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("pms monitor <productId> weekly|monthly|off");
    const unknown = await pms(["monitor", "00000000-0000-4000-8000-000000000000", "weekly"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/NOT_FOUND|No such product/);
  });
});
