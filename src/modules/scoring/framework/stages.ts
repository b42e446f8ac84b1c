import type { StageName } from "../scoring.types.js";

/** docs/api.md §1: the stage ladder, lowest first, for the total and every dimension. */
export const stageLadder: ReadonlyArray<{ readonly name: StageName; readonly from: number }> = [
  { name: "Foundation", from: 0 },
  { name: "Developing", from: 30 },
  { name: "Scaling", from: 50 },
  { name: "Compounding", from: 70 },
  { name: "Leading", from: 85 },
];

export function stageFor(score: number): StageName {
  let stage: StageName = "Foundation";
  for (const rung of stageLadder) if (score >= rung.from) stage = rung.name;
  return stage;
}

/** The rung below, or the same when already at the bottom. */
export function stageBelow(stage: StageName): StageName {
  const index = stageLadder.findIndex((rung) => rung.name === stage);
  return stageLadder[Math.max(0, index - 1)]!.name;
}

/** Rounds half up, as docs/api.md §1 asks (Math.round does that for positives). */
export function roundHalfUp(value: number): number {
  return Math.floor(value + 0.5);
}
