import { PmsApiError, PmsJobFailedError, PmsNetworkError } from "../client/index.js";

/**
 * The CLI's exit codes: the one place they are decided, and what `pms --help`
 * prints. A script can tell "try later" (5, 7) from "fix something" (2, 3) from
 * "pay" (4) from "the site could not be scored" (6) from "scored, but below
 * the bar the CI gate set" (8).
 */
export const exitCodes = {
  ok: { code: 0, meaning: "done" },
  failure: { code: 1, meaning: "anything else (an answer outside the contract, a bug)" },
  usage: {
    code: 2,
    meaning:
      "usage error: unknown command or option, missing argument, bad PMS_API_URL, no PMS_API_KEY where one is needed",
  },
  refused: {
    code: 3,
    meaning: "the API refused the request (invalid address or field, bad or missing key, not found, forbidden)",
  },
  outOfCredits: {
    code: 4,
    meaning: "out of credits or past a plan limit (CREDIT_EXHAUSTED, PLAN_LIMIT_REACHED, QUOTA_EXCEEDED)",
  },
  rateLimited: { code: 5, meaning: "still rate limited after the retries (SCORING_RATE_LIMITED, ANON_RATE_LIMIT)" },
  scoringFailed: {
    code: 6,
    meaning: "the job ran and failed (the site could not be crawled or scored; credits refunded)",
  },
  unavailable: { code: 7, meaning: "the service could not be reached or answered 5xx: try again later" },
  belowThreshold: { code: 8, meaning: "scored, but below a threshold you set (--min-score, --min-pillar)" },
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]["code"];

/** A mistake in the command line or the environment: nothing was sent. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const quotaCodes = new Set<string>(["CREDIT_EXHAUSTED", "PLAN_LIMIT_REACHED", "QUOTA_EXCEEDED"]);

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return exitCodes.usage.code;
  if (error instanceof PmsJobFailedError) return exitCodes.scoringFailed.code;
  if (error instanceof PmsNetworkError) return exitCodes.unavailable.code;
  if (error instanceof PmsApiError) {
    if (quotaCodes.has(error.code)) return exitCodes.outOfCredits.code;
    if (error.status === 429) return exitCodes.rateLimited.code;
    if (error.status >= 500) return exitCodes.unavailable.code;
    return exitCodes.refused.code;
  }
  return exitCodes.failure.code;
}
