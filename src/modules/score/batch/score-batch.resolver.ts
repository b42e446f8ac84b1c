import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver, Root, Subscription } from "type-graphql";
import { AppError } from "../../../errors.js";
import { meteredCaller, type GraphQLContext } from "../../../graphql/context.js";
import { CurrentViewer, currentViewer } from "../../../graphql/decorators/current-member.js";
import { IdentifyCaller } from "../../../graphql/decorators/identify-caller.js";
import type { Viewer } from "../../accounts/viewer.js";
import type { BatchView } from "./batch-view.js";
import type { ScoreBatchService } from "./score-batch.service.js";
import {
  ScoreBatchInput,
  ScoreBatchItemStatusEnum,
  ScoreBatchStatusEnum,
  ScoreBatchType,
} from "./score-batch.types.js";

@Resolver(() => ScoreBatchType)
export class ScoreBatchResolver {
  constructor(private readonly batches: ScoreBatchService) {}

  // Not @Authorized (its check would charge the API call up front): the service requires a member
  // and charges the one API call with the batch, so a refused batch costs nothing.
  @IdentifyCaller()
  @Mutation(() => ScoreBatchType, {
    name: "scoreBatch",
    description:
      "Scores a list of 1 to 100 addresses (full maturity scores) and answers at once; Business and Enterprise plans, session or API key. Refused addresses are listed with their error and cost nothing; duplicates are scored once; the distinct rest are charged together, or not at all. Honours Idempotency-Key. REST: POST /api/score/batch.",
  })
  async startBatch(
    @Arg("input", () => ScoreBatchInput, { description: "The addresses and optional context." }) input: ScoreBatchInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ScoreBatchType> {
    const caller = {
      ...(await meteredCaller(context)),
      clientIp: context.clientIp,
      requestId: context.requestId,
      idempotencyKey: context.idempotencyKey,
    };
    return toGraphQLBatch(await this.batches.start(caller, { urls: input.urls, context: input.context }));
  }

  @Authorized()
  @Query(() => ScoreBatchType, {
    name: "scoreBatch",
    description:
      "A batch of the caller's account, with its items' status and results. REST: GET /api/score/batches/{id}.",
  })
  async batch(
    @Arg("id", () => ID, { description: "The batch id." }) id: string,
    @CurrentViewer() viewer: Viewer,
  ): Promise<ScoreBatchType> {
    return toGraphQLBatch(await this.batches.batchFor(viewer, id));
  }

  @Subscription(() => ScoreBatchType, {
    description:
      "A batch over graphql-ws: as it is now, then again each time one of its items changes status; the stream ends once the batch is completed. Only members of its account may follow it.",
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      if (!ctx.streams?.batchProgress)
        throw new AppError("SERVICE_UNAVAILABLE", "Subscriptions are served over graphql-ws at /graphql.");
      return ctx.streams.batchProgress(await currentViewer({ context: ctx }), String((args as { id: string }).id));
    },
  })
  batchProgress(
    @Root() batch: BatchView,
    @Arg("id", () => ID, { description: "The batch to follow." }) _id: string,
  ): ScoreBatchType {
    return toGraphQLBatch(batch);
  }
}

function toGraphQLBatch(view: BatchView): ScoreBatchType {
  return {
    ...view,
    status: view.status as ScoreBatchStatusEnum,
    counts: { ...view.counts },
    items: view.items.map((item) => ({
      ...item,
      status: item.status as ScoreBatchItemStatusEnum,
      error: item.error ? { ...item.error } : null,
    })),
  };
}
