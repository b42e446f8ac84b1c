import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from "type-graphql";

@ObjectType("LifecycleTask", { description: "One task of a lifecycle stage." })
export class LifecycleTaskType {
  @Field(() => ID, { description: "Its id, used as a key of the assessment's answers (task_define_problem …)." })
  id: string;

  @Field(() => String, { description: "Its name." })
  name: string;

  @Field(() => String, { description: "What it means, in a sentence." })
  description: string;

  @Field(() => [String], { description: "The scoring dimensions doing this task moves." })
  dimensions: string[];
}

@ObjectType("LifecycleStage", { description: "A stage of the product lifecycle, discovery to scale." })
export class LifecycleStageType {
  @Field(() => ID, { description: "stage_discovery … stage_scale (the product framework's lifecycle ids)." })
  id: string;

  @Field(() => String, { description: "Its name." })
  name: string;

  @Field(() => Int, { description: "1 for the first stage." })
  order: number;

  @Field(() => String, { description: "What it means, in a sentence." })
  description: string;

  @Field(() => [LifecycleTaskType], { description: "Its tasks, in order." })
  tasks: LifecycleTaskType[];
}

@ObjectType({ description: "The lifecycle definition, in order. REST: GET /api/lifecycle/stages." })
export class LifecycleStageList {
  @Field(() => String, { description: "The definition's version; stored with each assessment." })
  version: string;

  @Field(() => [LifecycleStageType], { description: "The stages, in order." })
  stages: LifecycleStageType[];
}

@ObjectType("LifecycleAnswer", { description: "One task's status in an assessment." })
export class LifecycleAnswerType {
  @Field(() => ID, { description: "The task's id." })
  taskId: string;

  @Field(() => String, { description: "completed, in_progress or not_started." })
  status: string;
}

@ObjectType("StageProgress", { description: "How far one stage is, by its tasks' statuses." })
export class StageProgressType {
  @Field(() => ID, { description: "The stage's id." })
  stageId: string;

  @Field(() => Int, { description: "Tasks answered completed." })
  completed: number;

  @Field(() => Int, { description: "Tasks answered in_progress." })
  inProgress: number;

  @Field(() => Int, { description: "Tasks answered not_started or left out." })
  notStarted: number;

  @Field(() => Int, { description: "Completed tasks as a whole percentage of the stage's tasks." })
  percent: number;
}

@ObjectType("DimensionScoreRef", { description: "A dimension and its score in the product's latest result." })
export class DimensionScoreRef {
  @Field(() => ID, { description: "The dimension's id." })
  dimensionId: string;

  @Field(() => Int, { description: "Its score, 0 to 100." })
  score: number;
}

@ObjectType("NextTask", { description: "An open task of the current stage, weakest related evidence first." })
export class NextTaskType {
  @Field(() => ID, { description: "Its id." })
  id: string;

  @Field(() => String, { description: "Its name." })
  name: string;

  @Field(() => String, { description: "What it means, in a sentence." })
  description: string;

  @Field(() => String, { description: "in_progress or not_started." })
  status: string;

  @Field(() => DimensionScoreRef, {
    nullable: true,
    description: "The weakest of the task's dimensions in the product's latest score; null without a score.",
  })
  weakestDimension: DimensionScoreRef | null;
}

@ObjectType("LifecycleAssessment", { description: "A product's lifecycle self-assessment; each one is kept." })
export class LifecycleAssessmentType {
  @Field(() => ID, { description: "Its id." })
  id: string;

  @Field(() => ID, { description: "The product assessed." })
  productId: string;

  @Field(() => [LifecycleAnswerType], { description: "The answers as given (tasks left out count as not started)." })
  answers: LifecycleAnswerType[];

  @Field(() => ID, {
    description: "The first stage whose tasks are not yet 75 % completed (the last stage when all are).",
  })
  currentStage: string;

  @Field(() => [StageProgressType], { description: "The stages, in order." })
  stages: StageProgressType[];

  @Field(() => [NextTaskType], { description: "The current stage's open tasks, weakest related evidence first." })
  nextTasks: NextTaskType[];

  @Field(() => GraphQLISODateTime, { description: "When it was stored." })
  createdAt: Date;
}

@ObjectType({ description: "A page of a product's assessments, newest first." })
export class LifecycleAssessmentPage {
  @Field(() => [LifecycleAssessmentType], { description: "At most `limit` assessments." })
  assessments: LifecycleAssessmentType[];

  @Field(() => String, { nullable: true, description: "Pass as `cursor` for the next page; null on the last." })
  nextCursor: string | null;
}

@InputType({ description: "One task's status." })
export class LifecycleAnswerInput {
  @Field(() => ID, { description: "A task id from lifecycleStages." })
  taskId: string;

  @Field(() => String, { description: "completed, in_progress or not_started." })
  status: string;
}

@InputType({ description: "A self-assessment of a product of the account." })
export class AssessLifecycleInput {
  @Field(() => ID, { description: "The product's id." })
  productId: string;

  @Field(() => [LifecycleAnswerInput], { description: "Each task at most once; tasks left out count as not started." })
  answers: LifecycleAnswerInput[];
}
