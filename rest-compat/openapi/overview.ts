import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { API_VERSIONS } from "../../src/api-versions.js";
import { errorCatalogue, type ErrorCode } from "../../src/errors.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../src/limits.js";
import { rateLimitPolicies } from "../../src/modules/billing/rate-limit/rate-limiter.js";
import type { AnyRestRoute } from "../route.js";

/**
 * The prose of the OpenAPI document: `info.description` (what /docs shows first, in
 * sections: Getting started, Authentication, Errors, Rate limits, Idempotency,
 * Versioning), the tags' descriptions, the security schemes and the licence. Where a
 * fact has a source in the code (the error catalogue, the rate-limit policies, which
 * routes honour Idempotency-Key), it is read from there.
 */

/** Each tag of the route table and what its routes are for; a row with a tag missing here fails at boot. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Scoring:
    "Score a website: a full crawl with the maturity framework, a quick one (at most 5 pages), or the product framework. A score answers within the wait, or 202 with a job to follow. Results are public by id (share links); history is the account's.",
  Products: "A product is the address a product score was made for: its results over time, newest first.",
  Lifecycle: "The product lifecycle stages and their tasks, and a self-assessment against them.",
  Chat: "Ask about a result or a product; each answer cites the dimensions and evidence it rests on.",
  Webhooks:
    "Signed HTTPS notifications of events (`score.completed`, `subscription.changed`, `score.changed`, `monitor.skipped`), with a delivery log, replays and test events. The payloads are under Webhooks below.",
  Account: "The caller's account: usage this cycle, API keys and members.",
  Billing: "Plans and score packs, bought through a checkout.",
  Service: "The service itself: health of it and its dependencies.",
  "Webhook events": "What the service sends to a webhook's address, one entry per event kind.",
};

export function tagsOf(names: readonly string[]): Array<{ name: string; description: string }> {
  return names.map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    if (!description)
      throw new Error(`the OpenAPI tag "${name}" has no description in rest-compat/openapi/overview.ts`);
    return { name, description };
  });
}

export const SECURITY_SCHEMES = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key, `Authorization: Bearer <key>`, made with `POST /api/keys` from a signed-in session. Live keys (`pms_live_…`) belong to Business and Enterprise accounts; test keys (`pms_test_…`) are made on any plan outside production and are accepted only by a non-production service. A key acts for its whole account, except on session-only routes (403). Each request a live key authenticates is one API call (0.1 credit); a test key's requests cost what the same request costs a signed-in session.",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "__session",
    description:
      "The session cookie set at sign-in: a JWT from the identity provider, for people in a browser. Some routes (keys, members, checkout) take a session only.",
  },
} as const;

/** Not a public licence: the service is offered under its terms of service. */
export const LICENSE = { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as const;

export function describeService(routes: readonly AnyRestRoute[], errorExample: unknown): string {
  return [
    gettingStarted(),
    AUTHENTICATION,
    errorsSection(errorExample),
    rateLimitsSection(),
    idempotencySection(routes),
    VERSIONING,
  ].join("\n\n");
}

/** The package root (where package.json is), from the source tree or from dist/. */
function packageRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(directory, "package.json"))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error("no package.json above rest-compat/openapi");
    directory = parent;
  }
  return directory;
}

/**
 * docs/quickstart.md, read when the document is built (the image carries docs/), as the
 * first section: its title becomes "Getting started", and links to other repository
 * files, which /docs cannot follow, become their text.
 */
