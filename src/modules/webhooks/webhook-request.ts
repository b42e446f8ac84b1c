import got from "got";
import { type AddressGuard, RefusedAddressError } from "../crawl/address-guard.js";
import type { ClaimedDelivery } from "./webhook-lease.repository.js";

export const MAX_STORED_RESPONSE = 4_096;
const TIMEOUT_MS = 10_000;
/** The most one delivery may take in all (a receiver dripping bytes included): well inside the claim's lease. */
const REQUEST_TIMEOUT_MS = 30_000;

/** `unanswered`: no complete answer came (a timeout, a refused or broken connection): what the circuit breaker counts. */
export type Outcome =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | {
      readonly ok: false;
      readonly status: number | null;
      readonly body: string | null;
      readonly error: string;
      readonly unanswered?: boolean;
    };

/** `data` of the delivery body: what the receiver needs, nothing internal. */
export function deliveryData(row: ClaimedDelivery, publicBaseUrl: string): Record<string, unknown> {
  const data = row.event_data;
  switch (row.event_type) {
    case "score.completed":
      return {
        id: data.resultId,
        url: data.url,
        totalScore: data.totalScore,
        stageName: data.stageName,
        framework: data.framework,
        frameworkVersion: data.frameworkVersion ?? null,
        productId: data.productId ?? null,
        shareUrl: `${publicBaseUrl}/r/${String(data.resultId)}`,
      };
    case "subscription.changed":
      return {
        accountId: data.accountId,
        previousPlan: data.previousPlan,
        plan: data.plan,
        reason: data.reason,
        effectiveAt: row.occurred_at.toISOString(),
      };
    case "score.changed":
      return {
        productId: data.productId,
        url: data.url,
        previousResultId: data.previousResultId,
        resultId: data.resultId,
        previousTotal: data.previousTotal,
        total: data.total,
        totalDelta: data.totalDelta,
        previousStage: data.previousStage,
        stage: data.stage,
        frameworkVersion: data.frameworkVersion,
        shareUrl: `${publicBaseUrl}/r/${String(data.resultId)}`,
      };
    case "monitor.skipped":
      return {
        productId: data.productId,
        url: data.url,
        dueAt: data.dueAt,
        reason: data.reason,
        creditsNeeded: data.creditsNeeded,
        creditsAvailable: data.creditsAvailable,
      };
    case "webhook.test":
      return { webhookId: row.webhook_id, message: "A test event sent from the API." };
    default:
      return {};
  }
}

/** One POST: HTTPS only, through the address guard, no redirects, 10 s to connect and 10 s to answer, 30 s in all, at most 4 KiB of the answer read. */
export async function postDelivery(
  guard: AddressGuard,
  target: string,
  headers: Record<string, string>,
  body: string,
): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(target);
    if (url.protocol !== "https:")
      return { ok: false, status: null, body: null, error: "the destination is not https" };
    guard.checkUrl(url);
  } catch (error) {
    return {
      ok: false,
      status: null,
      body: null,
      error: error instanceof RefusedAddressError ? error.message : "the destination is not a valid URL",
    };
  }
  return new Promise<Outcome>((resolve) => {
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const stream = got.stream.post(url, {
      body,
      headers,
      dnsLookup: guard.lookup as never,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: {
        lookup: TIMEOUT_MS,
        connect: TIMEOUT_MS,
        secureConnect: TIMEOUT_MS,
        response: TIMEOUT_MS,
        read: TIMEOUT_MS,
        request: REQUEST_TIMEOUT_MS,
      },
    });
    const done = (outcome: Outcome) => {
      stream.destroy();
      resolve(outcome);
    };
    const text = () => Buffer.concat(chunks).toString("utf8").slice(0, MAX_STORED_RESPONSE);
    const answered = () => {
      if (status !== null && status >= 200 && status < 300) done({ ok: true, status, body: text() });
      else
        done({
          ok: false,
          status,
          body: text(),
          error:
            status === null
              ? "no answer"
              : status >= 300 && status < 400
                ? `redirect ${status} not followed`
                : `HTTP ${status}`,
        });
    };
    stream.on("response", (response: { statusCode: number }) => (status = response.statusCode));
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk.subarray(0, MAX_STORED_RESPONSE - kept));
      kept += Math.min(chunk.length, MAX_STORED_RESPONSE - kept);
      // The status decided the outcome and the excerpt is full: the rest (a large or endless body, a decompression bomb) is not read.
      if (kept >= MAX_STORED_RESPONSE) answered();
    });
    stream.on("end", answered);
    stream.on("error", (error: Error & { code?: string }) => {
      const refused =
        error instanceof RefusedAddressError ||
        error.code === "ERR_REFUSED_ADDRESS" ||
        (error.cause as { code?: string } | undefined)?.code === "ERR_REFUSED_ADDRESS";
      done({
        ok: false,
        status,
        body: chunks.length > 0 ? text() : null,
        error: refused ? error.message : `${error.code ?? "error"}: ${error.message}`.slice(0, 500),
        unanswered: !refused,
      });
    });
  });
}
