import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCATION_NOTE } from "../../src/db/embedded-postgres.js";
import { collectLines } from "../support/child-process.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

/**
 * What a newcomer does, for real: root, a clone in a home directory of mode 0700
 * (like /root), `npm ci`, `npm start` on the embedded PostgreSQL (no DATABASE_URL,
 * no REDIS_URL), then `npm test` on the embedded PostgreSQL too (limited to one
 * small file: what is proved is that its global set-up works there).
 *
 * The clone is of this checkout's committed HEAD: changes not committed are not
 * in it. It takes minutes (install, build, type check and lint of the clone), and
 * runs as root only (CI does): as another user the binaries run as that user, who
 * owns the 0700 home, so nothing differs from the rest of the suite. `npm ci`
 * reads npm's cache, warm after the install of this checkout.
 */
const checkout = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const MINUTE = 60_000;

/** A newcomer's environment: nothing of this test run's (no VITEST_*, NODE_ENV, DATABASE_URL). */
function newcomerEnv(tmp: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) =>
    /^(PATH|HOME|USER|LANG|LC_ALL|(https?|no)_proxy|npm_config_(registry|cache|userconfig))$/i.test(name),
  );
  return { ...Object.fromEntries(kept), TMPDIR: tmp, CI: "true", ...extra };
}

/** The exit code once the child has exited and everything written to its output (by it or what it started) is read. */
function closed(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

/** Runs a command to its end, answering its exit code and everything it printed. */
async function runIn(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines = collectLines(child);
  const code = await closed(child);
  return { code, output: lines.join("\n") };
}

/** The Node process under `root` (its child, or theirs) that runs `script` (not a shell that was told to). */
async function nodeRunning(root: number, script: string): Promise<number | undefined> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    const pid = Number(entry);
    if (!pid) continue;
    const status = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // The parent is the second field after the command name (which may hold spaces, inside parentheses).
    const parent = Number(status.slice(status.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent) parents.set(pid, parent);
  }
  for (const [pid] of parents) {
    let up = parents.get(pid);
    while (up !== undefined && up !== root) up = parents.get(up);
    if (up !== root) continue;
    const args = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (path.basename(args[0] ?? "").startsWith("node") && args.includes(script)) return pid;
  }
  return undefined;
}

