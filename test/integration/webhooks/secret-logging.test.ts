import { Writable } from "node:stream";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { GraphQLError } from "graphql";
import pg from "pg";
import { pino, type Logger } from "pino";
import { QueryFailedError } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { dataSourceFor } from "../../../src/db/database.js";
import { AppError } from "../../../src/errors.js";
import { createLogger } from "../../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";

/**
 * A write of a webhook secret that fails (a lock held elsewhere, a failover, a
 * timeout) must not put the secret in the log. The failure is real: the test
 * database makes a statement give up after 300 ms of waiting for a lock, and a
 * second connection holds `LOCK TABLE webhooks IN SHARE MODE`, which lets the
 * rotation's `SELECT … FOR NO KEY UPDATE` through but blocks its UPDATE (and a
 * creation's INSERT). Everything is logged at debug level.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await withClient((client) => client.query(`ALTER DATABASE ${database.name} SET lock_timeout = '300ms'`));
});
afterAll(() => database?.drop());

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs `work` while another connection holds a SHARE lock on the webhooks table. */
async function whileWebhooksLocked<T>(work: () => Promise<T>): Promise<T> {
  return withClient(async (client) => {
    await client.query("BEGIN");
    await client.query("LOCK TABLE webhooks IN SHARE MODE");
    try {
      return await work();
    } finally {
      await client.query("ROLLBACK");
    }
  });
}

function capture(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString("utf8")), done()),
  });
  return { lines, sink };
}

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } secret } }`;
const ROTATE = `mutation($id: ID!) { rotateWebhookSecret(id: $id) { webhook { id } secret } }`;

describe("a failed write of a webhook secret", () => {
  // Bare pino is what a test or a tool might log with: the service itself must not hand it the secret.
  // The service's own logger must hold back a failed statement's values whoever threw the error.
  const loggers: Array<[string, (sink: Writable) => Logger]> = [
    ["a bare pino logger", (sink) => pino({ level: "debug" }, sink)],
    [
      "the service's logger",
      (sink) => createLogger({ logLevel: "debug", env: "test", logFormat: "json" }, false, sink),
    ],
  ];

  it.each(loggers)(
    "logs neither the new nor the live secret, over REST and GraphQL, with %s",
    async (name, loggerFor) => {
      const { lines, sink } = capture();
      const config = loadConfig({
        NODE_ENV: "test",
        LOG_LEVEL: "debug",
        DATABASE_URL: database.url,
        SSRF_ALLOWLIST: "127.0.0.1/32",
        SCORE_WORKERS: "0",
      });
      const app = await createApp(config, loggerFor(sink), { webhooks: { deliver: false } });
      const url = await app.listen(0, "127.0.0.1");
      try {
        const service = { url, app, config, database: undefined, close: async () => undefined };
        const owner = await signIn(service, `${name.replace(/\W+/g, "-")}@secrets.test`);
        const api = apiClient(service);
        const graphql = graphqlClient(service);
        const created = await api("/api/webhooks", {
          method: "POST",
          cookie: owner.cookie,
          body: { url: "https://127.0.0.1:9/hook" },
        });
        expect(created.status).toBe(201);
        const { webhook } = (await created.json()) as { webhook: { id: string; secret: string } };
        const liveSecret = webhook.secret;
        expect(liveSecret).toMatch(/^whsec_/);

        const answers = await whileWebhooksLocked(async () => ({
          restRotate: await api(`/api/webhooks/${webhook.id}/rotate-secret`, { method: "POST", cookie: owner.cookie }),
          restCreate: await api("/api/webhooks", {
            method: "POST",
            cookie: owner.cookie,
            body: { url: "https://127.0.0.1:9/other" },
          }),
          graphqlRotate: await graphql(ROTATE, { id: webhook.id }, { cookie: owner.cookie }),
          graphqlCreate: await graphql(
            CREATE,
            { input: { url: "https://127.0.0.1:9/third" } },
            { cookie: owner.cookie },
          ),
        }));

        // Each write failed, in the catalogue's envelope, with nothing of the database in the answer.
        for (const response of [answers.restRotate, answers.restCreate]) {
          expect(response.status).toBe(500);
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe("INTERNAL");
        }
        for (const body of [answers.graphqlRotate, answers.graphqlCreate])
          expect(body.errors?.[0]?.extensions?.code).toBe("INTERNAL");
        // The failures were logged, with what an operator needs: the database's reason and the statement.
        const log = lines.join("");
        expect(log).toContain("unexpected error in REST route");
        expect(log).toContain("unexpected GraphQL error");
        expect(log).toMatch(/canceling statement due to lock timeout/);
        expect(log).toMatch(/UPDATE \\"webhooks\\"/);
        expect(log).toMatch(/INSERT INTO \\"webhooks\\"/);
        // No secret at all: the live one, nor any new one the failed writes made.
        expect(log).not.toContain("whsec_");
        expect(log).not.toContain(liveSecret.slice("whsec_".length));
        // The rotation rolled back: the live secret still signs, and the failed creations left nothing.
        const [row] = (
          await withClient((client) =>
            client.query(`SELECT count(*)::int AS n, max(secret) AS secret FROM webhooks WHERE account_id = $1`, [
              owner.accountId,
            ]),
          )
        ).rows;
        expect(row).toEqual({ n: 1, secret: liveSecret });
      } finally {
        await app.close();
      }
    },
  );

  it("the service's logger writes no statement parameters, wherever the database error sits in what is logged", async () => {
    const { lines, sink } = capture();
    const logger = createLogger({ logLevel: "debug", env: "test", logFormat: "json" }, false, sink);
    const dataSource = dataSourceFor(database.url, 1);
    await dataSource.initialize();
    try {
      // A real QueryFailedError whose bound value is a secret-like marker (the database's message does not quote it).
      const failure = await dataSource
        .query("INSERT INTO no_such_table VALUES ($1)", ["whsec_marker"])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(QueryFailedError);
      logger.error({ err: failure }, "as the error itself");
      logger.error(
        { err: new GraphQLError("wrapped", { originalError: failure as Error }) },
        "as a GraphQL error's cause",
      );
      logger.warn({ err: new AppError("SERVICE_UNAVAILABLE", "down", { cause: failure }) }, "as an AppError's cause");
      logger.debug(failure as Error, "as the first argument");
      // Fastify's request loggers are children it makes with serializers of its own: ours must win.
      const fastify = Fastify({ loggerInstance: logger as FastifyBaseLogger });
      fastify.log.child({ reqId: "req_test" }).error({ err: failure }, "through Fastify's logger");
      await fastify.close();
    } finally {
      await dataSource.destroy();
    }
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line).not.toContain("whsec_marker");
      expect(line).toMatch(/relation \\"no_such_table\\" does not exist/);
    }
  });
});
