import { pino } from "pino";
import { createApp, type App, type AppOverrides } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import { CHROMIUM_PATH, HAS_CHROMIUM } from "./browser.js";
import { observeApiResponse } from "./contract.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

/** The health a test app reports when all is well: "warn" only because this machine has no browser to render with. */
export const HEALTHY = HAS_CHROMIUM ? "pass" : "warn";

export interface TestApp {
  readonly url: string;
  readonly app: App;
  readonly config: Config;
  readonly database: TestDatabase | undefined;
  close(): Promise<void>;
}

/**
 * The real service (same composition root as `npm start`) on 127.0.0.1 with an
 * ephemeral port and a database of its own. `env` adds or overrides variables.
 */
export async function startTestApp(
  env: Record<string, string | undefined> = {},
  overrides: AppOverrides = {},
): Promise<TestApp> {
  const database = "DATABASE_URL" in env ? undefined : await createTestDatabase();
  // The browser for client-rendered sites, as a deployment with Chromium has it ("off" where this machine has none).
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATABASE_URL: database?.url,
    CHROMIUM_PATH: HAS_CHROMIUM ? CHROMIUM_PATH : "off",
    ...env,
  });
  const app = await createApp(config, pino({ level: config.logLevel }), { observeApiResponse, ...overrides });
  const url = await app.listen(0, "127.0.0.1");
  return {
    url,
    app,
    config,
    database,
    async close() {
      await app.close();
      await database?.drop();
    },
  };
}