/** Waits for the "service listening" line (its url), failing at once if the process ends first. */
async function listening(child: ChildProcess, lines: string[], within: number): Promise<string> {
  const deadline = Date.now() + within;
  while (Date.now() < deadline) {
    const line = lines.find((candidate) => candidate.includes('"service listening"'));
    if (line) return (JSON.parse(line.slice(line.indexOf("{"))) as { url: string }).url;
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before listening:\n${lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not listening after ${within} ms:\n${lines.join("\n")}`);
}

async function leftPasswordFiles(dir: string): Promise<string[]> {
  const { stdout } = await run("find", [dir, "(", "-name", "pg-password*", "-o", "-name", ".initdb-*", ")", "-print"]);
  return stdout.split("\n").filter(Boolean);
}

describe.runIf(process.getuid?.() === 0)("a newcomer, as root, in a home directory of mode 0700", () => {
  let home: string;
  let tmp: string;
  let relocatedData: string | undefined;
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), "pms-newcomer-home-"));
    // The processes' TMPDIR, of their own: what they leave there is theirs. Others may pass
    // through it, as through /tmp (npm test's embedded database is made under it).
    tmp = await mkdtemp(path.join(tmpdir(), "pms-newcomer-tmp-"));
    await chmod(tmp, 0o755);
  });
  afterAll(async () => {
    // The embedded data went to a shared location named after the clone's DATA_DIR: not kept for anyone.
    if (relocatedData) await rm(path.dirname(relocatedData), { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
    await rm(tmp, { recursive: true, force: true });
  });

  it(
    "clones, installs, starts on the embedded PostgreSQL, stops cleanly, and runs npm test there",
    async () => {
      expect((await stat(home)).mode & 0o777).toBe(0o700);
      const clone = path.join(home, "clone");
      const head = (await run("git", ["rev-parse", "HEAD"], { cwd: checkout })).stdout.trim();
      const top = (await run("git", ["rev-parse", "--show-toplevel"], { cwd: checkout })).stdout.trim();
      await run("git", ["-c", "safe.directory=*", "clone", "--quiet", "--no-checkout", top, clone]);
      await run("git", ["checkout", "--quiet", "--detach", head], { cwd: clone });

      const install = await runIn(
        clone,
        "npm",
        ["ci", "--prefer-offline", "--no-audit", "--no-fund"],
        newcomerEnv(tmp),
      );
      expect({ code: install.code, output: install.code === 0 ? "" : install.output }).toEqual({ code: 0, output: "" });
      expect(install.output).not.toContain("EBADENGINE");

      // npm start: builds (prestart), then serves on the embedded PostgreSQL.
      const env = newcomerEnv(tmp, { HOST: "127.0.0.1", PORT: "0", LOG_FORMAT: "json" });
      // A process group of its own: should the test fail half-way, nothing it started is left running.
      const npmStart = spawn("npm", ["start"], { cwd: clone, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
      const lines = collectLines(npmStart);
      const ended = closed(npmStart);
      try {
        const url = await listening(npmStart, lines, 8 * MINUTE);
        const health = await fetch(`${url}/api/health`);
        expect(health.status).toBe(200);
        relocatedData = (await readFile(path.join(clone, ".data", LOCATION_NOTE), "utf8")).match(/ in (\S+):/)?.[1];
        expect(relocatedData).toMatch(/^\/var\/lib\/product-maturity-service\/data-\w+\/postgres$/);
        expect((await stat(home)).mode & 0o777).toBe(0o700);

        // SIGTERM to the service (npm itself does not pass it on): it drains, stops its database, exits 0, and so does npm.
        const service = await nodeRunning(npmStart.pid!, "dist/src/main.js");
        expect(service).toBeDefined();
        process.kill(service!, "SIGTERM");
        expect(await ended).toBe(0);
      } finally {
        if (!groupGone(npmStart.pid!)) process.kill(-npmStart.pid!, "SIGTERM");
      }
      expect(lines.join("\n")).toContain('"service shutting down"');
      await expect(stat(path.join(relocatedData!, "postmaster.pid"))).rejects.toThrow(/ENOENT/);
      expect(await leftPasswordFiles(clone)).toEqual([]);
      expect(await leftPasswordFiles(tmp)).toEqual([]);

      // npm test in the same clone, on the embedded PostgreSQL (no DATABASE_URL): type check, lint, one file.
      const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
      const npmTest = await runIn(
        clone,
        "npm",
        ["test", "--", "--project", "integration", "test/integration/database-pool.test.ts"],
        newcomerEnv(tmp, redis),
      );
      expect({ code: npmTest.code, output: npmTest.code === 0 ? "" : npmTest.output }).toEqual({ code: 0, output: "" });
      expect(npmTest.output.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Test Files\s+1 passed/);
      expect(await leftPasswordFiles(tmp)).toEqual([]);
    },
    25 * MINUTE,
  );
});

/**
 * `npm run dev`: the service from its sources (tsx), restarted when they change. It
 * runs the same decorators as the build: every type-graphql and TypeORM decorator
 * names its type, so nothing depends on emitted decorator metadata, which tsx
 * (esbuild) does not emit.
 */
describe("npm run dev", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it(
    "serves /api/health from the sources, and stops on SIGTERM",
    async () => {
      const tmp = await mkdtemp(path.join(tmpdir(), "pms-dev-"));
      const env = newcomerEnv(tmp, { HOST: "127.0.0.1", PORT: "0", LOG_FORMAT: "json", DATABASE_URL: database.url });
      // Its own process group: npm, tsx's watcher and the service it runs are stopped together.
      const dev = spawn("npm", ["run", "dev"], {
        cwd: checkout,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      const lines = collectLines(dev);
      // Closed once every process of the group that holds its output has ended.
      const ended = closed(dev);
      try {
        const url = await listening(dev, lines, 3 * MINUTE);
        const health = await fetch(`${url}/api/health`);
        expect(health.status).toBe(200);
        const graphql = await fetch(`${url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
        expect(await graphql.json()).toEqual({ data: { __typename: "Query" } });
      } finally {
        process.kill(-dev.pid!, "SIGTERM");
        await ended;
        await expect.poll(() => groupGone(dev.pid!), { timeout: 30_000 }).toBe(true);
        await rm(tmp, { recursive: true, force: true });
      }
      expect(lines.join("\n")).toContain('"service shutting down"');
    },
    5 * MINUTE,
  );
});

function groupGone(group: number): boolean {
  try {
    process.kill(-group, 0);
    return false;
  } catch {
    return true;
  }
}
