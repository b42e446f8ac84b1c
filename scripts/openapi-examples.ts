import "reflect-metadata";
import { spawn } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createApp, type App } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../src/db/embedded-postgres.js";
import { errorCatalogue, isErrorCode, type ErrorCode } from "../src/errors.js";
import { signatureHeader } from "../src/modules/webhooks/signature.js";
import { EXAMPLES_FILE, type ExampleFile, type OperationExamples } from "../rest-compat/openapi/examples.js";
import { restRoutes } from "../rest-compat/routes.js";
import { acmeSite } from "../test/fixtures/crawl-sites.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { CHROMIUM_PATH, HAS_CHROMIUM } from "../test/support/browser.js";
import { FixtureSites, fixtureResolver, type Site } from "../test/support/fixture-sites.js";
import { withClient, withDatabase } from "../test/support/global-setup.js";
import { TcpRelay } from "../test/support/tcp-relay.js";
import { makeTestTls } from "../test/support/test-tls.js";
import { WebhookReceiver } from "../test/support/webhook-receiver.js";

/**
 * `npm run openapi:examples`: the examples of the OpenAPI document, taken from a real
 * run. It starts the service in-process (the same composition root as `npm start`) on
 * a scratch database (on DATABASE_URL's server when set, else an embedded PostgreSQL),
 * with its crawler pointed at a local fixture site and its webhooks at a local HTTPS
 * receiver; drives every route of the table once or more through plain HTTP, as a
 * caller would; and writes what was sent and answered to rest-compat/openapi/examples.json,
 * which rest-compat/openapi.ts reads into `examples`.
 *
 * What is written is what the service answered, with three rewrites: local addresses
 * become public-looking ones (the fixture site is https://acme-analytics.example), secrets
 * (API keys, webhook secrets, claim tokens) become fixed fakes of the same shape, and the
 * webhook signatures are recomputed with the fake secret so they still verify. Fields are
 * never filtered: a field the service starts answering (an envelope's `requestId`, say)
 * shows up on the next run. Request bodies follow the document's own request schemas where
 * a field is optional (`mode: "test"` is sent to key creation once the schema has it).
 *
 * Needs Chromium (CHROMIUM_PATH, or one on the PATH): the health example must show "pass".
 * The process re-runs itself once so that NODE_EXTRA_CA_CERTS (read at start only) trusts
 * the receiver's throwaway certificate authority.
 */

/** The address the examples show for the service and for the scored site. */
const PUBLIC_API = "https://api.productmaturity.example";
const PUBLIC_SITE = "acme-analytics.example";
const PUBLIC_HOOK = `https://hooks.${PUBLIC_SITE}/pms`;
/** The REST wait: long enough to crawl the fixture site on a busy machine; the 202 examples hold its home page past it. */
const WAIT_MS = 45_000;

const FAKE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

