// Starts the embedded PostgreSQL in a process of its own (the binaries package is imported
// once per process, so where it is read from can only be tested in a fresh one), reads
// which binary the server runs from, stops it, and prints what it found as JSON.
//
//   node --import tsx test/support/embedded-start.ts '{"dataDir","sharedRoot","binaryPackage"}'

import { readlink } from "node:fs/promises";
import pg from "pg";
import { pino } from "pino";
import { startEmbeddedPostgres } from "../../src/db/embedded-postgres.js";

const options = JSON.parse(process.argv[2] ?? "{}") as { dataDir: string; sharedRoot: string; binaryPackage: string };
const lines: Array<{ msg: string; binaries?: string }> = [];
const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const database = await startEmbeddedPostgres(options.dataDir, logger, {
  sharedRoot: options.sharedRoot,
  binaryPackage: options.binaryPackage,
});
const client = new pg.Client({ connectionString: database.url });
await client.connect();
const { rows } = await client
  .query<{ pid: number; note: string | null }>(
    "CREATE TABLE IF NOT EXISTS kept (note text); INSERT INTO kept SELECT 'still here' WHERE NOT EXISTS (SELECT 1 FROM kept); SELECT pg_backend_pid() AS pid, (SELECT note FROM kept) AS note",
  )
  .then((results) => (Array.isArray(results) ? results.at(-1)! : results));
const executable = await readlink(`/proc/${rows[0]!.pid}/exe`);
await client.end();
await database.stop();
console.log(
  JSON.stringify({
    executable,
    dataDir: database.dataDir,
    note: rows[0]!.note,
    warnings: lines.filter((line) => line.binaries).map((line) => line.msg),
  }),
);
