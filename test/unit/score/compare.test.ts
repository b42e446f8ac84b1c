import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import {
  MAX_EVIDENCE_CHANGES,
  assertComparable,
  compareResults,
  normalizeQuote,
} from "../../../src/modules/score/compare.js";
import type { DimensionView, ScoreResultView } from "../../../src/modules/score/score-result.view.js";
import { dimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { scoreResultFixture } from "../../fixtures/score-result.js";

const before = scoreResultFixture({ id: "before", totalScore: 61, stageName: "Scaling" });

/** `before` with some dimensions changed. */
function changed(
  overrides: Partial<ScoreResultView>,
  edit: (dim: DimensionView) => Partial<DimensionView> = () => ({}),
): ScoreResultView {
  return { ...before, id: "after", ...overrides, dimensions: before.dimensions.map((d) => ({ ...d, ...edit(d) })) };
}

describe("compareResults", () => {
  it("answers to minus from, the stage change, and all 27 dimensions most moved first (ties in framework order)", () => {
    const after = changed({ totalScore: 72, stageName: "Compounding" }, (d) =>
      d.dimensionId === "customer_proof"
        ? { score: d.score - 20 }
        : d.dimensionId === "pricing_packaging" || d.dimensionId === "market_intelligence"
          ? { score: d.score + 9 }
          : {},
    );
    const comparison = compareResults(after, before);
    expect(comparison.totalDelta).toBe(11);
    expect(comparison.stageChange).toEqual({ from: "Scaling", to: "Compounding" });
    expect(comparison.comparable).toBe(true);
    expect(comparison.dimensions).toHaveLength(27);
    expect(comparison.dimensions.slice(0, 3).map((d) => [d.dimensionId, d.delta])).toEqual([
      ["customer_proof", -20],
      ["market_intelligence", 9],
      ["pricing_packaging", 9],
    ]);
    // The unmoved keep the framework order.
    const unmoved = comparison.dimensions.slice(3).map((d) => d.dimensionId);
    expect(unmoved).toEqual(
      dimensions
        .map((d) => d.id)
        .filter((id) => !["customer_proof", "market_intelligence", "pricing_packaging"].includes(id)),
    );
    expect(comparison.from).toMatchObject({ id: "before", totalScore: 61 });
    expect(comparison.to).toMatchObject({ id: "after", totalScore: 72 });
    expect(comparison.incomparableDimensions).toEqual([]);
  });

  it("compares a result with itself: nothing moved, nothing added or removed", () => {
    const comparison = compareResults(before, before);
    expect(comparison.totalDelta).toBe(0);
    expect(comparison.stageChange).toBeNull();
    expect(comparison.dimensions.every((d) => d.delta === 0 && !d.confidenceChanged)).toBe(true);
    expect(comparison.evidenceAdded).toEqual({ items: [], total: 0, truncated: false });
    expect(comparison.evidenceRemoved).toEqual({ items: [], total: 0, truncated: false });
  });

  it("flags changed confidence and applicability", () => {
    const after = changed({}, (d) =>
      d.dimensionId === "model_strategy" ? { confidence: "high" as const, applicable: false as const } : {},
    );
    const model = compareResults(after, before).dimensions.find((d) => d.dimensionId === "model_strategy")!;
    expect(model.confidenceChanged).toBe(model.fromConfidence !== "high");
    expect(model).toMatchObject({ toConfidence: "high", fromApplicable: true, toApplicable: false, comparable: true });
  });

  it("matches evidence on the normalized quote and dimension, not on the page", () => {
    const after = changed({}, (d) =>
      d.dimensionId === "value_proposition"
        ? {
            evidenceItems: [
              // The same quote, other case, spacing and page: not new.
              { url: "https://acme.example/other", text: `  ${d.evidenceItems[0]!.text.toUpperCase()}  ` },
              { url: "https://acme.example/new", text: "A brand-new quote." },
            ],
          }
        : {},
    );
    const comparison = compareResults(after, before);
    expect(comparison.evidenceAdded.items).toEqual([
      {
        dimensionId: "value_proposition",
        quote: "A brand-new quote.",
        url: "https://acme.example/new",
        selfReported: false,
      },
    ]);
    expect(comparison.evidenceRemoved.items).toEqual([
      {
        dimensionId: "value_proposition",
        quote: before.dimensions.find((d) => d.dimensionId === "value_proposition")!.evidenceItems[1]!.text,
        url: null,
        selfReported: false,
      },
    ]);
  });

  it("caps each evidence list and says how many there were", () => {
    const after = changed({}, (d) => ({
      evidenceItems: [1, 2, 3].map((n) => ({ url: `https://acme.example/${n}`, text: `${d.dimensionId} fact ${n}` })),
    }));
    const { evidenceAdded, evidenceRemoved } = compareResults(after, before);
    expect(evidenceAdded.items).toHaveLength(MAX_EVIDENCE_CHANGES);
    expect(evidenceAdded).toMatchObject({ total: 81, truncated: true });
    expect(evidenceAdded.items[0]!.dimensionId).toBe(dimensions[0]!.id);
    expect(evidenceRemoved).toMatchObject({ total: 54, truncated: true });
  });

  it("across framework versions, gives a delta only where both sides have the dimension and it applies on both", () => {
    const after = {
      ...changed({ frameworkVersion: "2.0.0" }, (d) =>
        d.dimensionId === "ai_governance" ? { applicable: false as const } : {},
      ),
      dimensions: changed({}, (d) =>
        d.dimensionId === "ai_governance" ? { applicable: false as const } : {},
      ).dimensions.filter((d) => d.dimensionId !== "talent_organization"),
    };
    const comparison = compareResults(after, before);
    expect(comparison.comparable).toBe(false);
    expect(comparison.incomparableDimensions).toEqual(["ai_governance", "talent_organization"]);
    expect(comparison.comparableDimensions).toHaveLength(25);
    expect(comparison.dimensions.slice(-2)).toMatchObject([
      { dimensionId: "ai_governance", delta: null, comparable: false, toApplicable: false },
      { dimensionId: "talent_organization", toScore: null, delta: null, comparable: false, toApplicable: null },
    ]);
  });
});

describe("assertComparable", () => {
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      return error as AppError;
    }
    throw new Error("not refused");
  };

  it("refuses two framework versions unless allowed, naming allowVersionMismatch and how", () => {
    const other = { ...before, frameworkVersion: "9.9.9" };
    const error = refusal(() => assertComparable(before, other, false));
    expect(error).toMatchObject({ code: "VALIDATION_FAILED", param: "allowVersionMismatch" });
    expect(error.action).toContain("allowVersionMismatch=true");
    expect(() => assertComparable(before, other, true)).not.toThrow();
  });

  it("refuses two frameworks even when versions may differ, naming no single field", () => {
    const error = refusal(() => assertComparable(before, { ...before, framework: "product" }, true));
    expect(error).toMatchObject({ code: "VALIDATION_FAILED", param: undefined });
    expect(error.message).toContain("different frameworks");
  });
});

describe("normalizeQuote", () => {
  it("ignores case, spacing, curly quotes, cuts and trailing punctuation", () => {
    expect(normalizeQuote("  “Ship FAST”…  we   do. ")).toBe(normalizeQuote('"ship fast" we do'));
  });
});