async function main(): Promise<void> {
  if (!process.env.PMS_EXAMPLES_TLS) {
    const tls = await makeTestTls();
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        stdio: "inherit",
        env: {
          ...process.env,
          NODE_EXTRA_CA_CERTS: tls.caFile,
          PMS_EXAMPLES_TLS: JSON.stringify({ key: tls.key, cert: tls.cert }),
        },
      });
      child.on("exit", (exitCode) => resolve(exitCode ?? 1));
    });
    process.exit(code);
  }
  const tls = JSON.parse(process.env.PMS_EXAMPLES_TLS) as { key: string; cert: string };
  const examples = await withService(tls, drive);
  await writeFile(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), EXAMPLES_FILE)}`);
}

interface Service {
  readonly app: App;
  readonly url: string;
  readonly site: string;
  readonly receiver: WebhookReceiver;
  /**
   * Holds the fixture site's pages after its home page until `release`: each held page
   * times out after 15 s, three at a time, so scoring outlives the REST wait (the 202
   * examples) and the job is read while it crawls.
   */
  hold(): void;
  release(): void;
  /** The climber's site grows (bare to leader): its next product score moves far enough for score.changed. */
  grow(): void;
  /** Cuts the service off its database (the 503 examples), or reconnects it. */
  cutDatabase(): Promise<void>;
  reconnectDatabase(): Promise<void>;
}

async function withService(
  tls: { key: string; cert: string },
  work: (service: Service) => Promise<ExampleFile>,
): Promise<ExampleFile> {
  const scratch = await mkdtemp(path.join(tmpdir(), "pms-examples-"));
  let embedded: EmbeddedDatabase | undefined;
  const admin =
    process.env.DATABASE_URL ?? (embedded = await startEmbeddedPostgres(scratch, pino({ level: "warn" }))).url;
  const name = `pms_examples_${randomBytes(4).toString("hex")}`;
  await withClient(admin, (client) => client.query(`CREATE DATABASE ${name}`));
  const real = new URL(withDatabase(admin, name));
  const relay = new TcpRelay({ host: real.hostname, port: Number(real.port || 5432) });
  await relay.open();
  const relayed = new URL(real);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(relay.port);

  const sites: Record<string, Site> = {};
  const fixtures = await new FixtureSites(sites).start();
  let held: Array<() => void> | undefined;
  Object.assign(sites, acmeSite(`http://acme.test:${fixtures.port}`), {
    // A host whose home page is down: the CRAWL_FAILED example.
    "www.acme.test": { "/": { status: 503, body: "Service Unavailable" } },
    // A product whose site grows between two scores (the score.changed example).
    "climber.test": pagesOf("bare.test"),
  });
  /** The climber's site after its growth. */
  const grow = () => Object.assign(sites["climber.test"]!, pagesOf("leader.test"));
  // Every page but the home page, robots.txt and the sitemaps can be held (see Service.hold).
  for (const host of ["acme.test", "docs.acme.test"]) {
    for (const [path, route] of Object.entries(sites[host]!)) {
      if (path === "/" || path === "/robots.txt" || path.startsWith("/sitemap")) continue;
      const page = typeof route === "string" ? { body: route } : route;
      sites[host]![path] = {
        handle: (_request, response) => {
          const answer = () =>
            response
              .writeHead(page.status ?? 200, { "content-type": "text/html; charset=utf-8", ...page.headers })
              .end(page.body ?? "");
          if (held) held.push(answer);
          else answer();
        },
      };
    }
  }
  const receiver = await new WebhookReceiver(tls).start();
  if (!HAS_CHROMIUM)
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: set CHROMIUM_PATH (the health example must show pass)`);

  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
    DATABASE_URL: relayed.toString(),
    CHROMIUM_PATH,
    SSRF_ALLOWLIST: "127.0.0.1/32,*.test",
    PUBLIC_BASE_URL: PUBLIC_API,
  });
  const app = await createApp(config, pino({ level: config.logLevel }), {
    scoring: { crawl: { resolver: fixtureResolver(), budgetMs: 180_000 }, waitMs: WAIT_MS },
    webhooks: { pollMs: 100, jitter: 0 },
  });
  try {
    const url = await app.listen(0, "127.0.0.1");
    return await work({
      app,
      url,
      site: fixtures.url("acme.test").replace(/\/$/, ""),
      receiver,
      hold: () => (held = []),
      grow,
      release: () => {
        const waiting = held ?? [];
        held = undefined;
        for (const answer of waiting) answer();
      },
      cutDatabase: () => relay.cut(),
      reconnectDatabase: () => relay.open(),
    });
  } finally {
    await app.close();
    await relay.cut();
    await receiver.stop();
    await fixtures.stop();
    await withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await embedded?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

interface Call {
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
  readonly cookie?: string;
  readonly bearer?: string;
  readonly headers?: Record<string, string>;
}

/** Sends requests as a caller would and keeps each operation's request and answers, and each error code's envelope. */
class Recorder {
  readonly operations: Record<string, OperationExamples> = {};
  readonly errors: Partial<Record<ErrorCode, unknown>> = {};

  constructor(private readonly baseUrl: string) {}

  /** Calls the route of the table that runs `operation`; keeps a 2xx (or health's 503) as its example. */
  async call(operation: string, call: Call = {}, expected?: number): Promise<Answer> {
    const row = restRoutes.find((candidate) => operationName(candidate) === operation);
    if (!row) throw new Error(`no REST route runs ${operation}`);
    const path = row.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
      const value = call.params?.[name];
      if (value === undefined) throw new Error(`${operation}: no value for :${name}`);
      return encodeURIComponent(value);
    });
    const answer = await this.send(row.method, path, call);
    if (expected !== undefined && answer.status !== expected)
      throw new Error(
        `${row.method} ${path} answered ${answer.status}, expected ${expected}: ${JSON.stringify(answer.body)}`,
      );
    const documented = String(answer.status) in row.doc.responses;
    if (documented) {
      const kept = (this.operations[operation] ??= { responses: {} });
      if (call.params) kept.params = call.params;
      if (call.query) kept.query = call.query;
      if (call.body !== undefined) kept.request = call.body;
      kept.responses[String(answer.status)] ??= answer.body ?? null;
    }
    return answer;
  }

  /** Any request; an error answer's envelope is kept as its code's example. */
  async send(method: string, path: string, call: Call & { rawBody?: string } = {}): Promise<Answer> {
    const query = call.query ? `?${new URLSearchParams(call.query)}` : "";
    const response = await fetch(`${this.baseUrl}${path}${query}`, {
      method,
      headers: {
        ...(call.body !== undefined ? { "content-type": "application/json" } : {}),
        ...(call.cookie ? { cookie: call.cookie } : {}),
        ...(call.bearer ? { authorization: `Bearer ${call.bearer}` } : {}),
        ...call.headers,
      },
      ...(call.rawBody !== undefined
        ? { body: call.rawBody }
        : call.body !== undefined
          ? { body: JSON.stringify(call.body) }
          : {}),
    });
    const text = await response.text();
    // Badges answer SVG: kept as text.
    const json = (response.headers.get("content-type") ?? "").includes("json");
    const body = text.length === 0 ? undefined : json ? (JSON.parse(text) as unknown) : text;
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (response.status >= 400 && isErrorCode(code)) this.errors[code] ??= body;
    return { status: response.status, headers: response.headers, body };
  }
}

/** A calibration site's pages, copied (the climber's grow in place). */
const pagesOf = (host: string): Site => ({ ...calibrationSites.find((site) => site.host === host)!.pages });

const operationName = (row: (typeof restRoutes)[number]) =>
  row.operation.definitions.find((definition) => definition.kind === "OperationDefinition")?.name?.value;

/** Does the document's request body of `operation` have this optional field? (New fields are sent once they exist.) */
function requestHasField(operation: string, field: string): boolean {
  const row = restRoutes.find((candidate) => operationName(candidate) === operation);
  const body = row?.doc.requestBody;
  if (!body || "schema" in body) return false;
  const variable = row.operation.definitions
    .find((definition) => definition.kind === "OperationDefinition")
    ?.variableDefinitions?.find((definition) => definition.variable.name.value === body.variable);
  const type = variable ? JSON.stringify(variable.type).match(/"value":"(\w+)"/)?.[1] : undefined;
  return type !== undefined && new RegExp(`input ${type} \\{[^}]*\\b${field}\\b`, "s").test(schemaText);
}
let schemaText = "";

async function drive(service: Service): Promise<ExampleFile> {
  schemaText = await readFile(fileURLToPath(new URL("../schema.graphql", import.meta.url)), "utf8");
  const api = new Recorder(service.url);
  const site = service.site;

  // Health first: everything is up.
  const health = await api.call("Health", {}, 200);
  if ((health.body as { status: string }).status !== "pass")
    throw new Error(`health is not pass: ${JSON.stringify(health.body)}`);

  // Refusals anyone can provoke.
  await api.send("GET", "/api/usage");
  await api.send("DELETE", "/api/health");
  await api.call("ScoreResult", { params: { id: randomUUID() } }, 404);

  // Ada signs in (a Free account), subscribes a webhook, and upgrades to Business through a checkout.
  const ada = await signIn(service.url, `ada@${PUBLIC_SITE}`, "Ada Lovelace");
  await api.call("CreateApiKey", { body: { name: "CI pipeline" }, cookie: ada }, 402);
  await api.send("POST", "/api/webhooks", { body: { url: "http://hooks.example/pms" }, cookie: ada });
  await api.send("POST", "/api/webhooks", {
    cookie: ada,
    headers: { "content-type": "text/plain" },
    rawBody: "url=https://hooks.example",
  });
  await api.send("POST", "/api/webhooks", {
    cookie: ada,
    rawBody: JSON.stringify({ url: "x".repeat(70_000) }),
    headers: { "content-type": "application/json" },
  });
  const created = await api.call(
    "CreateWebhook",
    {
      body: {
        url: service.receiver.url("/pms"),
        events: ["score.completed", "subscription.changed", "score.changed", "monitor.skipped"],
      },
      cookie: ada,
    },
    201,
  );
  const webhook = (created.body as { webhook: { id: string; secret: string } }).webhook;
  const checkout = await api.call("StartCheckout", { body: { plan: "business" }, cookie: ada }, 201);
  const sessionId = (checkout.body as { sessionId: string }).sessionId;
  const completed = await fetch(`${service.url}/dev/checkout/${sessionId}/complete`, { method: "POST" });
  if (completed.status !== 200) throw new Error(`completing the checkout answered ${completed.status}`);

  // Keys: a key for the backend (a test key where the service makes them), one to revoke, and a key refused its own kind.
  const keyBody = (name: string) => ({ name, ...(requestHasField("CreateApiKey", "mode") ? { mode: "test" } : {}) });
  const key = (
    (await api.call("CreateApiKey", { body: keyBody("CI pipeline"), cookie: ada }, 201)).body as { secret: string }
  ).secret;
  const spare = (await api.send("POST", "/api/keys", { body: keyBody("Old laptop"), cookie: ada })).body as {
    key: { id: string };
    secret: string;
  };
  await api.call("ListApiKeys", { cookie: ada }, 200);
  await api.send("POST", "/api/keys", { body: { name: "from a key" }, bearer: key });

  // Scoring: a full score with a key (and its replay, and a conflicting reuse of its key), a product score,
  // an anonymous quick score (and the anonymous cap), an address that is not one.
  const context = "B2B analytics for product teams; we sell to mid-market SaaS companies.";
  const idempotencyKey = randomUUID();
  const scored = await api.call(
    "Score",
    { body: { url: site, context }, bearer: key, headers: { "Idempotency-Key": idempotencyKey } },
    200,
  );
  const result = scored.body as { id: string };
  await api.send("POST", "/api/score", {
    body: { url: site, context },
    bearer: key,
    headers: { "Idempotency-Key": idempotencyKey },
  });
  await api.send("POST", "/api/score", {
    body: { url: site, context: "Another context." },
    bearer: key,
    headers: { "Idempotency-Key": idempotencyKey },
  });
  const product = await api.call("ProductScore", { body: { url: site }, bearer: key }, 200);
  const productId = (product.body as { productId: string }).productId;
  const anonymous = await api.call("QuickScore", { body: { url: site } }, 200);
  const claim = anonymous.body as { id: string; claimToken: string };
  await api.send("POST", "/api/score/quick", { body: { url: site } });
  await api.send("POST", "/api/score", { body: { url: "not a web address" }, cookie: ada });
  await api.send("POST", "/api/score", { body: { url: site.replace("//acme.test", "//www.acme.test") }, cookie: ada });
  await api.call("LinkScore", { body: { resultId: claim.id, claimToken: claim.claimToken }, cookie: ada }, 200);

  // A list: the site twice (scored and charged once) and an address that is not one; then the batch once it ended.
  const batch = (
    await api.call(
      "ScoreBatch",
      { body: { urls: [site, `${site}#pricing`, "not a web address"], context }, bearer: key },
      202,
    )
  ).body as { id: string };
  await batchEnded(api, batch.id, key);
  await api.call("Batch", { params: { id: batch.id }, bearer: key }, 200);

  // Scores that outlive the REST wait: 202 and the job to follow, read while it crawls.
  service.hold();
  const accepted = await Promise.all([
    api.call("Score", { body: { url: site }, bearer: key, headers: { "Idempotency-Key": randomUUID() } }, 202),
    api.call("QuickScore", { body: { url: site }, cookie: ada, headers: { "Idempotency-Key": randomUUID() } }, 202),
    api.call("ProductScore", { body: { url: site }, bearer: key, headers: { "Idempotency-Key": randomUUID() } }, 202),
  ]);
  const jobs = accepted.map((answer) => (answer.body as { job: { id: string } }).job.id);
  await api.call("ScoreJob", { params: { id: jobs[0]! }, bearer: key }, 200);
  service.release();
  for (const id of jobs) await jobEnded(api, id, key);

  await api.call("ScoreResult", { params: { id: result.id } }, 200);
  // The full score against the quick one linked above: two maturity results of the same address.
  await api.call("CompareScores", { params: { id: result.id, otherId: claim.id } }, 200);
  await api.call("ScoreHistory", { bearer: key, query: { limit: "2" } }, 200);
  await api.call("Product", { params: { id: productId }, bearer: key, query: { limit: "2" } }, 200);

  // Monitoring and a public badge; then a monitored product whose site grew between two scores: score.changed.
  await api.call(
    "UpdateProduct",
    { params: { id: productId }, body: { monitor: { interval: "weekly" }, publicBadge: true }, bearer: key },
    200,
  );
  await api.call("ProductBadge", { params: { id: productId } }, 200);
  const climber = site.replace("//acme.test", "//climber.test");
  // Signed in (the key spent its account's five scores of this minute); the same account's product.
  const climbing = (await api.call("ProductScore", { body: { url: climber }, cookie: ada }, 200)).body as {
    productId: string;
  };
  await api.send("PATCH", `/api/products/${climbing.productId}`, {
    body: { monitor: { interval: "monthly" } },
    bearer: key,
  });
  service.grow();
  await api.send("POST", "/api/score/product", { body: { url: climber }, cookie: ada });

  // Lifecycle and chat about the result.
  const stages = (await api.call("LifecycleStages", {}, 200)).body as {
    stages: Array<{ tasks: Array<{ id: string }> }>;
  };
  const [first, second] = stages.stages;
  const answers = Object.fromEntries([
    ...first!.tasks.map((task) => [task.id, "completed"] as const),
    ...second!.tasks.map((task, index) => [task.id, index === 0 ? "in_progress" : "not_started"] as const),
  ]);
  await api.call("AssessLifecycle", { body: { productId, answers }, bearer: key }, 201);
  const chat = await api.call(
    "SendChatMessage",
    { body: { message: "What should we fix first to raise our score?", resultId: result.id }, bearer: key },
    200,
  );
  const conversationId = (chat.body as { conversationId: string }).conversationId;
  await api.call("Conversation", { params: { conversationId }, bearer: key }, 200);

  // Members: invite one who joins and is removed, invite one and cancel.
  await api.call("InviteMember", { body: { email: `grace@${PUBLIC_SITE}` }, cookie: ada }, 201);
  await signIn(service.url, `grace@${PUBLIC_SITE}`, "Grace Hopper");
  const other = (
    await api.send("POST", "/api/members/invitations", { body: { email: `alan@${PUBLIC_SITE}` }, cookie: ada })
  ).body as { invitation: { id: string } };
  const members = (await api.call("ListMembers", { cookie: ada }, 200)).body as {
    members: Array<{ id: string; email: string }>;
  };
  await api.call("CancelInvitation", { params: { id: other.invitation.id }, cookie: ada }, 204);
  const grace = members.members.find((member) => member.email.startsWith("grace@"))!;
  await api.call("RemoveMember", { params: { id: grace.id }, cookie: ada }, 204);

  // Webhooks: by now the receiver has the plan change and the completed scores.
  await api.call("ListWebhooks", { bearer: key }, 200);
  await api.call("Webhook", { params: { id: webhook.id }, bearer: key }, 200);
  await api.call(
    "UpdateWebhook",
    {
      params: { id: webhook.id },
      body: { events: ["score.completed", "subscription.changed", "score.changed", "monitor.skipped"], enabled: true },
      bearer: key,
    },
    200,
  );
  await api.call("SendTestWebhook", { params: { id: webhook.id }, bearer: key }, 202);
  const deliveries = await deliveredAll(api, webhook.id, key);
  await api.call(
    "RetryWebhookDelivery",
    { params: { id: webhook.id, deliveryId: deliveries[0]!.id }, bearer: key },
    202,
  );
  const received = await service.receiver.waitFor(deliveries.length + 1);
  const rotated = await api.call("RotateWebhookSecret", { params: { id: webhook.id }, bearer: key }, 200);
  const spareHook = (
    await api.send("POST", "/api/webhooks", { body: { url: service.receiver.url("/old") }, bearer: key })
  ).body as {
    webhook: { id: string };
  };
  await api.call("DeleteWebhook", { params: { id: spareHook.webhook.id }, bearer: key }, 204);
  await api.call("RevokeApiKey", { params: { id: spare.key.id }, cookie: ada }, 204);
  await api.call("Usage", { bearer: key }, 200);

  // The database goes away: health fails (503) and an account's request is SERVICE_UNAVAILABLE.
  await service.cutDatabase();
  await api.call("Health", {}, 503);
  await api.send("GET", "/api/usage", { cookie: ada });
  await service.reconnectDatabase();

  const secrets = [
    key,
    spare.secret,
    webhook.secret,
    (rotated.body as { webhook: { secret: string } }).webhook.secret,
    claim.claimToken,
  ];
  return publicLooking(
    {
      generatedBy: "npm run openapi:examples (scripts/openapi-examples.ts)",
      operations: api.operations,
      errors: completeErrors(api.errors),
      webhooks: webhookExamples(received),
    },
    service,
    secrets,
    webhook.secret,
  );
}

