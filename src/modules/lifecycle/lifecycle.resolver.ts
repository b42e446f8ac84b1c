import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from "type-graphql";
import { AppError } from "../../errors.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { requireMember } from "../accounts/viewer.js";
import { ProductType } from "../products/products.types.js";
import type { LifecycleAssessment } from "./assessment.entity.js";
import type { LifecycleService } from "./lifecycle.service.js";
import { AssessLifecycleInput, LifecycleAssessmentPage, LifecycleAssessmentType, LifecycleStageList } from "./lifecycle.types.js";

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

  @Query(() => LifecycleStageList, { description: "The lifecycle stages and their tasks, in order (public). REST: GET /api/lifecycle/stages." })
  lifecycleStages(): LifecycleStageList {
    const { version, stages } = this.lifecycle.stages();
    return { version, stages: stages.map((stage) => ({ ...stage, tasks: stage.tasks.map((task) => ({ ...task, dimensions: [...task.dimensions] })) })) };
  }

  @Authorized()
  @Mutation(() => LifecycleAssessmentType, { description: "Stores a self-assessment of a product and answers its stage and next tasks. REST: POST /api/lifecycle/assessment (201)." })
  async assessLifecycle(@Arg("input", () => AssessLifecycleInput, { description: "The product and the answers." }) input: AssessLifecycleInput, @Ctx() context: GraphQLContext): Promise<LifecycleAssessmentType> {
    const member = requireMember(await context.viewer());
    const answers: Record<string, string> = Object.create(null);
    for (const { taskId, status } of input.answers) {
      if (taskId in answers) throw new AppError("VALIDATION_FAILED", `answers: task ${JSON.stringify(taskId).slice(0, 80)} is answered twice`);
      answers[taskId] = status;
    }
    return toAssessmentType(await this.lifecycle.assess(member.accountId, { productId: input.productId, answers: { ...answers } }));
  }

  @Authorized()
  @FieldResolver(() => LifecycleAssessmentPage, { description: "The product's lifecycle assessments, newest first." })
  async assessments(
    @Root() product: ProductType,
    @Ctx() context: GraphQLContext,
    @Arg("limit", () => Int, { nullable: true, description: "1 to 100, default 20." }) limit?: number | null,
    @Arg("cursor", () => String, { nullable: true, description: "The nextCursor of the previous page." }) cursor?: string | null,
  ): Promise<LifecycleAssessmentPage> {
    const member = requireMember(await context.viewer());
    const page = await this.lifecycle.history(member.accountId, product.id, limit, cursor ?? undefined);
    return { assessments: page.assessments.map(toAssessmentType), nextCursor: page.nextCursor };
  }

  @Authorized()
  @FieldResolver(() => LifecycleAssessmentType, { nullable: true, description: "The product's newest lifecycle assessment, if any." })
  async latestAssessment(@Root() product: ProductType, @Ctx() context: GraphQLContext): Promise<LifecycleAssessmentType | null> {
    const member = requireMember(await context.viewer());
    const latest = await this.lifecycle.latest(member.accountId, product.id);
    return latest ? toAssessmentType(latest) : null;
  }
}
