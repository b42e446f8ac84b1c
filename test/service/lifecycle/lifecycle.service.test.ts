import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AssessmentRepository } from "../../../src/modules/lifecycle/assessment.repository.js";
import { LifecycleService } from "../../../src/modules/lifecycle/lifecycle.service.js";
import { LIFECYCLE_VERSION, lifecycleStages } from "../../../src/modules/lifecycle/stages.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { ProductRepository } from "../../../src/modules/products/product.repository.js";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import { Transactions } from "../../../src/db/transaction.js";
import { ProductsService } from "../../../src/modules/products/products.service.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { insertAccount } from "../../support/webhook-rows.js";

/**
 * The lifecycle service over its real repository (no HTTP, no app): an assessment
 * is stored as computed and read back as the latest and in the history, newest
 * first; another account's product is not found.
 */
let database: ClonedDatabase;
let dataSource: DataSource;
let lifecycle: LifecycleService;

beforeAll(async () => {
  database = await openClonedDatabase(4);
  dataSource = database.dataSource;
  lifecycle = new LifecycleService(
    new AssessmentRepository(dataSource),
    new ProductsService(
      new ProductRepository(dataSource),
      new AccountRepository(dataSource),
      new ScoreResultRepository(dataSource),
      new Transactions(dataSource),
    ),
  );
});
afterAll(async () => {
  await database?.close();
});

async function productOf(accountId: string): Promise<string> {
  const [row] = (await dataSource.query(
    `INSERT INTO products (account_id, url, name) VALUES ($1, 'https://example.test', 'example') RETURNING id`,
    [accountId],
  )) as Array<{ id: string }>;
  return row!.id;
}

describe("LifecycleService", () => {
  it("stores an assessment as computed and reads it back, as the latest and in the history, newest first", async () => {
    const accountId = await insertAccount(dataSource, "founder");
    const productId = await productOf(accountId);
    const discovery = lifecycleStages[0]!;
    // Every discovery task done: the current stage is the next one.
    const answers = Object.fromEntries(discovery.tasks.map((task) => [task.id, "completed"]));

    const first = await lifecycle.assess(accountId, {
      productId,
      answers: { [discovery.tasks[0]!.id]: "in_progress" },
    });
    const second = await lifecycle.assess(accountId, { productId, answers });
    expect(second).toMatchObject({
      accountId,
      productId,
      answers,
      currentStage: lifecycleStages[1]!.id,
      lifecycleVersion: LIFECYCLE_VERSION,
    });
    expect(second.stages[0]).toMatchObject({ stageId: discovery.id, completed: discovery.tasks.length, percent: 100 });
    expect(second.nextTasks.map((task) => task.id)).toEqual(lifecycleStages[1]!.tasks.map((task) => task.id));

    const latest = await lifecycle.latest(accountId, productId);
    expect(latest).toMatchObject({
      id: second.id,
      answers,
      currentStage: second.currentStage,
      stages: second.stages,
      nextTasks: second.nextTasks,
    });
    const page = await lifecycle.history(accountId, productId, 1, undefined);
    expect(page.assessments.map((assessment) => assessment.id)).toEqual([second.id]);
    const rest = await lifecycle.history(accountId, productId, 1, page.nextCursor!);
    expect(rest).toEqual({
      assessments: [expect.objectContaining({ id: first.id, currentStage: discovery.id })],
      nextCursor: null,
    });
  });

  it("answers NOT_FOUND for another account's product and stores nothing", async () => {
    const productId = await productOf(await insertAccount(dataSource, "owner"));
    const stranger = await insertAccount(dataSource, "stranger");
    await expect(lifecycle.assess(stranger, { productId, answers: {} })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await lifecycle.latest(stranger, productId)).toBeNull();
  });
});