async function signIn(baseUrl: string, email: string, name: string): Promise<string> {
  const response = await fetch(`${baseUrl}/dev/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, name }),
  });
  if (response.status !== 200) throw new Error(`/dev/login answered ${response.status}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

/** Waits (through GET /api/score/jobs/{id}, without keeping it) until the job has ended. */
async function jobEnded(api: Recorder, id: string, key: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const job = (await api.send("GET", `/api/score/jobs/${id}`, { bearer: key })).body as { status: string };
    if (job.status === "completed" || job.status === "failed") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${id} did not end`);
}

/** Waits (through GET /api/score/batches/{id}, without keeping it) until the batch has completed. */
async function batchEnded(api: Recorder, id: string, key: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const batch = (await api.send("GET", `/api/score/batches/${id}`, { bearer: key })).body as { status: string };
    if (batch.status === "completed") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`batch ${id} did not complete`);
}

/** The webhook's deliveries once none is pending; kept as the delivery log's example. */
async function deliveredAll(api: Recorder, webhookId: string, key: string): Promise<Array<{ id: string }>> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const log = (await api.send("GET", `/api/webhooks/${webhookId}/deliveries`, { bearer: key })).body as {
      deliveries: Array<{ id: string; status: string }>;
    };
    if (log.deliveries.length > 0 && log.deliveries.every((delivery) => delivery.status !== "pending")) {
      await api.call("WebhookDeliveries", { params: { id: webhookId }, bearer: key, query: { limit: "5" } }, 200);
      return log.deliveries;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the webhook deliveries did not finish");
}

/** One delivery of each event kind, as the receiver got it. */
function webhookExamples(
  received: ReadonlyArray<{ headers: Record<string, unknown>; body: string }>,
): ExampleFile["webhooks"] {
  const byKind: ExampleFile["webhooks"] = {};
  for (const delivery of received) {
    const body = JSON.parse(delivery.body) as { type: string };
    byKind[body.type] ??= {
      headers: {
        "webhook-id": String(delivery.headers["webhook-id"]),
        "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery.headers["webhook-signature"]),
      },
      body,
    };
  }
  // monitor.skipped needs an account out of credits at a product's due time, which this run does not reach:
  // assembled from the real score.changed delivery (same envelope and headers, its own event id; signed again
  // with the others at the end), with the payload the scheduler records (src/modules/monitor/monitor-scheduler.ts).
  const changed = byKind["score.changed"];
  if (!byKind["monitor.skipped"] && changed) {
    const source = changed.body as { data: { productId: string; url: string }; timestamp: string };
    byKind["monitor.skipped"] = {
      headers: { ...changed.headers, "webhook-id": "7d3f0c5e-5b1a-4c2e-9f40-6a0d2e8b1c93" },
      body: {
        ...(changed.body as object),
        type: "monitor.skipped",
        data: {
          productId: source.data.productId,
          url: source.data.url,
          dueAt: source.timestamp,
          reason: "credits_exhausted",
          creditsNeeded: 10,
          creditsAvailable: 4,
        },
      },
    };
  }
  return byKind;
}

/**
 * An envelope for every code of the catalogue. Codes this run provoked keep what the
 * service answered; the others (an exhausted balance, an unexpected failure, a replay
 * racing an attempt …) take a provoked envelope's shape, whatever fields it has, with
 * the code, its catalogue action and retryability, and the message the service words.
 */
function completeErrors(found: Partial<Record<ErrorCode, unknown>>): Record<string, unknown> {
  const messages: Partial<Record<ErrorCode, string>> = {
    CREDIT_EXHAUSTED: "This costs 10 credits; 4 plan credits and 0 pack credits remain.",
    DELIVERY_IN_PROGRESS: "This delivery is being sent right now; replay it once its attempt has ended.",
    IDEMPOTENCY_IN_PROGRESS:
      "A request with this Idempotency-Key is still being processed; its answer will be replayed once it is done.",
    QUOTA_EXCEEDED:
      "The Free plan includes 3 scores per billing cycle, all used; the next cycle starts 2026-12-01T00:00:00.000Z.",
    SCORING_RATE_LIMITED: "Too many score requests: at most 5 every 60 seconds; retry in 41 seconds.",
    INTERNAL: "An unexpected error occurred.",
    SERVICE_UNAVAILABLE: "The database is unavailable; try again shortly.",
  };
  const template = Object.values(found)[0] as { error: Record<string, unknown> } | undefined;
  if (!template) throw new Error("no error envelope was provoked");
  const templateCode = String(template.error.code);
  const all: Record<string, unknown> = {};
  for (const code of Object.keys(errorCatalogue) as ErrorCode[]) {
    if (found[code]) {
      all[code] = found[code];
      continue;
    }
    const message = messages[code];
    if (!message) throw new Error(`no envelope of ${code}: provoke it or word its message here`);
    const error: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(template.error))
      error[field] = typeof value === "string" ? swapCode(value, templateCode, code) : value;
    Object.assign(error, {
      code,
      message,
      action: errorCatalogue[code].action,
      retryable: errorCatalogue[code].retryable,
    });
    all[code] = { ...template, error };
  }
  return all;
}

/** A code named inside another field (a documentation anchor, say), in the same letter case. */
function swapCode(value: string, from: string, to: string): string {
  return value
    .replaceAll(from, to)
    .replaceAll(from.toLowerCase(), to.toLowerCase())
    .replaceAll(from.toLowerCase().replaceAll("_", "-"), to.toLowerCase().replaceAll("_", "-"));
}

/**
 * Local addresses become public-looking ones, secrets fixed fakes of the same shape
 * (a key's listed prefix follows its fake), and webhook signatures are recomputed with
 * the fake secret.
 */
function publicLooking(
  examples: ExampleFile,
  service: Service,
  secrets: readonly string[],
  webhookSecret: string,
): ExampleFile {
  const fakes = new Map(secrets.map((secret, index) => [secret, fakeLike(secret, index)]));
  const replaceText = (text: string): string => {
    let out = text
      .replaceAll(service.url, PUBLIC_API)
      .replaceAll(service.receiver.url("/pms"), PUBLIC_HOOK)
      .replaceAll(service.receiver.url("/old"), `https://hooks.${PUBLIC_SITE}/old`)
      .replace(/http:\/\/([\w.-]*?)acme\.test:\d+/g, `https://$1${PUBLIC_SITE}`)
      .replace(/http:\/\/climber\.test:\d+/g, "https://climber-crm.example")
      .replace(/\bacme\.test\b/g, PUBLIC_SITE);
    for (const [secret, fake] of fakes) {
      out = out.replaceAll(secret, fake);
      // A key's listed prefix is the start of its secret.
      if (out.length >= 10 && out.length < secret.length && secret.startsWith(out)) out = fake.slice(0, out.length);
    }
    return out;
  };
  const rewrite = (value: unknown): unknown => {
    if (typeof value === "string") return replaceText(value);
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item)]));
    return value;
  };
  const out = rewrite(examples) as ExampleFile;
  const fakeSecret = fakes.get(webhookSecret)!;
  for (const delivery of Object.values(out.webhooks)) {
    const body = JSON.stringify(delivery.body);
    delivery.headers["webhook-signature"] = signatureHeader(
      [fakeSecret],
      delivery.headers["webhook-id"]!,
      Number(delivery.headers["webhook-timestamp"]),
      body,
    );
  }
  return out;
}

/** A fake of the same shape: the same prefix (`pms_live_`, `whsec_` …), the rest fixed characters of the same kinds. */
function fakeLike(secret: string, seed: number): string {
  const prefix = secret.match(/^[a-z]+_(?:[a-z]+_)?/)?.[0] ?? "";
  const rest = secret.slice(prefix.length);
  const stream = createHash("sha512").update(`example ${seed}`).digest();
  let out = "";
  for (let index = 0; index < rest.length; index += 1) {
    const char = rest[index]!;
    const byte = stream[index % stream.length]! + index;
    if (/[0-9]/.test(char)) out += FAKE_ALPHABET[byte % 10];
    else if (/[A-Za-z]/.test(char)) out += FAKE_ALPHABET[10 + (byte % 52)];
    else out += char;
  }
  // Digits, letters and punctuation stay where they were: a base64 secret still decodes to a key of its length.
  return prefix + out;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
