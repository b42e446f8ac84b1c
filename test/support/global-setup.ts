import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { pino } from "pino";
import type { TestProject } from "vitest/node";
import { dataSourceFor } from "../../src/db/database.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/db/embedded-postgres.js";
import { makeTestTls } from "./test-tls.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser connection to the server the tests use. */
    adminDatabaseUrl: string;
    /** A migrated database each test file clones its own database from. */
    templateDatabase: string;
    /** A server key and certificate for 127.0.0.1, signed by a CA every test process trusts (NODE_EXTRA_CA_CERTS). */
    testTls: { key: string; cert: string };
  }
}

/**
 * One migrated template per run; each test file clones it (CREATE DATABASE …
 * TEMPLATE), which takes milliseconds and isolates files from each other.
 * DATABASE_URL set (CI): that server. Unset: an embedded PostgreSQL, so `npm test`
 * needs nothing installed.
 */
export default async function setup(project: TestProject) {
  // Before any test process starts, so each one trusts the run's CA from its first line.
  const tls = await makeTestTls();
  process.env.NODE_EXTRA_CA_CERTS = tls.caFile;
  project.provide("testTls", { key: tls.key, cert: tls.cert });
  let embedded: EmbeddedDatabase | undefined;
  let scratch: string | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    scratch = await mkdtemp(path.join(tmpdir(), "pms-test-db-"));
    // A start that fails is an EmbeddedDatabaseError: vitest prints its one line (what failed, what to do), no trace.
    embedded = await startEmbeddedPostgres(path.join(scratch, "postgres"), pino({ level: "warn" })).catch(
      async (error: unknown) => {
        await rm(scratch!, { recursive: true, force: true });
        throw error;
      },
    );
    adminUrl = embedded.url;
  }

  const template = `pms_template_${process.pid}`;
  await withClient(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${template}`);
    await client.query(`CREATE DATABASE ${template}`);
  });
  const dataSource = dataSourceFor(withDatabase(adminUrl, template), 2);
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: "each" });
  await dataSource.destroy();

  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", template);

  return async () => {
    await withClient(adminUrl, async (client) => {
      const leftovers = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2",
        [template, `pms_t_${process.pid}_%`],
      );
      for (const { datname } of leftovers.rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
    await embedded?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
