import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { jobStatuses } from "./score-progress.js";
import { MaxCharacters } from "../../graphql/decorators/max-characters.js";
import { MAX_CONTEXT_LENGTH, MAX_URL_LENGTH } from "../../limits.js";

export enum ConfidenceLevel {
  high = "high",
  medium = "medium",
  low = "low",
}
registerEnumType(ConfidenceLevel, {
  name: "Confidence",
  description: "How much of what evidences a dimension the site showed.",
  valuesConfig: {
    high: { description: "Several concrete signals observed." },
    medium: { description: "Some signals observed." },
    low: { description: "Little or nothing observable: the score sits near the framework's prior." },
  },
});

export enum FrameworkKind {
  maturity = "maturity",
  product = "product",
}
registerEnumType(FrameworkKind, {
  name: "Framework",
  description: "The rubric a result was scored with.",
  valuesConfig: {
    maturity: { description: "Company maturity (POST /api/score, /quick)." },
    product: { description: "Product assessment, weighted to the product pillars (POST /api/score/product)." },
  },
});

export enum ScoreModeKind {
  full = "full",
  quick = "quick",
}
registerEnumType(ScoreModeKind, {
  name: "ScoreMode",
  description: "How much of the site was crawled.",
  valuesConfig: {
    full: { description: "Up to CRAWL_MAX_PAGES pages (25 by default)." },
    quick: { description: "The home page and at most 4 linked pages." },
  },
});

export enum ScoreKindEnum {
  score = "score",
  quick = "quick",
  product = "product",
}
registerEnumType(ScoreKindEnum, {
  name: "ScoreKind",
  description: "Which scoring operation a job runs.",
  valuesConfig: {
    score: { description: "Full crawl, maturity framework (POST /api/score)." },
    quick: { description: "Quick crawl, maturity framework (POST /api/score/quick)." },
    product: {
      description: "Full crawl, product framework, attached to the caller's product (POST /api/score/product).",
    },
  },
});

export enum JobStatusEnum {
  queued = "queued",
  crawling = "crawling",
  scoring = "scoring",
  completed = "completed",
  failed = "failed",
}
registerEnumType(JobStatusEnum, {
  name: "JobStatus",
  description: "Where a scoring job is.",
  valuesConfig: Object.fromEntries(
    jobStatuses.map((status) => [
      status,
      {
        description: {
          queued: "Waiting for a worker.",
          crawling: "Reading the site (page n of m).",
          scoring: "Scoring the dimensions (k of 27).",
          completed: "Done: the result is stored.",
          failed: "Stopped with an error; any credits were refunded.",
        }[status],
      },
    ]),
  ),
});

@ObjectType({ description: "A fact a score rests on." })
export class EvidenceItem {
  @Field(() => String, {
    nullable: true,
    description: "The page it was seen on; null for self-reported context and for absences.",
  })
  url: string | null;

  @Field(() => String, { description: "The quoted text or the observed fact." })
  text: string;

  @Field(() => Boolean, { description: "True when it comes from the caller's context, not from the site." })
  selfReported: boolean;
}

@ObjectType("DimensionResult", { description: "One of the 27 dimensions of a result." })
export class DimensionResultType {
  @Field(() => String, { description: "Identifier, for example market_intelligence." })
  dimensionId: string;

  @Field(() => String, { description: "Display name, for example Market Intelligence." })
  dimensionName: string;

  @Field(() => String, { description: "The pillar it belongs to, for example market_strategy." })
  pillar: string;

  @Field(() => Int, { description: "0–100." })
  score: number;

  @Field(() => String, { description: "Foundation, Developing, Scaling, Compounding or Leading." })
  stageName: string;

  @Field(() => String, { description: "The evidence as one readable text, best first." })
  evidence: string;

  @Field(() => [EvidenceItem], { description: "The evidence item by item, with page addresses." })
  evidenceItems: EvidenceItem[];

  @Field(() => ConfidenceLevel, { description: "high, medium or low." })
  confidence: ConfidenceLevel;

  @Field(() => String, { description: "Why this score: what raised it, what lowered it, what would raise it." })
  reasoning: string;
}

@ObjectType({ description: "What the crawl read." })
export class CrawlStatsType {
  @Field(() => Int, { description: "Pages analysed." })
  pagesAnalyzed: number;

