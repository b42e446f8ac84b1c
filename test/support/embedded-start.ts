// Starts the embedded PostgreSQL in a process of its own (with its own TMPDIR, and a start
// that goes wrong cannot take the test's process down with it), reads which binary the
// server runs from, stops it, and prints what it found as JSON; a start
// that fails prints {"failure": message} and exits 1.
//
//   node --import tsx test/support/embedded-start.ts '{"dataDir","sharedRoot","binaryPackage"}'

import { readlink } from "node:fs/promises";
import pg from "pg";
import { pino } from "pino";
import { EmbeddedDatabaseError, startEmbeddedPostgres } from "../../src/db/embedded-postgres.js";

const options = JSON.parse(process.argv[2] ?? "{}") as { dataDir: string; sharedRoot: string; binaryPackage: string };
const lines: Array<{ msg: string; binaries?: string }> = [];
const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const database = await startEmbeddedPostgres(options.dataDir, logger, {
  sharedRoot: options.sharedRoot,
  binaryPackage: options.binaryPackage,
}).catch((error: unknown) => {
  // As the service does: a failure it explains is one line, and the exit code says it failed.
  if (!(error instanceof EmbeddedDatabaseError)) throw error;
  console.log(JSON.stringify({ failure: error.message }));
  process.exit(1);
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
