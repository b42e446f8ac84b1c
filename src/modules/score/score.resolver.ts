import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  ID,
  Mutation,
  Query,
  Resolver,
  Root,
  Subscription,
} from "type-graphql";
import { AppError, isErrorCode } from "../../errors.js";
import { loaderOf, meteredCaller, type GraphQLContext } from "../../graphql/context.js";
import { CurrentMember, CurrentViewer, currentViewer, type Member } from "../../graphql/decorators/current-member.js";
import { IdentifyCaller } from "../../graphql/decorators/identify-caller.js";
import { PageArgs } from "../../graphql/page.args.js";
import type { Viewer } from "../accounts/viewer.js";
import type { ScoreResultsService } from "./score-results.service.js";
import type { ScoreJob, ScoreKind } from "./score-job.entity.js";
import type { ScoreProgress } from "./score-progress.js";
import type { ScoreService } from "./score.service.js";
import {
  CrawlStatsType,
  LinkScoreInput,
  ScoreHistory,
  ScoreInput,
  ScoreJobType,
  ScorePayload,
  ScoreProgressType,
  ScoreResultType,
  StartedScore,
  StartScoreInput,
} from "./score.types.js";
import { toGraphQLDetails, toGraphQLJob, toGraphQLProgress, toGraphQLResult } from "./score.mapping.js";
import { ScoreComparisonType, toGraphQLComparison } from "./compare.types.js";

@Resolver(() => ScoreResultType)
export class ScoreResolver {
  constructor(
    private readonly service: ScoreService,
    private readonly results: ScoreResultsService,
    /** How long a scoring mutation (and its REST route) waits for the result before answering the job instead (SCORE_WAIT_SECONDS). */
    private readonly waitMs: number,
  ) {}