function gettingStarted(): string {
  const file = path.join(packageRoot(), "docs", "quickstart.md");
  const body = existsSync(file)
    ? readFileSync(file, "utf8")
        .replace(/^#\s+[^\n]*\n+/, "")
        .replace(/\[([^\]]+)\]\((?![a-z]+:|#)[^)]*\)/g, "$1")
        .trim()
    : [
        "1. Sign in and create an API key (`POST /api/keys`), or score anonymously (one score an hour per network).",
        '2. Score a site: `POST /api/score` with `{"url": "https://acme-analytics.example"}`. The answer is the result (200), or a job to follow (202, `Location`).',
        "3. Read it again any time: `GET /api/score/{id}`; share it as `/r/{id}`.",
      ].join("\n");
  return `# Getting started\n\n${body}`;
}

const AUTHENTICATION = `# Authentication

Send an API key as \`Authorization: Bearer <key>\` from a backend, or the \`__session\` cookie from a browser; a key wins over a cookie. Public routes (a result by id, the lifecycle stages, health) need neither; the scoring routes accept anonymous callers within the anonymous cap.

- A missing credential where one is needed, or an invalid, revoked or expired one, is 401 \`AUTH_REQUIRED\`: a bad credential is never treated as anonymous.
- An account that may not do the action is 403 \`FORBIDDEN\`; another account's resource is 404 \`NOT_FOUND\` (its existence is not revealed).
- Keys carry no scopes. Keep them out of client-side code and public repositories.

Each operation lists the credentials it accepts under *Authorizations*.`;

/**
 * One `## <CODE>` heading per code under `# Errors`: Redoc anchors each at
 * `section/Errors/<CODE>`, the `docUrl` every error envelope carries (`docUrlFor`).
 */
function errorsSection(example: unknown): string {
  const entries = (Object.keys(errorCatalogue) as ErrorCode[]).map((code) => {
    const entry = errorCatalogue[code];
    return `## ${code}\n\n${entry.status}, ${entry.retryable ? "retryable" : "not retryable"}. ${entry.action}`;
  });
  return `# Errors

Every error, on every route and status, answers one envelope; GraphQL errors carry the same \`code\`, \`action\`, \`retryable\`, \`param\`, \`requestId\` and \`docUrl\` in \`extensions\`. Switch on \`code\`, show \`message\`, follow \`action\`, and retry only what says \`retryable: true\` (after \`Retry-After\` when it is sent). \`param\` is the path of the one field at fault, when one is; \`requestId\` is the answer's \`X-Request-Id\` (quote it to support); \`docUrl\` links the code's entry below. The envelope may carry more fields, never fewer.

\`\`\`json
${JSON.stringify(example, null, 2)}
\`\`\`

A refused request is never charged; a body field the operation does not know is refused (400 \`VALIDATION_FAILED\` naming it). Each operation lists the codes it can answer, by status.

${entries.join("\n\n")}`;
}

function rateLimitsSection(): string {
  const { score, chat, webhook } = rateLimitPolicies;
  return `# Rate limits

Short windows, sliding, per person signed in (per account for API keys and for webhook sends, per network for anonymous callers):

| what | limit |
|---|---|
| scoring (\`POST /api/score\`, \`/quick\`, \`/product\`) | ${score.limit} per ${score.windowSeconds} s |
| chat (\`POST /api/chat\`) | ${chat.limit} per ${chat.windowSeconds} s |
| webhook test events and replays | ${webhook.limit} per ${webhook.windowSeconds} s per account |
| anonymous scoring | 1 per hour per IPv4 address or IPv6 /64 |

Limited routes answer \`RateLimit-Policy\` and \`RateLimit\` headers (IETF draft); a refusal is 429 \`SCORING_RATE_LIMITED\` (or \`ANON_RATE_LIMIT\`) with \`Retry-After\` in seconds. Monthly ceilings (Free's scores and chats, each plan's API calls) answer 429 \`QUOTA_EXCEEDED\`, which is not retryable; credits that cannot cover a cost answer 402 \`CREDIT_EXHAUSTED\`. A rate-limit store that cannot be reached refuses with 429 and \`Retry-After: 60\`.`;
}

function idempotencySection(routes: readonly AnyRestRoute[]): string {
  const honouring = routes.filter((row) => row.doc.idempotent).map((row) => `\`${row.method} ${row.path}\``);
  return `# Idempotency

Send an \`Idempotency-Key\` header (1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, a UUID is fine) to make a retry safe: the same key with the same body within 24 hours answers the first request's outcome instead of doing (and charging) it again, and a replayed answer says so with \`Idempotent-Replayed: true\`. The same key with another body is 409 \`IDEMPOTENCY_CONFLICT\`. A request that failed with a 5xx may already have been done: retry it with the same key.

Routes that honour it: ${honouring.join(", ")}.`;
}

const VERSIONING = `# Versioning

Within a version the contract changes only by adding: new routes, new fields, new error codes. Name the version you built against with a dated \`Pms-Version\` request header (${API_VERSIONS.map((entry) => `\`${entry.version}\``).join(", ")}); without it, a request with a credential uses its account's pinned version (the newest when the account was made), any other the newest. Every answer names the version it used in \`Pms-Version\`; an unknown one is 400 \`VALIDATION_FAILED\`. A replaced version lives at least 12 months after its successor ships; meanwhile its answers carry \`Deprecation\` and \`Sunset\` headers.`;
