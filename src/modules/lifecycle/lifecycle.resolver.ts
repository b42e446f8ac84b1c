import { Arg, Args, Authorized, FieldResolver, Mutation, Query, Resolver, Root } from "type-graphql";
import { AppError } from "../../errors.js";
import { CurrentMember, type Member } from "../../graphql/decorators/current-member.js";
import { WordedPageArgs } from "../../graphql/page.args.js";
import { ProductType } from "../products/products.types.js";
import type { LifecycleAssessment } from "./assessment.entity.js";
import type { LifecycleService } from "./lifecycle.service.js";
import {
  AssessLifecycleInput,
  LifecycleAssessmentPage,
  LifecycleAssessmentType,
  LifecycleStageList,
} from "./lifecycle.types.js";

export const toAssessmentType = (assessment: LifecycleAssessment): LifecycleAssessmentType => ({
  id: assessment.id,
  productId: assessment.productId,
  answers: Object.entries(assessment.answers).map(([taskId, status]) => ({ taskId, status })),
  currentStage: assessment.currentStage,
  stages: assessment.stages,
  nextTasks: assessment.nextTasks,
  createdAt: assessment.createdAt,
});

@Resolver(() => ProductType)
export class LifecycleResolver {
  constructor(private readonly lifecycle: LifecycleService) {}

  @Query(() => LifecycleStageList, {
    description: "The lifecycle stages and their tasks, in order (public). REST: GET /api/lifecycle/stages.",
  })
  lifecycleStages(): LifecycleStageList {
    const { version, stages } = this.lifecycle.stages();
    return {
      version,
      stages: stages.map((stage) => ({
        ...stage,
        tasks: stage.tasks.map((task) => ({ ...task, dimensions: [...task.dimensions] })),
      })),
    };
  }

  @Authorized()
  @Mutation(() => LifecycleAssessmentType, {
    description:
      "Stores a self-assessment of a product and answers its stage and next tasks. REST: POST /api/lifecycle/assessment (201).",
  })
  async assessLifecycle(
    @Arg("input", () => AssessLifecycleInput, { description: "The product and the answers." })
    input: AssessLifecycleInput,
    @CurrentMember() member: Member,
  ): Promise<LifecycleAssessmentType> {
    const answers: Record<string, string> = Object.create(null);
    for (const { taskId, status } of input.answers) {
      if (taskId in answers)
        throw new AppError(
          "VALIDATION_FAILED",
          `answers: task ${JSON.stringify(taskId).slice(0, 80)} is answered twice`,
        );
      answers[taskId] = status;
    }
    return toAssessmentType(
      await this.lifecycle.assess(member.accountId, { productId: input.productId, answers: { ...answers } }),
    );
  }

  @Authorized()
  @FieldResolver(() => LifecycleAssessmentPage, { description: "The product's lifecycle assessments, newest first." })
  async assessments(
    @Root() product: ProductType,
    @Args(() => WordedPageArgs) page: WordedPageArgs,
    @CurrentMember() member: Member,
  ): Promise<LifecycleAssessmentPage> {
    const { assessments, nextCursor } = await this.lifecycle.history(
      member.accountId,
      product.id,
      page.limit,
      page.cursor ?? undefined,
    );
    return { assessments: assessments.map(toAssessmentType), nextCursor };
  }

  @Authorized()
  @FieldResolver(() => LifecycleAssessmentType, {
    nullable: true,
    description: "The product's newest lifecycle assessment, if any.",
  })
  async latestAssessment(
    @Root() product: ProductType,
    @CurrentMember() member: Member,
  ): Promise<LifecycleAssessmentType | null> {
    const latest = await this.lifecycle.latest(member.accountId, product.id);
    return latest ? toAssessmentType(latest) : null;
  }
}
