import { AppError } from "../../src/errors.js";

/** The catalogue error a promise rejects with; fails the test if it resolves or rejects with anything else. */
export async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error("expected a rejection, but it resolved"),
    (error: unknown) => error,
  );
  if (!(outcome instanceof AppError)) throw new Error(`expected an AppError rejection, got ${String(outcome)}`);
  return outcome;
}
