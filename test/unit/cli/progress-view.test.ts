import { describe, expect, it } from "vitest";
import { exitCodeFor, exitCodes, UsageError } from "../../../src/cli/exit-codes.js";
import { bar, PlainProgress, TerminalProgress, type Step } from "../../../src/cli/progress-view.js";
import { PmsApiError, PmsJobFailedError, PmsNetworkError, PmsProtocolError } from "../../../src/client/index.js";

const step = (fields: Partial<Step> & Pick<Step, "status">): Step => ({
  page: null,
  pages: null,
  url: null,
  dimension: null,
  dimensions: null,
  dimensionId: null,
  ...fields,
});
const job: Step[] = [
  step({ status: "queued" }),
  step({ status: "crawling", page: 1, pages: 2, url: "https://acme.example/" }),
  step({ status: "crawling", page: 2, pages: 2, url: "https://acme.example/pricing" }),
  ...Array.from({ length: 27 }, (_, index) =>
    step({ status: "scoring", dimension: index + 1, dimensions: 27, dimensionId: `d${index + 1}` }),
  ),
  step({ status: "completed" }),
];

function render(
  view: (out: { write(text: string): void; columns?: number }) => { update(step: Step): void; end(): void },
  columns?: number,
): string {
  let text = "";
  const target = view({ write: (chunk) => void (text += chunk), ...(columns ? { columns } : {}) });
  for (const item of job) target.update(item);
  target.end();
  return text;
}

describe("progress on a terminal", () => {
  it("redraws one line in place: crawling n of m with the page, then scoring k of 27, leaving a line per phase", () => {
    const text = render((out) => new TerminalProgress(out));
    expect(text.split("\r\x1b[2K").filter(Boolean)).toEqual([
      "Queued…",
      `Crawling ${bar(1, 2)} 1 of 2  https://acme.example/`,
      `Crawling ${bar(2, 2)} 2 of 2  https://acme.example/pricing`,
      "Crawled 2 pages\n",
      ...Array.from({ length: 27 }, (_, index) => `Scoring  ${bar(index + 1, 27)} ${index + 1} of 27  d${index + 1}`),
      "Scored 27 dimensions\n",
    ]);
  });

  it("fits the terminal's width", () => {
    const lines = render((out) => new TerminalProgress(out), 30).split("\r\x1b[2K");
    expect(Math.max(...lines.map((line) => line.replace("\n", "").length))).toBeLessThanOrEqual(29);
  });

  it("draws bars of a fixed width", () => {
    expect(bar(0, 27)).toBe(`[${"░".repeat(24)}]`);
    expect(bar(27, 27)).toBe(`[${"█".repeat(24)}]`);
    expect(bar(50, 100, 10)).toBe("[█████░░░░░]");
    expect(bar(3, 0)).toBe(`[${"░".repeat(24)}]`);
  });
});

describe("progress in a pipe", () => {
  it("writes one plain line per step, with no control characters", () => {
    const lines = render((out) => new PlainProgress(out)).split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "queued",
      "crawling 1 of 2 https://acme.example/",
      "crawling 2 of 2 https://acme.example/pricing",
      "scoring 1 of 27 d1",
    ]);
    expect(lines.slice(-3)).toEqual(["scoring 27 of 27 d27", "completed", ""]);
    expect(lines.join("\n")).not.toMatch(/[\r\x1b]/);
  });
});

describe("exit codes", () => {
  const refusal = (status: number, code: PmsApiError["code"]) =>
    new PmsApiError(status, code, "", "", status === 429, undefined, undefined, 3);
  it("are chosen from the error, in one place", () => {
    expect(exitCodeFor(new UsageError("x"))).toBe(exitCodes.usage.code);
    expect(exitCodeFor(refusal(400, "INVALID_URL"))).toBe(exitCodes.refused.code);
    expect(exitCodeFor(refusal(401, "AUTH_REQUIRED"))).toBe(exitCodes.refused.code);
    expect(exitCodeFor(refusal(402, "CREDIT_EXHAUSTED"))).toBe(exitCodes.outOfCredits.code);
    expect(exitCodeFor(refusal(402, "PLAN_LIMIT_REACHED"))).toBe(exitCodes.outOfCredits.code);
    expect(exitCodeFor(refusal(429, "QUOTA_EXCEEDED"))).toBe(exitCodes.outOfCredits.code);
    expect(exitCodeFor(refusal(429, "SCORING_RATE_LIMITED"))).toBe(exitCodes.rateLimited.code);
    expect(exitCodeFor(refusal(429, "ANON_RATE_LIMIT"))).toBe(exitCodes.rateLimited.code);
    expect(exitCodeFor(refusal(503, "SERVICE_UNAVAILABLE"))).toBe(exitCodes.unavailable.code);
    expect(exitCodeFor(new PmsJobFailedError("j", { code: "CRAWL_FAILED", message: "no pages" }, 400))).toBe(
      exitCodes.scoringFailed.code,
    );
    expect(exitCodeFor(new PmsNetworkError("down", false))).toBe(exitCodes.unavailable.code);
    expect(exitCodeFor(new PmsProtocolError("html", 502, undefined))).toBe(exitCodes.failure.code);
    expect(exitCodeFor(new Error("bug"))).toBe(exitCodes.failure.code);
    expect(new Set(Object.values(exitCodes).map(({ code }) => code)).size).toBe(Object.keys(exitCodes).length);
  });
});
