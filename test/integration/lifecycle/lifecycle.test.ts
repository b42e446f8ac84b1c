import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/** Lifecycle stages and self-assessments over REST and GraphQL, against a product scored for real. */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;
let owner: Caller;
let productId: string;
let dimensionScores: Map<string, number>;

beforeAll(async () => {
  service = await startScoringApp();
  api = apiClient(service);
  graphql = graphqlClient(service);
  owner = await signIn(service, "owner@lifecycle.test");
  const scored = await api("/api/score/product", {
    method: "POST",
    cookie: owner.cookie,
    body: { url: service.siteUrl("leader.test") },
  });
  expect(scored.status).toBe(200);
  const result = await scored.json();
  productId = result.productId;
  dimensionScores = new Map(
    result.dimensions.map((dimension: { dimensionId: string; score: number }) => [
      dimension.dimensionId,
      dimension.score,
    ]),
  );
});
afterAll(() => service?.close());

const assess = (caller: { cookie?: string; bearer?: string }, body: unknown) =>
  api("/api/lifecycle/assessment", { method: "POST", ...caller, body });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string } }).error,
});

describe("lifecycle stages", () => {
  it("lists at least five stages in order, discovery first with its three named tasks, cacheable with an ETag, the same over GraphQL", async () => {
    const response = await api("/api/lifecycle/stages");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.stages.map((stage: { id: string }) => stage.id)).toEqual([
      "stage_discovery",
      "stage_validation",
      "stage_launch",
      "stage_growth",
      "stage_scale",
    ]);
    expect(body.stages.map((stage: { order: number }) => stage.order)).toEqual([1, 2, 3, 4, 5]);
    for (const stage of body.stages)
      (expect(stage.tasks.length).toBeGreaterThanOrEqual(4), expect(stage.tasks.length).toBeLessThanOrEqual(8));
    expect(body.stages[0].tasks.map((task: { id: string }) => task.id).slice(0, 3)).toEqual([
      "task_define_problem",
      "task_user_research",
      "task_competitive_analysis",
    ]);
    expect(body.stages[0].tasks[0].dimensions).toContain("value_proposition");

    const etag = response.headers.get("etag");
    expect(etag).toBeTruthy();
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await api("/api/lifecycle/stages", { headers: { "if-none-match": etag! } })).status).toBe(304);

    const viaGraphql = await graphql(`
      query {
        lifecycleStages {
          version
          stages {
            id
            tasks {
              id
            }
          }
        }
      }
    `);
    expect(viaGraphql.data?.lifecycleStages).toMatchObject({
      version: body.version,
      stages: body.stages.map((stage: { id: string; tasks: Array<{ id: string }> }) => ({
        id: stage.id,
        tasks: stage.tasks.map((task) => ({ id: task.id })),
      })),
    });
  });

  // The product framework maps a total onto the same stage ids the lifecycle lists.
  it("shares its stage ids with the product framework's lifecycle mapping", async () => {
    const { frameworks } = await import("../../../src/modules/scoring/framework/frameworks.js");
    const { lifecycleStages } = await import("../../../src/modules/lifecycle/stages.js");
    expect(frameworks.product.lifecycle?.map((band) => band.stageId)).toEqual(lifecycleStages.map((stage) => stage.id));
  });
});

