import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSchema, parse, validate } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { exitOf } from "../../support/child-process.js";
import { serveRoute, type Site } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * docs/quickstart.md is run, not read: every `sh` block goes through bash, in order
 * and in one shell as a person would type them, against a started service; the
 * GraphiQL step's documents are validated against the schema and run over
 * graphql-ws. Only the address changes: `localhost:4000` becomes the test service,
 * `SITE` a local fixture site. A changed route, field or default fails here.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = path.join(root, "dist/src/cli/pms.js");
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);

const START = "<!-- quickstart:start -->";
const END = "<!-- quickstart:end -->";
const DOCUMENTED_HOST = "localhost:4000";
const DOCUMENTED_SITE = "https://example.com";

function quickstartOf(file: string): string {
  const text = readFileSync(path.join(root, file), "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${START} … ${END} section`);
  return text.slice(start, end + END.length);
}

const quickstart = quickstartOf("docs/quickstart.md");

function blocks(language: string): string[] {
  return [...quickstart.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
    .filter((match) => match[1] === language)
    .map((match) => match[2]!.trimEnd());
}

describe("the quickstart", () => {
  it("opens the README, right after the title and one paragraph, identical to docs/quickstart.md", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const [title, blank, ...rest] = readme.split("\n");
    expect(title).toMatch(/^# /);
    expect(blank).toBe("");
    const paragraphEnd = rest.indexOf("");
    expect(rest.slice(paragraphEnd + 1, paragraphEnd + 4)).toEqual(["## Quickstart", "", START]);
    expect(quickstartOf("README.md")).toBe(quickstart);
  });

  it("has eight steps: seven commands for the shell, then GraphiQL", () => {
    expect([...quickstart.matchAll(/^\*\*(\d)\. /gm)].map((match) => Number(match[1]))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const sh = blocks("sh");
    expect(sh).toHaveLength(7);
    expect(blocks("json")).toHaveLength(1);
    expect(blocks("graphql")).toHaveLength(2);
    // Step 1 starts the service as `npm start` does (the test starts the same composition root in-process).
    expect(sh[0]).toBe("npm install && npm start");
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    expect(pkg.scripts).toMatchObject({
      prestart: "npm run build",
      start: expect.stringContaining("dist/src/main.js"),
    });
    expect(pkg.bin).toEqual({ pms: "dist/src/cli/pms.js" });
  });

  it("has GraphiQL documents that are valid against the committed schema", () => {
    const schema = buildSchema(readFileSync(path.join(root, "schema.graphql"), "utf8"));
    const [mutation, subscription] = blocks("graphql");
    expect(validate(schema, parse(mutation!))).toEqual([]);
    expect(validate(schema, parse(subscription!))).toEqual([]);
    expect(subscription).toMatch(/^subscription \{\n {2}scoreProgress\(jobId: "JOB_ID"\)/);
  });
});

/**
 * The site scored: leader.test's pages, whose home page waits while the gate is
 * closed. The script closes it (a request to the site) just before `pms` runs and
 * the test opens it at pms's first progress line, so pms is sure to be following
 * the job before its first page is read, and every step reaches it.
 */
const leader = calibrationSites.find((candidate) => candidate.host === "leader.test")!;
const gate = { opened: Promise.resolve(), open: () => undefined as void };
function closeGate(): void {
  gate.opened = new Promise<void>((resolve) => (gate.open = resolve));
}
const gatedSite: Site = {
  ...leader.pages,
  "/": { handle: (_request, response) => void gate.opened.then(() => serveRoute(leader.pages["/"], response)) },
  "/close-gate": { handle: (_request, response) => (closeGate(), response.writeHead(204).end()) },
};

describe("the quickstart's commands, run", { timeout: 240_000 }, () => {
  let service: ScoringTestApp;
  let workspace: string;

  beforeAll(async () => {
    service = await startScoringApp({
      env: { SSRF_ALLOWLIST: "127.0.0.1/32,*.test" },
      extraSites: { "gated.test": gatedSite },
    });
    // A stand-in for the clone: what `npx pms` and the commands need, and a place for cookies.txt and score.json.
    workspace = mkdtempSync(path.join(tmpdir(), "pms-quickstart-"));
    for (const entry of ["package.json", "dist", "node_modules"])
      symlinkSync(path.join(root, entry), path.join(workspace, entry));
  });
  afterAll(async () => {
    gate.open();
    await service?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it("score anonymously, sign in, make a test key, score with it and with pms, open the share page, follow progress", async () => {
    const host = new URL(service.url).host;
    const site = service.siteUrl("gated.test");
    const closeGateCommand = `command curl -s -H 'host: gated.test' http://127.0.0.1:${service.sites.port}/close-gate`;
    const [, ...commands] = blocks("sh");
    for (const documented of [DOCUMENTED_HOST, `SITE=${DOCUMENTED_SITE}`])
      expect(commands.join("\n")).toContain(documented);
    // One shell for all steps; each step is marked on both streams, and every curl reports its status on stderr.
    const script = [
      `curl() { command curl -w '%{stderr}\\n::http %{http_code}::\\n' "$@"; }`,
      ...commands.map((command, index) => {
        const step = index + 2;
        const local = command.replaceAll(DOCUMENTED_HOST, host).replaceAll(`SITE=${DOCUMENTED_SITE}`, `SITE=${site}`);
        const before = step === 6 ? `${closeGateCommand}\n` : "";
        return `${before}echo; echo "::step ${step}::"; echo "::step ${step}::" >&2\n${local}\necho; echo "::exit $?::"`;
      }),
    ].join("\n");
    const child = spawn("bash", ["-c", script], {
      cwd: workspace,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? workspace,
        // Where the quickstart relies on pms's default address.
        PMS_API_URL: service.url,
        // npx must find the clone's own `pms`, never fetch a package of that name.
        npm_config_yes: "false",
        npm_config_offline: "true",
        npm_config_update_notifier: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      // pms has printed its first step: it follows the job, so the site may answer.
      if (/^::step 6::\n[^:]/m.test(stderr)) gate.open();
    });
    expect(await exitOf(child)).toBe(0);
    const out = bySteps(stdout);
    const err = bySteps(stderr);
    const http = (step: number) => [...err[step]!.matchAll(/::http (\d+)::/g)].map((match) => Number(match[1]));
    for (let step = 2; step <= 7; step += 1)
      expect({ step, exit: /::exit (\d+)::/.exec(out[step]!)?.[1] }).toEqual({ step, exit: "0" });
    const output = (step: number) => out[step]!.replace(/::exit \d+::/, "").trim();

    // 2. Anonymous quick score: the result and its claim token.
    expect(http(2), output(2)).toEqual([200]);
    const anonymous = JSON.parse(output(2));
    expect(anonymous).toMatchObject({ mode: "quick", totalScore: expect.any(Number), claimToken: expect.any(String) });
    expect(anonymous.dimensions).toHaveLength(27);

    // 3. Signed in: the cookie jar holds the session.
    expect(http(3)).toEqual([200]);
    expect(JSON.parse(output(3))).toMatchObject({ accountId: expect.any(String) });
    expect(readFileSync(path.join(workspace, "cookies.txt"), "utf8")).toContain("__session");

    // 4. A test key on the Free account, in one call.
    expect(http(4)).toEqual([201]);
    const key = output(4);
    expect(key).toMatch(/^pms_test_[0-9A-Za-z]{49}$/);

    // 5. A full score with the key, into the account's history.
    expect(http(5)).toEqual([200]);
    const scored = JSON.parse(output(5));
    expect(scored).toMatchObject({ id: expect.any(String), mode: "full", held: false });
    expect(JSON.parse(readFileSync(path.join(workspace, "score.json"), "utf8")).id).toBe(scored.id);

    // 6. pms: progress step by step (not a terminal here), the report, the share link.
    const progress = err[6]!.split("\n");
    expect(progress.some((line) => /^crawling 1 of \d+ http:\/\/gated\.test:\d+\//.test(line))).toBe(true);
    expect(progress.filter((line) => line.startsWith("scoring "))).toHaveLength(27);
    expect(progress).toContain("completed");
    expect(output(6)).toMatch(/^Total \d+\/100 · \w+$/m);
    expect(output(6)).toMatch(new RegExp(`^Share: +${escape(service.url)}/r/[0-9a-f-]{36}$`, "m"));

    // 7. The share page of step 5's result.
    expect(output(7)).toBe(`${service.url}/r/${scored.id}`);
    const page = await fetch(output(7));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain(String(scored.totalScore));

    // 8. GraphiQL: the documented header, mutation and subscription, over graphql-ws as GraphiQL sends them.
    const headers = JSON.parse(blocks("json")[0]!.replace("pms_test_…", key)) as Record<string, string>;
    const [mutation, subscription] = blocks("graphql");
    const started = (await overWebSocket(mutation!.replace(DOCUMENTED_SITE, site), headers)) as Array<{
      data: { startScore: { job: { id: string } } };
    }>;
    expect(started).toEqual([{ data: { startScore: { job: { id: expect.any(String) } } } }]);
    const jobId = started[0]!.data.startScore.job.id;
    const steps = (await overWebSocket(subscription!.replace("JOB_ID", jobId), headers)) as Array<{
      data: { scoreProgress: { status: string; resultId: string | null } };
    }>;
    expect(steps.at(-1)!.data.scoreProgress).toMatchObject({ status: "completed", resultId: expect.any(String) });

    // Steps 5, 6 and 8 used the Free plan's 3 scores; the anonymous one was not counted.
    const usage = await (
      await fetch(`${service.url}/api/usage`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    expect(usage).toMatchObject({ plan: "free", scores: { used: 3, limit: 3 } });
  });

  /** Every message of one operation over graphql-ws, with GraphiQL's headers as connectionParams. */
  async function overWebSocket(query: string, connectionParams: Record<string, string>): Promise<unknown[]> {
    const { createClient } = await import("graphql-ws");
    const { default: WebSocket } = await import("ws");
    const client = createClient({
      url: `${service.url.replace("http", "ws")}/graphql`,
      retryAttempts: 0,
      connectionParams,
      webSocketImpl: WebSocket,
    });
    try {
      const messages: unknown[] = [];
      await new Promise<void>((resolve, reject) =>
        client.subscribe(
          { query },
          { next: (message) => void messages.push(message), error: reject, complete: () => resolve() },
        ),
      );
      return messages;
    } finally {
      await client.dispose();
    }
  }
});

/** Output split at the `::step N::` markers, by step number. */
function bySteps(output: string): Record<number, string> {
  const steps: Record<number, string> = {};
  for (const part of output.split(/^::step (?=\d+::$)/m).slice(1)) {
    const step = Number(part.slice(0, part.indexOf("::")));
    steps[step] = part.slice(part.indexOf("\n") + 1);
  }
  return steps;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