  @IdentifyCaller()
  @Mutation(() => ScorePayload, {
    description:
      "Scores an address with the maturity framework (full crawl) and waits for the result (SCORE_WAIT_SECONDS, 120 by default; else answers the job). Session, API key, or anonymous within the anonymous cap. Honours Idempotency-Key. REST: POST /api/score.",
  })
  async score(
    @Arg("input", () => ScoreInput, { description: "The address and optional context." }) input: ScoreInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ScorePayload> {
    return this.run("score", input, context);
  }

  @IdentifyCaller()
  @Mutation(() => ScorePayload, {
    description:
      "Quick score: the home page and at most 4 linked pages, maturity framework; waits like score. REST: POST /api/score/quick.",
  })
  async quickScore(
    @Arg("input", () => ScoreInput, { description: "The address and optional context." }) input: ScoreInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ScorePayload> {
    return this.run("quick", input, context);
  }

  @IdentifyCaller()
  @Mutation(() => ScorePayload, {
    description:
      "Scores with the product framework and attaches the result to the caller's product for that address (created if absent; counts against the plan's products). Session or API key. REST: POST /api/score/product.",
  })
  async productScore(
    @Arg("input", () => ScoreInput, { description: "The address and optional context." }) input: ScoreInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ScorePayload> {
    return this.run("product", input, context);
  }

  @IdentifyCaller()
  @Mutation(() => StartedScore, {
    description:
      "Starts a scoring job and answers at once; follow it with scoreProgress or scoreJob. Charged like the waiting operations.",
  })
  async startScore(
    @Arg("input", () => StartScoreInput, { description: "What to score and how." }) input: StartScoreInput,
    @Ctx() context: GraphQLContext,
  ): Promise<StartedScore> {
    const started = await this.service.start(await callerOf(context), {
      kind: input.kind,
      url: input.url,
      context: input.context,
    });
    return { job: toGraphQLJob(started.job), claimToken: started.claimToken };
  }

  @Query(() => ScoreResultType, { description: "A result by id, for anyone (share links). REST: GET /api/score/{id}." })
  async scoreResult(@Arg("id", () => ID, { description: "The result id." }) id: string): Promise<ScoreResultType> {
    return toGraphQLResult(await this.results.getPublic(id));
  }

  @Authorized()
  @Query(() => ScoreHistory, { description: "The caller's results, newest first. REST: GET /api/scores?limit&cursor." })
  async scores(@Args(() => PageArgs) page: PageArgs, @CurrentMember() member: Member): Promise<ScoreHistory> {
    const { results, nextCursor } = await this.results.history(member.accountId, page.size, page.cursor ?? undefined);
    return { results: results.map(toGraphQLResult), nextCursor };
  }

  @Query(() => ScoreJobType, { description: "A scoring job of the caller (or of the anonymous requester's address)." })
  async scoreJob(
    @Arg("id", () => ID, { description: "The job id." }) id: string,
    @CurrentViewer() viewer: Viewer,
    @Ctx() context: GraphQLContext,
  ): Promise<ScoreJobType> {
    return toGraphQLJob(await this.service.jobFor(viewer, context.clientIp, id));
  }

  @Authorized()
  @Mutation(() => ScoreResultType, {
    description:
      "Moves a held anonymous result into the caller's history with its one-time claim token. REST: POST /api/score/link.",
  })
  async linkScore(
    @Arg("input", () => LinkScoreInput, { description: "The result and its claim token." }) input: LinkScoreInput,
    @CurrentMember() member: Member,
  ): Promise<ScoreResultType> {
    return toGraphQLResult(await this.results.link(member.accountId, input.resultId, input.claimToken));
  }

  @Subscription(() => ScoreProgressType, {
    description:
      "A job's progress over graphql-ws: its current step, then queued → crawling (page n of m) → scoring (dimension k of 27) → completed | failed, then the stream ends. Only the job's account (or its anonymous requester's address) may follow it.",
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      if (!ctx.streams)
        throw new AppError("SERVICE_UNAVAILABLE", "Subscriptions are served over graphql-ws at /graphql.");
      return ctx.streams.scoreProgress(
        await currentViewer({ context: ctx }),
        ctx.clientIp,
        String((args as { jobId: string }).jobId),
      );
    },
  })
  scoreProgress(
    @Root() progress: ScoreProgress,
    @Arg("jobId", () => ID, { description: "The job to follow." }) _jobId: string,
  ): ScoreProgressType {
    return toGraphQLProgress(progress);
  }

  @FieldResolver(() => [String], { description: "Pages that were crawled (product view)." })
  async crawledPages(@Root() result: ScoreResultType, @Ctx() context: GraphQLContext): Promise<string[]> {
    return (await this.details(result, context)).crawledPages;
  }

  @FieldResolver(() => String, { description: "Notes across dimensions, gates that applied (product view)." })
  async crossDimensionNotes(@Root() result: ScoreResultType, @Ctx() context: GraphQLContext): Promise<string> {
    return (await this.details(result, context)).crossDimensionNotes;
  }

  @FieldResolver(() => [String], { description: "Anti-patterns found (product view)." })
  async antiPatternsDetected(@Root() result: ScoreResultType, @Ctx() context: GraphQLContext): Promise<string[]> {
    return (await this.details(result, context)).antiPatternsDetected;
  }

  @FieldResolver(() => CrawlStatsType, { description: "What the crawl read (product view)." })
  async crawlStats(@Root() result: ScoreResultType, @Ctx() context: GraphQLContext): Promise<CrawlStatsType> {
    return (await this.details(result, context)).crawlStats;
  }

  @FieldResolver(() => ScoreComparisonType, {
    description:
      "The change from the result named by id (the baseline) to this one: every delta is this minus that. Public like scoreResult; an id scoreResult would not find is NOT_FOUND. Two frameworks are refused; two framework versions are refused unless allowVersionMismatch. REST: GET /api/score/{id}/compare/{otherId}.",
  })
  async compareTo(
    @Root() result: ScoreResultType,
    @Arg("id", () => ID, { description: "The baseline result (usually the earlier one)." }) id: string,
    @Arg("allowVersionMismatch", () => Boolean, {
      nullable: true,
      defaultValue: false,
      description:
        "Compare results of two framework versions anyway: only the dimensions present and applicable in both get a delta.",
    })
    allowVersionMismatch: boolean | null,
  ): Promise<ScoreComparisonType> {
    return toGraphQLComparison(await this.results.compare(result.id, id, allowVersionMismatch === true));
  }

  /** The product-view fields: carried by results read whole, else batched per request. */
  private async details(
    result: ScoreResultType,
    context: GraphQLContext,
  ): Promise<NonNullable<ScoreResultType["details"]>> {
    if (result.details) return result.details;
    const details = await loaderOf(context, "resultDetails", () => this.results.detailsLoader()).load(result.id);
    if (!details) throw new AppError("NOT_FOUND", "No such score result.");
    return toGraphQLDetails(details);
  }

  /**
   * Once `start` answered, the job exists and is charged: from here on, trouble
   * (Redis or Postgres going away while we wait or read the result) answers the job
   * to follow, never an error inviting a retry that would start and charge another.
   */
  private async run(kind: ScoreKind, input: ScoreInput, context: GraphQLContext): Promise<ScorePayload> {
    const started = await this.service.start(await callerOf(context), { kind, url: input.url, context: input.context });
    let job: ScoreJob;
    try {
      job = await this.service.waitForEnd(started.job.id, this.waitMs);
    } catch (error) {
      context.log.warn(
        { err: error, jobId: started.job.id },
        "lost sight of a charged job while waiting; answering the job to follow",
      );
      return { result: null, job: toGraphQLJob(started.job), claimToken: started.claimToken };
    }
    if (job.status === "failed") {
      // A failed job answers its error (the same on a replay); its credits were refunded.
      throw new AppError(
        isErrorCode(job.errorCode) ? job.errorCode : "INTERNAL",
        job.errorMessage ?? "Scoring failed.",
        job.errorAction ? { action: job.errorAction } : {},
      );
    }
    let result: ScoreResultType | null = null;
    if (job.status === "completed" && job.resultId) {
      try {
        result = toGraphQLResult(await this.results.getPublic(job.resultId));
      } catch (error) {
        context.log.warn(
          { err: error, jobId: job.id },
          "could not read a finished job's result; answering the job to follow",
        );
      }
    }
    return { result, job: toGraphQLJob(job), claimToken: started.claimToken };
  }
}

async function callerOf(context: GraphQLContext) {
  return {
    ...(await meteredCaller(context)),
    clientIp: context.clientIp,
    requestId: context.requestId,
    idempotencyKey: context.idempotencyKey,
  };
}
