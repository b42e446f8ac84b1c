import type { GraphQLSchema } from "graphql";
import type { Logger } from "pino";
import type { DomainEvents } from "../../src/events/domain-events.js";
import { ResolverContainer } from "../../src/graphql/container.js";
import { buildAppSchema } from "../../src/graphql/schema.js";
import { ScoreResolver } from "../../src/modules/score/score.resolver.js";
import type { ScoreResultsService } from "../../src/modules/score/score-results.service.js";
import type { ScoreService } from "../../src/modules/score/score.service.js";
import { restRoute } from "../routes.js";
import { FinalAnswers } from "./final-answers.js";
import type { ResultAnswerStore } from "./result-answer-store.js";

/**
 * `GET /api/score/{id}`'s answer is stored when the result completes (in the
 * process that completed it, before the completion is announced), so every
 * later read that misses memory is one primary-key read.
 */
export function storeFinalResultAnswers(deps: {
  schema: GraphQLSchema;
  store: ResultAnswerStore;
  events: DomainEvents;
  logger: Logger;
}): FinalAnswers {
  const answers = finalResultAnswers(deps.schema, deps.store, deps.logger);
  deps.events.on("score.completed", async (event) => {
    await answers.write({ id: event.data.resultId });
  });
  return answers;
}

/** Writes `GET /api/score/{id}`'s answer for a result id (`write({ id })`). */
export function finalResultAnswers(schema: GraphQLSchema, store: ResultAnswerStore, logger: Logger): FinalAnswers {
  return new FinalAnswers(schema, restRoute("GET", "/api/score/:id"), store, logger);
}

/**
 * The schema a worker process needs to build those answers: the whole contract,
 * with only the scoring resolver behind it (the answer's operation reads a result
 * and nothing else; any other resolver would fail loudly, never answer wrongly).
 */
export function resultAnswerSchema(scores: ScoreService, results: ScoreResultsService, waitMs: number): GraphQLSchema {
  return buildAppSchema(new ResolverContainer().register(ScoreResolver, new ScoreResolver(scores, results, waitMs)));
}
