import { createClient, type Client } from "graphql-ws";
import { WebSocket } from "ws";

export const START_SCORE = `mutation Start($input: StartScoreInput!) { startScore(input: $input) { claimToken job { id status } } }`;
export const FOLLOW_PROGRESS = `subscription Follow($jobId: ID!) {
  scoreProgress(jobId: $jobId) { jobId status page pages url dimension dimensions dimensionId resultId error { code message } }
}`;

/** One message of `scoreProgress`, as FOLLOW_PROGRESS selects it. */
export interface ProgressStep {
  jobId: string;
  status: "queued" | "crawling" | "scoring" | "completed" | "failed";
  page: number | null;
  pages: number | null;
  url: string | null;
  dimension: number | null;
  dimensions: number | null;
  dimensionId: string | null;
  resultId: string | null;
  error: { code: string; message: string } | null;
}

export interface Followed {
  readonly steps: ProgressStep[];
  /** GraphQL errors delivered as a result (graphql-ws `next` with `errors`) or as the subscription's error. */
  readonly errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
  /** How the subscription ended: completed by the server, or a protocol/socket error. */
  readonly ending: "complete" | "error";
}

/** A real graphql-ws client of a service (`http://…` base URL), sending these headers with the WebSocket upgrade. */
export function wsClient(baseUrl: string, headers: Record<string, string> = {}): Client {
  return createClient({
    url: `${baseUrl.replace(/^http/, "ws")}/graphql`,
    retryAttempts: 0,
    lazy: true,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
  });
}

/** Subscribes to a job's progress; `first` resolves on the first message, `ended` when the server ends the subscription. */
export function follow(client: Client, jobId: string): { first: Promise<void>; ended: Promise<Followed> } {
  const steps: ProgressStep[] = [];
  const errors: Followed["errors"] = [];
  let gotFirst: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (gotFirst = resolve));
  const ended = new Promise<Followed>((resolve) => {
    client.subscribe<{ scoreProgress: ProgressStep }>(
      { query: FOLLOW_PROGRESS, variables: { jobId } },
      {
        next: (result) => {
          if (result.errors) errors.push(...(result.errors as Followed["errors"]));
          if (result.data) steps.push(result.data.scoreProgress);
          gotFirst();
        },
        error: (error) => {
          if (Array.isArray(error)) errors.push(...(error as Followed["errors"]));
          else errors.push({ message: error instanceof Error ? error.message : String(error) });
          gotFirst();
          resolve({ steps, errors, ending: "error" });
        },
        complete: () => {
          gotFirst();
          resolve({ steps, errors, ending: "complete" });
        },
      },
    );
  });
  return { first, ended };
}
