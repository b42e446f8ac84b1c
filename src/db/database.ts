import "reflect-metadata";
import type { Logger } from "pino";
import { closeWithin } from "../bounded-close.js";
import pg from "pg";
import { DataSource } from "typeorm";
import type { Config } from "../config.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "./embedded-postgres.js";
import { entities } from "./entities.js";
import { migrations } from "./migrations/index.js";

/** The connection pool repositories are built on: composition roots hand it to repository constructors. */
export type DatabaseConnection = DataSource;

export interface Database {
  readonly dataSource: DatabaseConnection;
  readonly kind: Config["database"]["kind"];
  /** One round trip, bounded in time: what the health check measures. */
  ping(timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** How long opening one connection may take: past it the database is taken as unreachable (503). */
export const CONNECT_TIMEOUT_MS = 3_000;

/** The default wait for a pooled connection (DATABASE_POOL_WAIT_MS). */
export const DEFAULT_POOL_WAIT_MS = 10_000;

/**
 * pg-pool has one setting, connectionTimeoutMillis, for two waits: for a free pooled
 * connection, and for a new connection to open. They need different bounds: a burst
 * the limits allow queues for connections longer than a healthy database ever takes
 * to accept one. The pool gets the queue wait, and its clients keep their own bound
 * on opening, so an unreachable database is still found out within seconds.
 */
class BoundedConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // pg-pool listens for errors only on idle clients. A client checked out between two statements (inside a
    // transaction) that loses its server ("terminating connection due to unexpected postmaster exit") emits
    // "error" with no query to give it to, and an "error" event nobody listens to ends the process. The
    // client is then unusable: its next statement rejects ("not queryable"), the caller answers that as any
    // database failure, and the pool drops it on release. So the event itself needs no handling here.
    this.on("error", () => undefined);
  }
}

/** Connection settings shared by the service, the schema tools and the tests. */
export function dataSourceFor(url: string, poolSize: number, poolWaitMs: number = DEFAULT_POOL_WAIT_MS): DataSource {
  return new DataSource({
    type: "postgres",
    url,
    entities,
    migrations,
    migrationsTableName: "migrations",
    migrationsTransactionMode: "each",
    synchronize: false,
    uuidExtension: "pgcrypto",
    installExtensions: false,
    poolSize,
    // pg-pool's connectionTimeoutMillis: the wait for a pooled connection (opening one: BoundedConnectClient).
    connectTimeoutMS: poolWaitMs,
    applicationName: "product-maturity-scoring",
    extra: {
      Client: BoundedConnectClient,
      // A statement the database cannot finish in time is a failure, not a hang.
      statement_timeout: 30_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
    },
  });
}

/**
 * Opens the configured database (starting the embedded server when no
 * DATABASE_URL is set) and applies pending migrations before anything serves.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url: string;
  if (config.database.kind === "external") {
    url = config.database.url;
  } else {
    embedded = await startEmbeddedPostgres(config.database.dataDir, logger);
    url = embedded.url;
  }

  const dataSource = dataSourceFor(url, config.database.poolSize, config.database.poolWaitMs);
  try {
    await dataSource.initialize();
    const applied = await dataSource.runMigrations({ transaction: "each" });
    if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.name) }, "applied database migrations");
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }

  return {
    dataSource,
    kind: config.database.kind,
    async ping(timeoutMs) {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error("database ping timed out"), { code: "ETIMEDOUT" })),
          timeoutMs,
        );
      });
      try {
        await Promise.race([dataSource.query("SELECT 1"), timeout]);
      } finally {
        clearTimeout(timer);
      }
      return Math.round((performance.now() - started) * 10) / 10;
    },
    async close() {
      // A pool waits for every client to come back; one never given back must not keep the stop (and the
      // embedded server's) from happening.
      if (dataSource.isInitialized) await closeWithin(dataSource.destroy(), "database pool", logger);
      await embedded?.stop();
    },
  };
}