  @Field(() => Int, { description: "Characters of page text analysed (boilerplate counted once)." })
  contentLength: number;

  @Field(() => Int, { description: "Pages chosen for the crawl." })
  pagesPlanned: number;

  @Field(() => Int, { description: "How long the crawl took, in milliseconds." })
  durationMs: number;

  @Field(() => Boolean, { description: "True when the crawl's time budget ended before its plan did." })
  partial: boolean;

  @Field(() => Int, {
    description: "Pages of the site that were found but not read because its robots.txt disallows them.",
  })
  skippedByRobots: number;

  @Field(() => [String], { description: "The first of those pages (at most 20)." })
  skippedByRobotsUrls: string[];

  @Field(() => Int, {
    description:
      "Pages read in headless Chromium after their scripts ran, because their HTML was an empty shell (the rest were read as HTML).",
  })
  pagesRendered: number;

  @Field(() => Int, {
    description:
      "Pages a bot wall (a CDN's browser check or a captcha) answered for instead of the page; they were not read.",
  })
  pagesBlocked: number;
}

@ObjectType("ScoreResult", {
  description: "A stored score: immutable once completed. Readable by anyone with its id (share links).",
})
export class ScoreResultType {
  @Field(() => ID, { description: "Result identifier (UUID)." })
  id: string;

  @Field(() => String, { description: "The address that was scored (normalized)." })
  url: string;

  @Field(() => String, { description: "Name detected for the product." })
  companyName: string;

  @Field(() => Int, { description: "0–100: the confidence-weighted mean of the 27 dimensions." })
  totalScore: number;

  @Field(() => String, { description: "The overall stage (possibly capped by a gate named in crossDimensionNotes)." })
  stageName: string;

  @Field(() => [DimensionResultType], { description: "The 27 dimensions, pillar by pillar." })
  dimensions: DimensionResultType[];

  @Field(() => [String], {
    description:
      "Up to 3 strongest dimension ids: high or medium confidence, applicable, scoring at least 50; never a gap. A thin site may have fewer, or none.",
  })
  strengths: string[];

  @Field(() => [String], { description: "Up to 3 weakest applicable dimension ids; never a strength." })
  gaps: string[];

  @Field(() => GraphQLISODateTime, { description: "When the result was stored." })
  createdAt: Date;

  @Field(() => FrameworkKind, { description: "The rubric used." })
  framework: FrameworkKind;

  @Field(() => String, { description: "Semver of the rubric: scores of different versions are not compared." })
  frameworkVersion: string;

  @Field(() => ScoreModeKind, { description: "full or quick." })
  mode: ScoreModeKind;

  // crawledPages, crossDimensionNotes, antiPatternsDetected and crawlStats are field
  // resolvers (ScoreResolver): read only when a query selects them.
  /** The product-view fields, when the result was read with them. */
  details?: {
    crawledPages: string[];
    crossDimensionNotes: string;
    antiPatternsDetected: string[];
    crawlStats: CrawlStatsType;
  };

  @Field(() => ID, {
    nullable: true,
    description: "The product the result belongs to (product view); null for plain scores.",
  })
  productId: string | null;

  @Field(() => Boolean, {
    description:
      "True while an anonymous result waits to be linked to an account (linkScore); unlinked, it is deleted 30 days after scoring.",
  })
  held: boolean;

  @Field(() => GraphQLISODateTime, {
    nullable: true,
    description:
      "A held result: when it is deleted unless linked to an account (linkScore) before then; null once it belongs to an account.",
  })
  expiresAt: Date | null;
}

@ObjectType({ description: "Why a job failed." })
export class JobError {
  @Field(() => String, { description: "The error code, as in the error catalogue (CRAWL_FAILED, INVALID_URL …)." })
  code: string;

  @Field(() => String, { description: "What happened." })
  message: string;

  @Field(() => String, {
    description:
      "What to do about it (the error catalogue's advice, or advice of its own: install a browser, ask a site to let the crawler through …).",
  })
  action: string;
}

@ObjectType("ScoreProgress", { description: "One step of a scoring job, as scoreProgress streams it." })
export class ScoreProgressType {
  @Field(() => ID, { description: "The job." })
  jobId: string;

