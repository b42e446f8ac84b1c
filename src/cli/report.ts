import type {
  CreatedWebhook,
  Health,
  ScoreComparison,
  Percentiles,
  ScoreHistory,
  ScoreResult,
  Usage,
  Webhook,
} from "../client/index.js";
import { bar } from "./progress-view.js";

/** Readable reports of the API's answers, for people (the `--json` flag prints the answers themselves). */

export function scoreReport(
  result: ScoreResult,
  options: { shareUrl: string; claimToken?: string | null | undefined; percentiles?: Percentiles | undefined },
): string {
  const lines: string[] = [];
  lines.push(`${result.companyName} — ${result.url}`);
  lines.push(`Total ${result.totalScore}/100 · ${result.stageName}`);
  const line = percentileLine(options.percentiles);
  if (line) lines.push(line);
  lines.push(`${result.framework} framework ${result.frameworkVersion} · ${result.mode} crawl · ${result.createdAt}`);
  const nameWidth = Math.max(...result.dimensions.map((dimension) => dimension.dimensionName.length));
  let pillar = "";
  for (const dimension of result.dimensions) {
    if (dimension.pillar !== pillar) {
      pillar = dimension.pillar;
      lines.push("", `  ${pillar.replace(/_/g, " ")}`);
    }
    lines.push(
      `    ${dimension.dimensionName.padEnd(nameWidth)}  ${bar(dimension.score, 100, 10)} ${String(dimension.score).padStart(3)}  ${dimension.stageName.padEnd(11)} ${dimension.confidence}`,
    );
  }
  const named = (ids: readonly string[]) =>
    ids
      .map((id) => result.dimensions.find((dimension) => dimension.dimensionId === id))
      .filter((dimension) => dimension !== undefined)
      .map((dimension) => `${dimension.dimensionName} (${dimension.score})`)
      .join(", ") || "—";
  lines.push("", `Strongest: ${named(result.strengths)}`, `Weakest:   ${named(result.gaps)}`);
  lines.push(`Share:     ${options.shareUrl}`);
  if (result.held && options.claimToken) {
    lines.push(
      `Held for 30 days as an anonymous result. Link it to an account with its claim token: ${options.claimToken}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** "Percentile: top 15% of 42 sites …" when the population is large enough; nothing otherwise (--json has the reason). */
export function percentileLine(percentiles: Percentiles | undefined): string | undefined {
  if (!percentiles?.available || !percentiles.total) return undefined;
  const { total, population } = percentiles;
  return `Percentile: top ${total.topPercent}% of ${population} scored sites (the total beats ${total.percentile}% of them, ties counting half)`;
}

export function historyReport(history: ScoreHistory): string {
  if (history.results.length === 0) return "No results yet.\n";
  const lines = history.results.map(
    (result) =>
      `${result.createdAt.slice(0, 16).replace("T", " ")}  ${String(result.totalScore).padStart(3)}  ${result.stageName.padEnd(11)} ${result.mode.padEnd(5)}  ${result.id}  ${result.url}`,
  );
  if (history.nextCursor) lines.push(`More: pms history --cursor ${history.nextCursor}`);
  return `${lines.join("\n")}\n`;
}

export function usageReport(usage: Usage): string {
  const of = (used: number, limit: number | null) => (limit === null ? `${used} (unlimited)` : `${used} of ${limit}`);
  const { credits } = usage;
  return [
    `Plan:          ${usage.plan}`,
    `Cycle:         ${usage.period.start.slice(0, 10)} to ${usage.period.end.slice(0, 10)}`,
    `Credits:       ${of(credits.used, credits.limit)} used${credits.remaining === null ? "" : `, ${credits.remaining} left`}${credits.packBalance > 0 ? `, ${credits.packBalance} in packs` : ""}`,
    `Scores:        ${of(usage.scores.used, usage.scores.limit)}`,
    `Chat messages: ${of(usage.chatMessages.used, usage.chatMessages.limit)}`,
    `API calls:     ${of(usage.apiCalls.used, usage.apiCalls.limit)}`,
    `Products:      ${of(usage.products.used, usage.products.limit)}`,
    `Seats:         ${of(usage.seats.used, usage.seats.limit)}`,
    "",
  ].join("\n");
}

export function webhooksReport(webhooks: readonly Webhook[]): string {
  if (webhooks.length === 0) return "No webhooks.\n";
  return `${webhooks
    .map(
      (webhook) =>
        `${webhook.id}  ${webhook.enabled ? "enabled " : "disabled"}  ${webhook.url}  ${webhook.events.join(",")}${webhook.disabledReason ? `  (${webhook.disabledReason})` : ""}`,
    )
    .join("\n")}\n`;
}

export function createdWebhookReport(webhook: CreatedWebhook): string {
  return [
    `Created webhook ${webhook.id}`,
    `  url:    ${webhook.url}`,
    `  events: ${webhook.events.join(", ")}`,
    `  secret: ${webhook.secret}`,
    "Store the secret now: it is shown this once (verify deliveries with it).",
    "",
  ].join("\n");
}

export function healthReport(health: Health): string {
  const checks = Object.entries(health.checks).map(
    ([name, check]) => `  ${name.padEnd(12)} ${check.status}${check.detail ? `  ${check.detail}` : ""}`,
  );
  return [`Service ${health.status} (version ${health.version})`, ...checks, ""].join("\n");
}

/** How many moved dimensions `pms compare` lists (--json answers all 27). */
export const COMPARE_TOP = 10;

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

export function comparisonReport(comparison: ScoreComparison, options: { shareUrl: string }): string {
  const { from, to } = comparison;
  const side = (result: typeof from) =>
    `${result.id}  ${result.createdAt.slice(0, 16).replace("T", " ")}  ${result.framework} ${result.frameworkVersion} · ${result.mode}`;
  const lines = [
    `${to.companyName} — ${to.url}`,
    `Total ${from.totalScore} → ${to.totalScore} (${signed(comparison.totalDelta)}) · ${
      comparison.stageChange
        ? `${comparison.stageChange.from} → ${comparison.stageChange.to}`
        : `${to.stageName} (no stage change)`
    }`,
    `From ${side(from)}`,
    `To   ${side(to)}`,
  ];
  if (!comparison.comparable)
    lines.push(
      `Framework versions differ: ${comparison.incomparableDimensions.length} dimension(s) not comparable (${comparison.incomparableDimensions.join(", ") || "none"}).`,
    );
  const moved = comparison.dimensions.filter((d) => d.delta !== null && d.delta !== 0).slice(0, COMPARE_TOP);
  if (moved.length === 0) lines.push("", "No dimension moved.");
  else {
    const width = Math.max(...moved.map((d) => d.dimensionName.length));
    lines.push("", "Most moved:");
    for (const d of moved)
      lines.push(
        `  ${signed(d.delta!).padStart(4)}  ${d.dimensionName.padEnd(width)}  ${String(d.fromScore).padStart(3)} → ${String(d.toScore).padStart(3)}${d.confidenceChanged ? `  confidence ${d.fromConfidence} → ${d.toConfidence}` : ""}`,
      );
  }
  lines.push(
    "",
    `Evidence: ${comparison.evidenceAdded.total} added, ${comparison.evidenceRemoved.total} removed`,
    `Share:    ${options.shareUrl}`,
  );
  return `${lines.join("\n")}\n`;
}
