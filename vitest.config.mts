import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no exports map: without this, inlined files and dependencies
    // load two copies ("Cannot use GraphQLObjectType from another module or realm").
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // The OpenAPI contract check of every REST answer (test/support/contract.ts).
    setupFiles: ["test/support/contract-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run two at a time, each in its own database.
    maxWorkers: 2,
    pool: "forks",
    reporters: ["default"],
  },
});
