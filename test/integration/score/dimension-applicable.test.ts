import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pillarScores } from "../../../src/client/index.js";
import { pillarIds } from "../../../src/scale/pillars.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { apiClient, graphqlClient, signIn, type Caller } from "../../support/http.js";

/**
 * `applicable` on every dimension, through both doors and every read of a result:
 * the scorer's list of dimensions that do not apply (kept with the result) is what
 * the share page draws apart, and what the client's pillar scores leave out.
 */
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;

beforeAll(async () => {
  service = await startScoringApp({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent" } });
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(() => service?.close());

const sql = (text: string, values: unknown[] = []) => service.app.database.dataSource.query(text, values);
const proMember = async (email: string): Promise<Caller> => {
  const caller = await signIn(service, email);
  await sql("UPDATE accounts SET plan = 'pro' WHERE id = $1", [caller.accountId]);
  return caller;
};

interface Dimension {
  readonly dimensionId: string;
  readonly pillar: string;
  readonly score: number;
  readonly applicable: boolean;
}
/** Each dimension's `applicable`, by id. */
const applicability = (dimensions: readonly Dimension[]) =>
  Object.fromEntries(dimensions.map((dimension) => [dimension.dimensionId, dimension.applicable]));

/** What the fixture product (bookkeeping for freelancers) does not sell: AI. */
const AI_DIMENSIONS = [
  "ai_capability_depth",
  "data_strategy_flywheel",
  "cost_token_economics",
  "model_strategy",
  "ai_governance",
];

/** Each pillar's average as the share page prints it; null where it prints "–" (no dimension of it applies). */
async function sharePagePillars(id: string): Promise<Record<string, number | null>> {
  const html = await (await api(`/r/${id}`)).text();
  return Object.fromEntries(
    pillarIds.map((pillar) => {
      const match = new RegExp(`id="pillar-${pillar}"[\\s\\S]*?class="pillar-avg">(\\d+|–)<`).exec(html);
      if (!match) throw new Error(`no average for ${pillar} on the share page`);
      return [pillar, match[1] === "–" ? null : Number(match[1])];
    }),
  );
}

const DIMENSIONS = "dimensions { dimensionId pillar score applicable }";

describe("Dimension.applicable", { timeout: 60_000 }, () => {
  it("is false for the AI dimensions of a product that sells no AI, the same through both doors and every read", async () => {
    const ada = await proMember("ada@applicable.test");
    const response = await api("/api/score/quick", {
      method: "POST",
      cookie: ada.cookie,
      body: { url: service.siteUrl("early.test") },
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { id: string; dimensions: Dimension[] };
    const answered = applicability(result.dimensions);

    expect(Object.values(answered).every((value) => typeof value === "boolean")).toBe(true);
    for (const id of AI_DIMENSIONS) expect(answered[id], id).toBe(false);
    expect(answered.pricing_packaging).toBe(true);
    // Exactly the list the scorer kept with the result.
    const [{ excused }] = await sql(
      `SELECT "scorer" -> 'notApplicable' AS "excused" FROM "score_results" WHERE "id" = $1`,
      [result.id],
    );
    expect(Object.keys(answered).filter((id) => !answered[id])).toEqual(
      result.dimensions.map((dimension) => dimension.dimensionId).filter((id) => (excused as string[]).includes(id)),
    );

    // The same over GraphQL: a fresh score, the stored one by id, the history.
    const scored = await graphql(
      `mutation($input: ScoreInput!) { quickScore(input: $input) { result { ${DIMENSIONS} } } }`,
      { input: { url: service.siteUrl("early.test") } },
      { cookie: ada.cookie },
    );
    expect(scored.errors).toBeUndefined();
    expect(applicability(scored.data!.quickScore.result.dimensions)).toEqual(answered);
    const byId = await graphql(`query($id: ID!) { scoreResult(id: $id) { ${DIMENSIONS} } }`, { id: result.id });
    expect(applicability(byId.data!.scoreResult.dimensions)).toEqual(answered);
    const history = await graphql(`{ scores(limit: 5) { results { id ${DIMENSIONS} } } }`, {}, { cookie: ada.cookie });
    for (const stored of history.data!.scores.results) expect(applicability(stored.dimensions)).toEqual(answered);

    // And over REST: the stored answer by id, the history.
    const restById = (await (await api(`/api/score/${result.id}`)).json()) as { dimensions: Dimension[] };
    expect(applicability(restById.dimensions)).toEqual(answered);
    const restHistory = (await (await api("/api/scores", { cookie: ada.cookie })).json()) as {
      results: { dimensions: Dimension[] }[];
    };
    expect(restHistory.results).toHaveLength(2);
    for (const stored of restHistory.results) expect(applicability(stored.dimensions)).toEqual(answered);

    // The client's pillar scores are the share page's, pillar by pillar (none of Data, AI & Economics applies).
    const pillars = pillarScores(result);
    expect(pillars).toEqual(await sharePagePillars(result.id));
    expect(pillars.data_ai_economics).toBeNull();
  });

  it("answers every dimension applicable for a result stored before the list was kept", async () => {
    const bea = await proMember("bea@applicable.test");
    const response = await api("/api/score/quick", {
      method: "POST",
      cookie: bea.cookie,
      body: { url: service.siteUrl("early.test") },
    });
    const { id } = (await response.json()) as { id: string };
    await sql(`UPDATE "score_results" SET "scorer" = "scorer" - 'notApplicable' WHERE "id" = $1`, [id]);

    const viaGraphQL = await graphql(
      `{ scores(limit: 1) { results { id ${DIMENSIONS} } } }`,
      {},
      { cookie: bea.cookie },
    );
    const [stored] = viaGraphQL.data!.scores.results as { id: string; dimensions: Dimension[] }[];
    expect(stored!.id).toBe(id);
    expect(stored!.dimensions.every((dimension) => dimension.applicable)).toBe(true);
    const viaRest = (await (await api("/api/scores", { cookie: bea.cookie })).json()) as {
      results: { dimensions: Dimension[] }[];
    };
    expect(viaRest.results[0]!.dimensions.every((dimension) => dimension.applicable)).toBe(true);
  });
});