describe("lifecycle assessment", () => {
  it("stores an assessment (201) with progress per stage, the current stage and the open tasks weakest evidence first", async () => {
    const response = await assess(owner, {
      productId,
      answers: {
        task_define_problem: "completed",
        task_user_research: "completed",
        task_competitive_analysis: "in_progress",
      },
    });
    expect(response.status).toBe(201);
    const { assessment } = await response.json();
    expect(assessment).toMatchObject({
      productId,
      answers: {
        task_define_problem: "completed",
        task_user_research: "completed",
        task_competitive_analysis: "in_progress",
      },
      currentStage: "stage_discovery",
    });
    expect(assessment.stages[0]).toEqual({
      stageId: "stage_discovery",
      completed: 2,
      inProgress: 1,
      notStarted: 1,
      percent: 50,
    });
    expect(assessment.stages[1]).toMatchObject({
      stageId: "stage_validation",
      completed: 0,
      notStarted: 5,
      percent: 0,
    });
    // Open tasks of the current stage only, each with its weakest dimension of the latest score, weakest first.
    expect(assessment.nextTasks.map((task: { id: string }) => task.id).sort()).toEqual([
      "task_competitive_analysis",
      "task_value_hypothesis",
    ]);
    for (const task of assessment.nextTasks)
      expect(task.weakestDimension.score).toBe(dimensionScores.get(task.weakestDimension.dimensionId));
    const weakness = assessment.nextTasks.map(
      (task: { weakestDimension: { score: number } }) => task.weakestDimension.score,
    );
    expect(weakness).toEqual([...weakness].sort((a, b) => a - b));
  });

  it("moves to the next stage once 75 % of a stage's tasks are completed", async () => {
    const { assessment } = await (
      await assess(owner, {
        productId,
        answers: {
          task_define_problem: "completed",
          task_user_research: "completed",
          task_competitive_analysis: "completed",
          task_prototype: "in_progress",
        },
      })
    ).json();
    expect(assessment.currentStage).toBe("stage_validation");
    expect(assessment.nextTasks).toHaveLength(5);
    expect(
      assessment.nextTasks.some(
        (task: { id: string; status: string }) => task.id === "task_prototype" && task.status === "in_progress",
      ),
    ).toBe(true);
  });

  it("keeps every assessment: Product.assessments newest first and latestAssessment over GraphQL", async () => {
    const answer = await graphql(
      `
        mutation ($input: AssessLifecycleInput!) {
          assessLifecycle(input: $input) {
            id
            currentStage
            answers {
              taskId
              status
            }
          }
        }
      `,
      { input: { productId, answers: [{ taskId: "task_define_problem", status: "in_progress" }] } },
      { cookie: owner.cookie },
    );
    expect(answer.errors).toBeUndefined();
    const latestId = (answer.data as { assessLifecycle: { id: string } }).assessLifecycle.id;
    const read = await graphql(
      `
        query ($id: ID!) {
          product(id: $id) {
            latestAssessment {
              id
            }
            assessments(limit: 2) {
              assessments {
                id
              }
              nextCursor
            }
          }
        }
      `,
      { id: productId },
      { cookie: owner.cookie },
    );
    expect(read.errors).toBeUndefined();
    const product = (
      read.data as {
        product: {
          latestAssessment: { id: string };
          assessments: { assessments: Array<{ id: string }>; nextCursor: string | null };
        };
      }
    ).product;
    expect(product.latestAssessment.id).toBe(latestId);
    expect(product.assessments.assessments[0]!.id).toBe(latestId);
    expect(product.assessments.assessments).toHaveLength(2);
    expect(product.assessments.nextCursor).not.toBeNull();
    const [{ n }] = await service.app.database.dataSource.query(
      `SELECT count(*)::int AS n FROM lifecycle_assessments WHERE product_id = $1`,
      [productId],
    );
    expect(n).toBe(3);
  });

  it("refuses unknown tasks and statuses (400 naming the field), another account's product (404), and anonymous callers (401)", async () => {
    expect(await errorOf(await assess(owner, { productId, answers: { task_fly_to_mars: "completed" } }))).toMatchObject(
      { status: 400, code: "VALIDATION_FAILED", message: expect.stringMatching(/^answers: unknown task/) },
    );
    expect(await errorOf(await assess(owner, { productId, answers: { task_define_problem: "done" } }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^answers\.task_define_problem: /),
    });
    expect(await errorOf(await assess(owner, { productId, answers: ["task_define_problem"] }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^answers: /),
    });
    // A "__proto__" key is refused by the body parser itself (prototype pollution), still 400 in the envelope.
    expect(
      await errorOf(await assess(owner, { productId, answers: JSON.parse('{"__proto__": "completed"}') })),
    ).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    const other = await signIn(service, "other@lifecycle.test");
    expect(await errorOf(await assess(other, { productId, answers: {} }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(await errorOf(await assess(other, { productId: "not-a-uuid", answers: {} }))).toMatchObject({ status: 404 });
    expect((await assess({}, { productId, answers: {} })).status).toBe(401);
    const [{ n }] = await service.app.database.dataSource.query(
      `SELECT count(*)::int AS n FROM lifecycle_assessments WHERE account_id = $1`,
      [other.accountId],
    );
    expect(n).toBe(0);
  });

  it("takes an API key too", async () => {
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'business' WHERE id = $1`, [
      owner.accountId,
    ]);
    const { secret } = await (
      await api("/api/keys", { method: "POST", cookie: owner.cookie, body: { name: "ci" } })
    ).json();
    expect(
      (await assess({ bearer: secret }, { productId, answers: { task_define_problem: "completed" } })).status,
    ).toBe(201);
  });
});
