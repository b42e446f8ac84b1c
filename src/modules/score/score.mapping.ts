import { errorCatalogue, isErrorCode } from "../../errors.js";
import type { ScoreJob } from "./score-job.entity.js";
import type { ScoreProgress } from "./score-progress.js";
import type { ResultCore, ResultDetails, ScoreResultView } from "./score-result.view.js";
import {
  ConfidenceLevel,
  FrameworkKind,
  JobStatusEnum,
  ScoreKindEnum,
  ScoreModeKind,
  type ScoreJobType,
  type ScoreProgressType,
  type ScoreResultType,
} from "./score.types.js";

/** Stored views → GraphQL objects. The shapes differ (enums, nullables), so they are kept apart. */
export function toGraphQLResult(view: ResultCore | ScoreResultView): ScoreResultType {
  return {
    id: view.id,
    url: view.url,
    companyName: view.companyName,
    totalScore: view.totalScore,
    stageName: view.stageName,
    dimensions: view.dimensions.map((dimension) => ({
      dimensionId: dimension.dimensionId,
      dimensionName: dimension.dimensionName,
      pillar: dimension.pillar,
      score: dimension.score,
      stageName: dimension.stageName,
      evidence: dimension.evidence,
      evidenceItems: dimension.evidenceItems.map((item) => ({
        url: item.url ?? null,
        text: item.text,
        selfReported: item.selfReported === true,
      })),
      confidence: ConfidenceLevel[dimension.confidence],
      reasoning: dimension.reasoning,
    })),
    strengths: [...view.strengths],
    gaps: [...view.gaps],
    createdAt: view.createdAt,
    framework: FrameworkKind[view.framework],
    frameworkVersion: view.frameworkVersion,
    mode: ScoreModeKind[view.mode],
    ...("crawledPages" in view ? { details: toGraphQLDetails(view) } : {}),
    productId: view.productId,
    held: view.held,
    expiresAt: view.expiresAt,
  };
}

export function toGraphQLProgress(progress: ScoreProgress): ScoreProgressType {
  const shown = { ...progress, status: JobStatusEnum[progress.status] } as ScoreProgressType;
  // Progress recorded before actions were kept: the catalogue's advice for the code.
  if (progress.status === "failed")
    shown.error = { ...progress.error, action: progress.error.action ?? actionFor(progress.error.code) };
  return shown;
}

/** The advice a failed job came with, or the catalogue's for its code. */
export function jobError(job: Pick<ScoreJob, "errorCode" | "errorMessage" | "errorAction">): {
  code: string;
  message: string;
  action: string;
} {
  const code = job.errorCode ?? "INTERNAL";
  return { code, message: job.errorMessage ?? "", action: job.errorAction ?? actionFor(code) };
}

const actionFor = (code: string): string =>
  isErrorCode(code) ? errorCatalogue[code].action : errorCatalogue.INTERNAL.action;

export function toGraphQLJob(job: ScoreJob): ScoreJobType {
  return {
    id: job.id,
    kind: ScoreKindEnum[job.kind],
    status: JobStatusEnum[job.status],
    progress: job.progress ? toGraphQLProgress(job.progress) : null,
    resultId: job.resultId,
    error: job.errorCode ? jobError(job) : null,
    createdAt: job.createdAt,
  };
}

export function toGraphQLDetails(details: ResultDetails): NonNullable<ScoreResultType["details"]> {
  return {
    crawledPages: [...details.crawledPages],
    crossDimensionNotes: details.crossDimensionNotes,
    antiPatternsDetected: [...details.antiPatternsDetected],
    crawlStats: {
      pagesAnalyzed: details.crawlStats.pagesAnalyzed,
      contentLength: details.crawlStats.contentLength,
      pagesPlanned: details.crawlStats.pagesPlanned,
      durationMs: details.crawlStats.durationMs,
      partial: details.crawlStats.partial,
      // Results stored before these were recorded read as nothing skipped.
      skippedByRobots: details.crawlStats.skippedByRobots ?? 0,
      skippedByRobotsUrls: [...(details.crawlStats.skippedByRobotsUrls ?? [])],
      // Results from before rendering read every page as HTML and met no wall.
      pagesRendered: details.crawlStats.pagesRendered ?? 0,
      pagesBlocked: details.crawlStats.pagesBlocked ?? 0,
    },
  };
}
