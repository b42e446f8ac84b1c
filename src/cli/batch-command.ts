import { readFileSync, writeFileSync } from "node:fs";
import { PmsNetworkError, type BatchStep, type ScoreBatch } from "../client/index.js";
import type { Flags, Io, Outcome } from "./commands.js";
import { UsageError } from "./exit-codes.js";
import { bar, type Output } from "./progress-view.js";

type BatchState = Pick<BatchStep, "status" | "counts">;

const CLEAR_LINE = "\r\x1b[2K";

/** A batch's progress: one bar redrawn in place on a terminal, one line per change otherwise. */
class BatchProgress {
  private last = "";
  private drawn = false;

  constructor(
    private readonly out: Output,
    private readonly terminal: boolean,
  ) {}

  update({ counts }: BatchState): void {
    const scored = counts.total - counts.refused;
    const done = counts.completed + counts.failed;
    const detail = [
      counts.running > 0 ? `${counts.running} running` : "",
      counts.failed > 0 ? `${counts.failed} failed` : "",
      counts.refused > 0 ? `${counts.refused} refused` : "",
    ]
      .filter(Boolean)
      .join(", ");
    const line = `${done} of ${scored} done${detail ? ` (${detail})` : ""}`;
    if (line === this.last) return;
    this.last = line;
    if (this.terminal) {
      this.out.write(`${CLEAR_LINE}Batch ${bar(done, scored)} ${line}`);
      this.drawn = true;
    } else {
      this.out.write(`batch: ${line}\n`);
    }
  }

  end(): void {
    if (this.drawn) this.out.write("\n");
    this.drawn = false;
  }
}

/**
 * The addresses of a list file: one per line, blank lines skipped, an optional
 * first line `url` (a CSV header). Each line goes to the service as it is: the
 * service judges it, and lists any it refuses.
 */
export function readUrlList(text: string): string[] {
  const lines = text
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines[0]?.toLowerCase() === "url" ? lines.slice(1) : lines;
}

/**
 * `pms batch <file> [--out results.csv] [--context TEXT] [--json]`: submits the
 * list, says which addresses were refused, follows the batch (graphql-ws, else
 * polling) with a progress bar on stderr, then writes the CSV (to --out, else
 * stdout). A batch refused as a whole (plan, credits) exits non-zero.
 */
export async function batchCommand(io: Io, positionals: readonly string[], flags: Flags): Promise<Outcome> {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError("expected one file: pms batch <urls.txt>");
  if (!io.hasKey) throw new UsageError("pms batch needs an API key: set PMS_API_KEY, or run pms login");
  let text: string;
  try {
    text = readFileSync(positionals[0], "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${positionals[0]}: ${(error as Error).message}`);
  }
  const urls = readUrlList(text);
  if (urls.length === 0) throw new UsageError(`${positionals[0]} lists no address`);
  const out = typeof flags.out === "string" ? flags.out : undefined;

  const submitted = await io.client.scoreBatch(
    urls,
    typeof flags.context === "string" ? { context: flags.context } : {},
  );
  for (const item of submitted.items) {
    if (item.status === "refused")
      io.stderr.write(`refused: ${item.url}: ${item.error?.code ?? "REFUSED"} ${item.error?.message ?? ""}\n`);
  }
  io.stderr.write(`Batch ${submitted.id}: ${submitted.counts.total - submitted.counts.refused} queued.\n`);
  const view = new BatchProgress(io.stderr, io.stderr.isTTY === true);
  view.update(submitted);
  try {
    await follow(io, submitted, view);
  } finally {
    view.end();
  }
  const csv = await io.client.batchCsv(submitted.id);
  if (out) {
    writeFileSync(out, csv);
    io.stderr.write(`Wrote ${out}.\n`);
  }
  if (flags.json) io.stdout.write(`${JSON.stringify(await io.client.batch(submitted.id), null, 2)}\n`);
  else if (!out) io.stdout.write(csv);
}

/** Follows the batch to its end: graphql-ws, or polling where a socket cannot go. */
async function follow(io: Io, batch: ScoreBatch, view: BatchProgress): Promise<void> {
  if (batch.status === "completed") return;
  try {
    for await (const step of io.client.followBatch(batch.id)) view.update(step);
    return;
  } catch (error) {
    if (!(error instanceof PmsNetworkError)) throw error;
    io.stderr.write(`\nLive progress unavailable (${error.message}); polling the batch.\n`);
  }
  for (;;) {
    const polled = await io.client.batch(batch.id);
    view.update(polled);
    if (polled.status === "completed") return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
