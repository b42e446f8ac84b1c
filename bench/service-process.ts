import { fork, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";

/**
 * The service in a child process for the benchmarks that load it over HTTP, so the
 * load generator does not share its event loop: the benchmark forks its own file
 * with `--serve <database url>` (`spawnService`), and that child calls `serveChild`,
 * which starts the service (no scoring workers) and reports its port.
 */
export async function serveChild(databaseUrl: string, env: Record<string, string> = {}): Promise<void> {
  const config = loadConfig({
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    DATABASE_URL: databaseUrl,
    SCORE_WORKERS: "0",
    ...env,
  });
  const app = await createApp(config, pino({ level: config.logLevel }));
  await app.listen(0, "127.0.0.1");
  process.on("disconnect", () => process.exit(0));
  process.send?.({ port: (app.http.server.address() as AddressInfo).port });
}

/** Forks `script --serve databaseUrl` and answers the child with its port (30 s to start). */
export function spawnService(script: string, databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("APOLLO_")) delete env[key];
  const child = fork(script, ["--serve", databaseUrl], {
    env,
    execArgv: [...process.execArgv, "--max-semi-space-size=32"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("service did not start in 30 s")), 30_000);
    child.once("message", (msg) => {
      clearTimeout(timer);
      resolve({ child, port: (msg as { port: number }).port });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited early with code ${code}`));
    });
  });
}
