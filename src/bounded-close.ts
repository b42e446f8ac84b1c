import type { Logger } from "pino";

/** How long one part of a shutdown may take before the rest goes on without it. */
export const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Waits for one part of a shutdown, at most `timeoutMs`: a part that hangs (a socket that never
 * finishes its request, a pool client never given back, Redis gone silent) is named in a warning and
 * left behind, so the parts after it still close and the stop ends. Resolves "closed", "failed" or "timeout".
 */
export async function closeWithin(
  closing: Promise<unknown>,
  what: string,
  logger: Pick<Logger, "warn">,
  timeoutMs = CLOSE_TIMEOUT_MS,
): Promise<"closed" | "failed" | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const outcome = await Promise.race([
    closing.then(
      () => "closed" as const,
      () => "failed" as const,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  if (outcome !== "closed") logger.warn(`${what} did not close cleanly (${outcome}); continuing shutdown`);
  return outcome;
}