  @Field(() => JobStatusEnum, { description: "Where the job is." })
  status: JobStatusEnum;

  @Field(() => Int, { nullable: true, description: "crawling: the page just read (1-based)." })
  page?: number | null;

  @Field(() => Int, { nullable: true, description: "crawling: pages planned so far." })
  pages?: number | null;

  @Field(() => String, { nullable: true, description: "crawling: the page just read." })
  url?: string | null;

  @Field(() => Int, { nullable: true, description: "scoring: the dimension just scored (1-based)." })
  dimension?: number | null;

  @Field(() => Int, { nullable: true, description: "scoring: how many dimensions there are (27)." })
  dimensions?: number | null;

  @Field(() => String, { nullable: true, description: "scoring: the id of the dimension just scored." })
  dimensionId?: string | null;

  @Field(() => ID, { nullable: true, description: "completed: the stored result." })
  resultId?: string | null;

  @Field(() => JobError, { nullable: true, description: "failed: why." })
  error?: JobError | null;
}

@ObjectType("ScoreJob", {
  description: "A scoring job. Visible to members of its account, or to its anonymous requester's address.",
})
export class ScoreJobType {
  @Field(() => ID, { description: "The job id, to follow with scoreProgress." })
  id: string;

  @Field(() => ScoreKindEnum, { description: "Which operation it runs." })
  kind: ScoreKindEnum;

  @Field(() => JobStatusEnum, { description: "Where it is." })
  status: JobStatusEnum;

  @Field(() => ScoreProgressType, { nullable: true, description: "Its latest progress step." })
  progress: ScoreProgressType | null;

  @Field(() => ID, { nullable: true, description: "The stored result, once completed." })
  resultId: string | null;

  @Field(() => JobError, { nullable: true, description: "Why it failed." })
  error: JobError | null;

  @Field(() => GraphQLISODateTime, { description: "When it was started." })
  createdAt: Date;
}

@ObjectType({
  description: "The answer of a scoring mutation: the result when it finished within the wait, else the job to follow.",
})
export class ScorePayload {
  @Field(() => ScoreResultType, {
    nullable: true,
    description: "The result; null when the job outlived the wait (follow the job).",
  })
  result: ScoreResultType | null;

  @Field(() => ScoreJobType, { description: "The job that produced it." })
  job: ScoreJobType;

  @Field(() => String, {
    nullable: true,
    description: "Anonymous callers only: the one-time token that links the held result to an account (linkScore).",
  })
  claimToken: string | null;
}

@ObjectType({ description: "A started job (startScore)." })
export class StartedScore {
  @Field(() => ScoreJobType, { description: "The job, to follow with scoreProgress." })
  job: ScoreJobType;

  @Field(() => String, {
    nullable: true,
    description: "Anonymous callers only: the one-time claim token of the result to come.",
  })
  claimToken: string | null;
}

@InputType({ description: "What to score." })
export class ScoreInput {
  @Field(() => String, { description: "The product's public web address (http or https, at most 2,048 characters)." })
  @MaxCharacters(MAX_URL_LENGTH)
  url: string;

  @Field(() => String, {
    nullable: true,
    description:
      "Optional free text about the product (at most 5,000 characters); it informs, never outweighs, the site.",
  })
  @MaxCharacters(MAX_CONTEXT_LENGTH)
  context?: string | null;
}

@InputType({ description: "What to score, and how." })
export class StartScoreInput extends ScoreInput {
  @Field(() => ScoreKindEnum, {
    defaultValue: ScoreKindEnum.score,
    description: "score (the full maturity score, the default), quick or product.",
  })
  kind: ScoreKindEnum;
}

@InputType({ description: "A held anonymous result and its claim token." })
export class LinkScoreInput {
  @Field(() => ID, { description: "The held result's id." })
  resultId: string;

  @Field(() => String, { description: "The claimToken the anonymous score answered." })
  claimToken: string;
}

@ObjectType({ description: "The caller's results, newest first. REST: GET /api/scores." })
export class ScoreHistory {
  @Field(() => [ScoreResultType], { description: "A page of results." })
  results: ScoreResultType[];

  @Field(() => String, { nullable: true, description: "Pass as cursor for the next page; null on the last page." })
  nextCursor: string | null;
}
