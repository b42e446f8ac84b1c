import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import { MaxCharacters } from "../../../graphql/decorators/max-characters.js";
import { MAX_BATCH_URLS, MAX_CONTEXT_LENGTH } from "../../../limits.js";

export enum ScoreBatchStatusEnum {
  queued = "queued",
  running = "running",
  completed = "completed",
}
registerEnumType(ScoreBatchStatusEnum, {
  name: "ScoreBatchStatus",
  description: "Where a batch is, read from its jobs.",
  valuesConfig: {
    queued: { description: "No job of the batch has started." },
    running: { description: "Some jobs have started and some have not ended." },
    completed: { description: "Every job ended (completed or failed); refused items never ran." },
  },
});

export enum ScoreBatchItemStatusEnum {
  refused = "refused",
  queued = "queued",
  crawling = "crawling",
  scoring = "scoring",
  completed = "completed",
  failed = "failed",
}
registerEnumType(ScoreBatchItemStatusEnum, {
  name: "ScoreBatchItemStatus",
  description: "Where one address of a batch is: refused at once, or its job's status.",
  valuesConfig: {
    refused: { description: "Not queued (malformed, or an address the crawler refuses): costs nothing." },
    queued: { description: "Waiting for a worker." },
    crawling: { description: "Reading the site." },
    scoring: { description: "Scoring the dimensions." },
    completed: { description: "Done: resultId names the result." },
    failed: { description: "The job failed; its credits were refunded." },
  },
});

@ObjectType({ description: "Why an address of a batch was refused, or why its job failed." })
export class ScoreBatchItemError {
  @Field(() => String, { description: "The error code, as in the error catalogue (INVALID_URL, CRAWL_FAILED …)." })
  code: string;

  @Field(() => String, { description: "What happened." })
  message: string;
}

@ObjectType({ description: "One address of a batch, in the order sent." })
export class ScoreBatchItem {
  @Field(() => Int, { description: "Its place in the list sent, from 0." })
  position: number;

  @Field(() => String, { description: "The address as sent." })
  url: string;

  @Field(() => String, { nullable: true, description: "The address as scored (normalized); null when refused." })
  normalizedUrl: string | null;

  @Field(() => ScoreBatchItemStatusEnum, { description: "refused, or its job's status." })
  status: ScoreBatchItemStatusEnum;

  @Field(() => ID, { nullable: true, description: "The job scoring it (a duplicate shares its first item's job)." })
  jobId: string | null;

  @Field(() => ID, { nullable: true, description: "The result, once completed." })
  resultId: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      "The position of the first item with the same normalized address: this one was not scored (or charged) again.",
  })
  duplicateOf: number | null;

  @Field(() => Int, { nullable: true, description: "Completed: the result's total (0–100)." })
  totalScore: number | null;

  @Field(() => String, { nullable: true, description: "Completed: the result's overall stage." })
  stageName: string | null;

  @Field(() => ScoreBatchItemError, { nullable: true, description: "Refused or failed: why." })
  error: ScoreBatchItemError | null;
}

@ObjectType({ description: "A batch's items by where they are (duplicates count as items)." })
export class ScoreBatchCounts {
  @Field(() => Int, { description: "Items sent." })
  total: number;

  @Field(() => Int, { description: "Refused at once (not charged)." })
  refused: number;

  @Field(() => Int, { description: "Waiting for a worker." })
  queued: number;

  @Field(() => Int, { description: "Crawling or scoring." })
  running: number;

  @Field(() => Int, { description: "Completed." })
  completed: number;

  @Field(() => Int, { description: "Failed (refunded)." })
  failed: number;
}

@ObjectType("ScoreBatch", {
  description: "A list of addresses scored together (full maturity scores). Visible to members of its account.",
})
export class ScoreBatchType {
  @Field(() => ID, { description: "The batch id." })
  id: string;

  @Field(() => ScoreBatchStatusEnum, { description: "queued, running or completed, read from its jobs." })
  status: ScoreBatchStatusEnum;

  @Field(() => [ScoreBatchItem], { description: "Every address sent, in order (at most 100)." })
  items: ScoreBatchItem[];

  @Field(() => ScoreBatchCounts, { description: "The items by status." })
  counts: ScoreBatchCounts;

  @Field(() => String, { nullable: true, description: "The context sent with the batch, given to every job." })
  context: string | null;

  @Field(() => GraphQLISODateTime, { description: "When it was submitted." })
  createdAt: Date;
}

@InputType({ description: "The addresses to score together, and an optional context for all of them." })
export class ScoreBatchInput {
  @Field(() => [String], {
    description: `1 to ${MAX_BATCH_URLS} web addresses (http or https). Each is checked as a single score's url is; one that fails is refused on its own.`,
  })
  urls: string[];

  @Field(() => String, {
    nullable: true,
    description: "Optional free text (at most 5,000 characters), given to every job of the batch.",
  })
  @MaxCharacters(MAX_CONTEXT_LENGTH)
  context?: string | null;
}
