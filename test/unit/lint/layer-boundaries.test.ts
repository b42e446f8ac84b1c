import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The import boundaries of eslint.config.js, checked on small files that exist only
 * in memory: a file that breaks one fails `npm run lint` (and so `npm test`).
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImports(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === "no-restricted-imports")
    .map((message) => message.message);
}

describe("layer boundaries (eslint.config.js)", () => {
  it.each([
    [
      "a feature importing the REST layer",
      "src/modules/score/probe.ts",
      'import type { AnswerStore } from "../../../rest-compat/route.js";',
    ],
    [
      "a feature importing the HTTP layer",
      "src/modules/score/probe.ts",
      'import { sendError } from "../../http/error-reply.js";',
    ],
    [
      "a feature's service importing GraphQL",
      "src/modules/score/probe.service.ts",
      'import { createContext } from "../../graphql/context.js";',
    ],
    [
      "a resolver importing the REST layer",
      "src/modules/score/probe.resolver.ts",
      'export { restRoutes } from "../../../rest-compat/routes.js";',
    ],
    [
      "the database importing the REST layer",
      "src/db/probe.ts",
      'import { restRoutes } from "../../rest-compat/routes.js";',
    ],
    [
      "the config importing a feature",
      "src/config.ts",
      'import { AddressGuard } from "./modules/crawl/address-guard.js";',
    ],
    ["a leaf importing a feature", "src/net/probe.ts", 'import { isUuid } from "../db/uuid.js";'],
    [
      "GraphQL importing the HTTP layer",
      "src/graphql/probe.ts",
      'import { rawRefusal } from "../http/malformed-requests.js";',
    ],
    [
      "GraphQL importing the REST layer",
      "src/graphql/probe.ts",
      'import { restRoutes } from "../../rest-compat/routes.js";',
    ],
    [
      "the REST layer importing the HTTP layer",
      "rest-compat/probe.ts",
      'import { sendError } from "../src/http/error-reply.js";',
    ],
    [
      "a service touching TypeORM",
      "src/modules/score/probe.service.ts",
      'import type { EntityManager } from "typeorm";',
    ],
    ["a resolver touching TypeORM", "src/modules/score/probe.resolver.ts", 'import { DataSource } from "typeorm";'],
    ["GraphQL touching TypeORM", "src/graphql/probe.ts", 'import type { EntityManager } from "typeorm";'],
    [
      "the REST layer touching TypeORM outside a repository",
      "rest-compat/probe.ts",
      'import type { DataSource } from "typeorm";',
    ],
    ["a composition root touching TypeORM", "src/app.ts", 'import { DataSource } from "typeorm";'],
    ["the scale (a leaf) importing a feature", "src/scale/probe.ts", 'import { isUuid } from "../db/uuid.js";'],
    [
      "the client importing server code (not in the client package)",
      "src/client/probe.ts",
      'import { pillarAverage } from "../http/share-chart.js";',
    ],
    ["the CLI importing the config", "src/cli/probe.ts", 'import { loadConfig } from "../config.js";'],
    ["the CLI importing a package the client package lacks", "src/cli/probe.ts", 'import { pino } from "pino";'],
  ])("refuses %s", async (_name, filePath, source) => {
    expect(await restrictedImports(filePath, `${source}\n`)).toHaveLength(1);
  });

  it.each([
    [
      "a resolver reading the GraphQL context",
      "src/modules/score/probe.resolver.ts",
      'import type { GraphQLContext } from "../../graphql/context.js";',
    ],
    [
      "a feature importing a leaf and a library",
      "src/modules/score/probe.ts",
      'import { clientNetwork } from "../../net/client-network.js";\nimport { Kind } from "graphql";\nimport { STATUS_CODES } from "node:http";',
    ],
    [
      "the REST layer importing GraphQL and a feature",
      "rest-compat/probe.ts",
      'import { createContext } from "../src/graphql/context.js";\nimport { ScoreResolver } from "../src/modules/score/score.resolver.js";',
    ],
    [
      "the HTTP layer importing the REST layer",
      "src/http/probe.ts",
      'import { restCompat } from "../../rest-compat/mount.js";',
    ],
    [
      "a composition root importing every layer",
      "src/app.ts",
      'import { buildHttpServer } from "./http/server.js";\nimport { storeFinalResultAnswers } from "../rest-compat/final-answers/final-result-answers.js";',
    ],
    [
      "a repository touching TypeORM",
      "src/modules/score/probe.repository.ts",
      'import type { DataSource } from "typeorm";',
    ],
    ["an entity touching TypeORM", "src/modules/score/probe.entity.ts", 'import { Entity } from "typeorm";'],
    [
      "the REST layer's repository touching TypeORM",
      "rest-compat/final-answers/probe.repository.ts",
      'import type { DataSource } from "typeorm";',
    ],
    ["the database bootstrap touching TypeORM", "src/db/probe.ts", 'import { DataSource } from "typeorm";'],
    [
      "the CLI importing the client, the scale, its dependencies and Node",
      "src/cli/probe.ts",
      'import { PmsClient } from "../client/index.js";\nimport { pillarIds } from "../scale/pillars.js";\nimport { print } from "graphql";\nimport { createClient } from "graphql-ws";\nimport { WebSocket } from "ws";\nimport { homedir } from "node:os";',
    ],
    ["the share page importing the scale", "src/http/probe.ts", 'import { pillarAverage } from "../scale/pillars.js";'],
  ])("allows %s", async (_name, filePath, source) => {
    expect(await restrictedImports(filePath, `${source}\n`)).toEqual([]);
  });
});
