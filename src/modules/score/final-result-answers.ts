import type { GraphQLSchema } from "graphql";
import type { DataSource } from "typeorm";
import type { Logger } from "pino";
import { FinalAnswers } from "../../../rest-compat/final-answers.js";
import { restRoute } from "../../../rest-compat/routes.js";
import type { DomainEvents } from "../../events/domain-events.js";
import { ResolverContainer } from "../../graphql/container.js";
import { buildAppSchema } from "../../graphql/schema.js";
import { ResultAnswerStore } from "./result-answer-store.js";
import { ScoreResolver } from "./score.resolver.js";
import type { ScoreResultsService } from "./score-results.service.js";
import type { ScoreService } from "./score.service.js";

/**
 * `GET /api/score/{id}`'s answer is stored when the result completes (in the
 * process that completed it, before the completion is announced), so every
 * later read that misses memory is one primary-key read.
 */
export function storeFinalResultAnswers(deps: { schema: GraphQLSchema; dataSource: DataSource; events: DomainEvents; logger: Logger }): FinalAnswers {
  const answers = new FinalAnswers(deps.schema, restRoute("GET", "/api/score/:id"), new ResultAnswerStore(deps.dataSource), deps.logger);
  deps.events.on("score.completed", async (event) => {
    await answers.write({ id: event.data.resultId });
  });
  return answers;
}

/**
 * The schema a worker process needs to build those answers: the whole contract,
 * with only the scoring resolver behind it (the answer's operation reads a result
 * and nothing else; any other resolver would fail loudly, never answer wrongly).
 */
export function resultAnswerSchema(scores: ScoreService, results: ScoreResultsService, waitMs: number): GraphQLSchema {
  return buildAppSchema(new ResolverContainer().register(ScoreResolver, new ScoreResolver(scores, results, waitMs)));
}
