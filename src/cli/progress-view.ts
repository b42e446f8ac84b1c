import type { ProgressStep } from "../client/index.js";

/** What a view needs of a step (a graphql-ws step, or a polled job's `progress`). */
export type Step = Pick<ProgressStep, "status" | "page" | "pages" | "url" | "dimension" | "dimensions" | "dimensionId">;

export interface Output {
  write(text: string): unknown;
  readonly columns?: number | undefined;
}

export interface ProgressView {
  update(step: Step): void;
  /** Clears what is being redrawn (before other output). */
  end(): void;
}

const CLEAR_LINE = "\r\x1b[2K";
const BAR_WIDTH = 24;

/** One bar redrawn in place on a terminal: crawling n of m with the page, then scoring k of 27. */
export class TerminalProgress implements ProgressView {
  private phase: Step["status"] | undefined;
  private pagesRead = 0;
  private dimensions = 27;
  private drawn = false;

  constructor(private readonly out: Output) {}

  update(step: Step): void {
    if (step.status === "crawling") {
      this.pagesRead = step.page ?? this.pagesRead;
      this.draw(
        `Crawling ${bar(step.page ?? 0, step.pages ?? 0)} ${step.page ?? 0} of ${step.pages ?? "?"}  ${step.url ?? ""}`,
      );
    } else if (step.status === "scoring") {
      if (this.phase === "crawling") this.settle(`Crawled ${this.pagesRead} page${this.pagesRead === 1 ? "" : "s"}`);
      this.dimensions = step.dimensions ?? this.dimensions;
      this.draw(
        `Scoring  ${bar(step.dimension ?? 0, step.dimensions ?? 27)} ${step.dimension ?? 0} of ${step.dimensions ?? 27}  ${step.dimensionId ?? ""}`,
      );
    } else if (step.status === "queued") {
      this.draw("Queued…");
    } else if (step.status === "completed" && this.phase === "scoring") {
      this.settle(`Scored ${this.dimensions} dimensions`);
    } else {
      this.end();
    }
    this.phase = step.status;
  }

  end(): void {
    if (this.drawn) this.out.write(CLEAR_LINE);
    this.drawn = false;
  }

  /** Replaces the bar with a line that stays. */
  private settle(line: string): void {
    this.out.write(`${CLEAR_LINE}${line}\n`);
    this.drawn = false;
  }

  private draw(line: string): void {
    const width = Math.max(20, (this.out.columns || 80) - 1);
    this.out.write(CLEAR_LINE + (line.length > width ? `${line.slice(0, width - 1)}…` : line));
    this.drawn = true;
  }
}

/** One line per step, for logs and pipes: no control characters. */
export class PlainProgress implements ProgressView {
  private last = "";

  constructor(private readonly out: Output) {}

  update(step: Step): void {
    const line =
      step.status === "crawling"
        ? `crawling ${step.page ?? 0} of ${step.pages ?? "?"} ${step.url ?? ""}`.trimEnd()
        : step.status === "scoring"
          ? `scoring ${step.dimension ?? 0} of ${step.dimensions ?? 27} ${step.dimensionId ?? ""}`.trimEnd()
          : step.status;
    if (line === this.last) return;
    this.last = line;
    this.out.write(`${line}\n`);
  }

  end(): void {}
}

export class SilentProgress implements ProgressView {
  update(): void {}
  end(): void {}
}

export function bar(done: number, total: number, width = BAR_WIDTH): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}
