import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/support/slow-first-sequencer.js";

const require = createRequire(import.meta.url);

/**
 * Three tiers, one run (`npm test`), each also runnable alone:
 * - unit: pure code, no database, no services: `npm run test:unit` answers in seconds;
 * - integration: the service and its parts against real PostgreSQL and Redis, every REST
 *   answer checked against the OpenAPI document; includes the service tier (test/service:
 *   one service over real repositories on a cloned database);
 * - browser: pages people look at, in Chromium.
 */
export default defineConfig({
  resolve: {
    // graphql 16 has no exports map: without this, inlined files and dependencies
    // load two copies ("Cannot use GraphQLObjectType from another module or realm").
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Three files at a time on two cores: much of an integration file's time is spent waiting
    // (child processes, timers, sockets), so a third worker fills the idle CPU. Each
    // integration file still has its own database.
    maxWorkers: 3,
    pool: "forks",
    // The files that take minutes start first (test/support/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // Pure code: files share their module graph, which takes the tier from ~30 s to ~11 s.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/service/**/*.test.ts"],
          // Files share their worker's module graph, so the app's graph is imported once per
          // worker instead of once per file. Each file still builds its own app on its own
          // database; a file must leave no global state behind (env, timers, listeners).
          isolate: false,
          // One migrated template database and a TLS CA for the run (test/support/global-setup.ts).
          globalSetup: ["test/support/global-setup.ts"],
          // The OpenAPI contract check of every REST answer (test/support/contract.ts).
          setupFiles: ["test/support/contract-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          // As the other tiers: one pool for all three, so files of every tier share the workers.
          isolate: false,
          globalSetup: ["test/support/global-setup.ts"],
          setupFiles: ["test/support/contract-setup.ts"],
        },
      },
    ],
  },
});
