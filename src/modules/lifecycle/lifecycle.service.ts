import { AppError } from "../../errors.js";
import type { ProductsService } from "../products/products.service.js";
import { pageLimit } from "../../db/keyset-page.js";
import type { LifecycleAssessment, NextTask, StageProgress } from "./assessment.entity.js";
import type { AssessmentRepository } from "./assessment.repository.js";
import {
  LIFECYCLE_VERSION,
  lifecycleStages,
  lifecycleStatuses,
  STAGE_DONE_SHARE,
  tasksById,
  type LifecycleStatus,
} from "./stages.js";

export interface AssessmentInput {
  readonly productId: unknown;
  /** Task id → status. */
  readonly answers: unknown;
}

/** At most this many answers (every task once; the definition has 26). */
const MAX_ANSWERS = 100;

/**
 * Lifecycle self-assessment (docs/api.md §8). Progress per stage counts the answers
 * (a task left out is not started); the current stage is the first whose tasks are
 * not yet mostly (75 %) completed, or the last when all are; the next tasks are the
 * current stage's open tasks, weakest related dimension of the product's latest
 * score first, so what the founder reports and what the site shows meet.
 */
export class LifecycleService {
  constructor(
    private readonly assessments: AssessmentRepository,
    private readonly products: ProductsService,
  ) {}

  stages() {
    return { version: LIFECYCLE_VERSION, stages: lifecycleStages };
  }

  async assess(accountId: string, input: AssessmentInput): Promise<LifecycleAssessment> {
    const answers = validAnswers(input.answers);
    if (typeof input.productId !== "string" || input.productId === "")
      throw new AppError("VALIDATION_FAILED", "productId: is required");
    // NOT_FOUND for another account's product or an id that is not one.
    const product = await this.products.get(accountId, input.productId);

    const stages: StageProgress[] = lifecycleStages.map((stage) => {
      const statuses = stage.tasks.map((task) => answers[task.id] ?? "not_started");
      const completed = statuses.filter((status) => status === "completed").length;
      const inProgress = statuses.filter((status) => status === "in_progress").length;
      return {
        stageId: stage.id,
        completed,
        inProgress,
        notStarted: statuses.length - completed - inProgress,
        percent: Math.round((100 * completed) / statuses.length),
      };
    });
    const current =
      lifecycleStages.find((stage, index) => stages[index]!.completed < STAGE_DONE_SHARE * stage.tasks.length) ??
      lifecycleStages[lifecycleStages.length - 1]!;
    const scores = await this.assessments.latestDimensionScores(product.id);
    const nextTasks: NextTask[] = current.tasks
      .map((task, order) => {
        const status = answers[task.id] ?? "not_started";
        const weakest = task.dimensions
          .flatMap((dimensionId) => (scores.has(dimensionId) ? [{ dimensionId, score: scores.get(dimensionId)! }] : []))
          .sort((a, b) => a.score - b.score)[0];
        return {
          order,
          next: {
            id: task.id,
            name: task.name,
            description: task.description,
            status,
            weakestDimension: weakest ?? null,
          },
        };
      })
      .filter(({ next }) => next.status !== "completed")
      // Weakest evidence first; without a score, work already begun first; then the stage's own order.
      .sort(
        (a, b) =>
          (a.next.weakestDimension?.score ?? 101) - (b.next.weakestDimension?.score ?? 101) ||
          Number(b.next.status === "in_progress") - Number(a.next.status === "in_progress") ||
          a.order - b.order,
      )
      .map(({ next }) => next);

    return this.assessments.insert({
      accountId,
      productId: product.id,
      answers,
      currentStage: current.id,
      stages,
      nextTasks,
      lifecycleVersion: LIFECYCLE_VERSION,
    });
  }

  async history(accountId: string, productId: string, limit: number | null | undefined, cursor: string | undefined) {
    const page = await this.assessments.pageOfProduct(accountId, productId, pageLimit(limit), cursor);
    return { assessments: page.rows, nextCursor: page.nextCursor };
  }

  async latest(accountId: string, productId: string): Promise<LifecycleAssessment | null> {
    return this.assessments.latestOfProduct(accountId, productId);
  }
}

function validAnswers(value: unknown): Record<string, LifecycleStatus> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new AppError("VALIDATION_FAILED", "answers: must be an object of task id → status");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_ANSWERS) throw new AppError("VALIDATION_FAILED", `answers: at most ${MAX_ANSWERS} tasks`);
  // A null-prototype object: a task id such as "__proto__" can never reach a prototype.
  const answers = Object.create(null) as Record<string, LifecycleStatus>;
  for (const [taskId, status] of entries) {
    if (!tasksById.has(taskId))
      throw new AppError("VALIDATION_FAILED", `answers: unknown task id ${JSON.stringify(taskId).slice(0, 80)}`);
    if (typeof status !== "string" || !(lifecycleStatuses as readonly string[]).includes(status)) {
      throw new AppError("VALIDATION_FAILED", `answers.${taskId}: must be one of ${lifecycleStatuses.join(", ")}`);
    }
    answers[taskId] = status as LifecycleStatus;
  }
  return { ...answers };
}
