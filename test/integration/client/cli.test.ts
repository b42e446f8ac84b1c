import { existsSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsClient } from "../../../src/client/index.js";
import { exitCodes } from "../../../src/cli/exit-codes.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { drainCredits, keyedMember } from "../../support/api-key.js";
import { exitOf } from "../../support/child-process.js";
import { serveRoute, type Site } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * The `pms` command as a person or a script runs it (the built `bin`,
 * dist/src/cli/pms.js, which `npm test` builds first), against the running service:
 * plain progress when piped, the bar under a pseudo-terminal (util-linux
 * `script`), JSON output, and the documented exit codes.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = fileURLToPath(new URL("../../../dist/src/cli/pms.js", import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` (npm test does) first`);
const noHome = join(tmpdir(), "pms-cli-test-no-home");
const leader = calibrationSites.find((site) => site.host === "leader.test")!;

/** leader.test, whose home page waits for the gate: the test opens it once the CLI shows its first step. */
let gate = newGate();
function newGate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
const gatedSite: Site = {
  ...leader.pages,
  "/": { handle: (_request, response) => void gate.opened.then(() => serveRoute(leader.pages["/"], response)) },
};

let service: ScoringTestApp;
let apiKey: string;

beforeAll(async () => {
  service = await startScoringApp({
    env: { SSRF_ALLOWLIST: "127.0.0.1/32,*.test" },
    extraSites: { "gated.test": gatedSite },
  });
  apiKey = (await keyedMember(service, "cli@client.test")).apiKey;
});
afterAll(async () => {
  gate.open();
  await service?.close();
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `pms args…`; `onOutput` sees the output so far (e.g. to open the gate at the first step). */
async function pms(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  onOutput?: (output: string) => void,
): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    // HOME: a folder that does not exist, so no login the machine's user stored (pms login) is read.
    env: { PATH: process.env.PATH ?? "", HOME: noHome, PMS_API_URL: service.url, PMS_API_KEY: apiKey, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child, onOutput);
}

async function collect(child: ChildProcess, onOutput?: (output: string) => void): Promise<Run> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    onOutput?.(stdout + stderr);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    onOutput?.(stdout + stderr);
  });
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

/** Opens a new gate when the CLI has printed its first progress. */
function gated(): (output: string) => void {
  gate = newGate();
  return (output) => {
    if (output.length > 0) gate.open();
  };
}

describe("pms score", { timeout: 120_000 }, () => {
  it("prints one plain line per step when stderr is not a terminal, then the report with the share link", async () => {
    const run = await pms(["score", service.siteUrl("gated.test"), "--quick"], {}, gated());
    expect(run.stderr).toBe(run.stderr.replace(/[\r\x1b]/g, "")); // no redraws, no escapes
    const lines = run.stderr.trim().split("\n");
    expect(lines).toContain("completed");
    expect(lines.some((line) => /^crawling 1 of \d+ http:\/\/gated\.test:\d+\//.test(line))).toBe(true);
    expect(lines.filter((line) => line.startsWith("scoring "))).toHaveLength(27);
    expect(lines).toContain(
      "scoring 27 of 27 " +
        lines
          .find((line) => line.startsWith("scoring 27 of 27 "))!
          .split(" ")
          .at(-1),
    );
    expect(run.code).toBe(exitCodes.ok.code);

    const id = /\/r\/([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toMatch(/^Total \d+\/100 · (Foundation|Developing|Scaling|Compounding|Leading)$/m);
    expect(run.stdout).toMatch(/^Strongest: .+\(\d+\)/m);
    expect(run.stdout).toMatch(/^Weakest: {3}.+\(\d+\)/m);
    expect(run.stdout).toContain(`Share:     ${service.url}/r/${id}`);
    expect(run.stdout).toContain("Market Intelligence");

    // The same result by id, and in the history.
    const read = await pms(["result", id!]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(`Share:     ${service.url}/r/${id}`);
    const history = await pms(["history", "--limit", "5"]);
    expect(history.stdout).toContain(id);
  });

  it("--json prints the result alone on stdout, as JSON", async () => {
    const run = await pms([
      "score",
      service.siteUrl("leader.test"),
      "--quick",
      "--json",
      "--context",
      "Analytics for retailers",
    ]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      id: expect.any(String),
      mode: "quick",
      totalScore: expect.any(Number),
      stageName: expect.any(String),
    });
    expect(result.dimensions).toHaveLength(27);
    expect(run.stderr).toContain("completed");

    const history = JSON.parse((await pms(["history", "--json"])).stdout);
    expect(history.results.map((item: { id: string }) => item.id)).toContain(result.id);
    const usage = JSON.parse((await pms(["usage", "--json"])).stdout);
    expect(usage).toMatchObject({ plan: "business", scores: { used: expect.any(Number) } });
  });

  it("scores anonymously without a key: the result is held, with its claim token", async () => {
    const json = await pms(["score", service.siteUrl("leader.test"), "--quick", "--json", "--quiet"], {
      PMS_API_KEY: undefined,
    });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toMatchObject({ held: true, claimToken: expect.stringMatching(/^clm_/) });
    // One anonymous score per address and hour: the next is refused at once (Retry-After beyond the longest wait), exit 5.
    const again = await pms(["score", service.siteUrl("leader.test"), "--quick"], { PMS_API_KEY: undefined });
    expect(again.code).toBe(exitCodes.rateLimited.code);
    expect(again.stderr).toMatch(/ANON_RATE_LIMIT \(429\)/);
  });

  it("draws a progress bar in place on a terminal (a pseudo-terminal through script)", async () => {
    const command = `${process.execPath} ${bin} score '${service.siteUrl("gated.test")}' --quick`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        TERM: "xterm",
        COLUMNS: "120",
        PMS_API_URL: service.url,
        PMS_API_KEY: apiKey,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const run = await collect(child, gated());
    child.stdin?.end();
    expect(run.code).toBe(0);
    const output = run.stdout;
    const redraws = output.split("\r\x1b[2K");
    expect(redraws.length).toBeGreaterThan(27); // each step redraws the same line
    expect(output).toMatch(/Crawling \[[█░]{24}\] 1 of \d+ {2}http:\/\/gated\.test/);
    expect(output).toMatch(/Scoring {2}\[█{24}\] 27 of 27/);
    expect(output).toMatch(/Scoring {2}\[[█░]{24}\] 1 of 27/);
    expect(output).toMatch(/Crawled \d+ pages?\r?\n/);
    expect(output).toMatch(/Scored 27 dimensions\r?\n/);
    expect(output).toMatch(/Total \d+\/100/);
  });
});

/**
 * A proxy in front of the service, as a corporate one might be: HTTP passes;
 * WebSocket upgrades are refused (`upgrades: "refuse"`), or the first socket is
 * cut right after the service's first progress message and later ones pass
 * (`upgrades: "cut-first"`).
 */
async function proxy(
  upgrades: "refuse" | "cut-first",
): Promise<{ url: string; sockets: number; close(): Promise<void> }> {
  const target = new URL(service.url);
  let sockets = 0;
  const server = createServer((request, response) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  server.on("upgrade", (request, socket: Socket, head: Buffer) => {
    sockets += 1;
    if (upgrades === "refuse")
      return void socket.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    const cut = sockets === 1;
    const upstream = connect(Number(target.port), target.hostname, () => {
      const headers = Object.entries(request.headers).map(
        ([name, value]) => `${name}: ${Array.isArray(value) ? value.join(", ") : value}`,
      );
      upstream.write(`${request.method} ${request.url} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream);
    });
    upstream.on("data", (chunk: Buffer) => {
      socket.write(chunk);
      // Server frames are not masked: the first progress message is readable as it passes.
      if (cut && chunk.includes('"type":"next"')) {
        socket.destroy();
        upstream.destroy();
      }
    });
    upstream.on("end", () => socket.end());
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    socket.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get sockets() {
      return sockets;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("pms score behind a proxy", { timeout: 120_000 }, () => {
  it("follows the job over REST when the proxy refuses the progress socket, and still reports the result", async () => {
    const front = await proxy("refuse");
    try {
      const key = (await keyedMember(service, "refused-socket@client.test")).apiKey;
      const run = await pms(["score", service.siteUrl("leader.test"), "--quick"], {
        PMS_API_URL: front.url,
        PMS_API_KEY: key,
      });
      expect(run.stderr).toContain("Live progress unavailable");
      expect(run.stderr).toContain("polling the job");
      expect(run.code).toBe(exitCodes.ok.code);
      expect(run.stdout).toMatch(/^Total \d+\/100/m);
      expect(front.sockets).toBeGreaterThanOrEqual(1);
    } finally {
      await front.close();
    }
  });

  it("opens the socket again when it drops in the middle of a job and follows it to the end, without falling back", async () => {
    const front = await proxy("cut-first");
    try {
      const key = (await keyedMember(service, "dropped-socket@client.test")).apiKey;
      const run = await pms(
        ["score", service.siteUrl("gated.test"), "--quick"],
        { PMS_API_URL: front.url, PMS_API_KEY: key },
        gated(),
      );
      expect(front.sockets).toBeGreaterThanOrEqual(2);
      expect(run.stderr).not.toContain("polling the job");
      expect(run.stderr.trim().split("\n")).toContain("completed");
      expect(run.code).toBe(exitCodes.ok.code);
      expect(run.stdout).toMatch(/^Total \d+\/100/m);
    } finally {
      await front.close();
    }
  });
});

describe("pms exit codes", { timeout: 120_000 }, () => {
  it("are 3 when the API refuses an address, naming the code and what to do", async () => {
    const run = await pms(["score", "not a web address"]);
    expect(run.code).toBe(exitCodes.refused.code);
    expect(run.stderr).toMatch(/INVALID_URL \(400\)/);
    expect(run.stderr).toMatch(/what to do: Send a public http\(s\) address/);
    expect(run.stdout).toBe("");
  });

  it("are 2 without a key where one is needed, or for a bad command line; 3 for a key the service refuses", async () => {
    const noKey = await pms(["usage"], { PMS_API_KEY: undefined });
    expect(noKey.code).toBe(exitCodes.usage.code);
    expect(noKey.stderr).toMatch(/PMS_API_KEY/);
    const mistakes = await Promise.all([
      pms(["score", service.siteUrl("leader.test"), "--product"], { PMS_API_KEY: "" }),
      pms(["score"]),
      pms(["score", "https://a.example", "--quick", "--product"]),
      pms(["frobnicate"]),
      pms(["usage", "--bogus"]),
      pms(["usage"], { PMS_API_URL: "localhost:4000" }),
    ]);
    expect(mistakes.map((run) => run.code)).toEqual(Array(6).fill(exitCodes.usage.code));
    expect(mistakes.every((run) => run.stderr.includes("Run pms --help for usage."))).toBe(true);

    const badKey = await pms(["usage"], { PMS_API_KEY: "pms_live_0000000000000000000000000000000000000000000000000" });
    expect(badKey.code).toBe(exitCodes.refused.code);
    expect(badKey.stderr).toMatch(/AUTH_REQUIRED \(401\)/);
  });

  it("are 4 out of credits or past a plan limit, 6 when the job fails, 7 when the service is unreachable", async () => {
    const broke = await keyedMember(service, "broke@client.test");
    await drainCredits(service, broke);
    const outOfCredits = await pms(["score", service.siteUrl("leader.test"), "--quick"], { PMS_API_KEY: broke.apiKey });
    expect(outOfCredits.code).toBe(exitCodes.outOfCredits.code);
    expect(outOfCredits.stderr).toMatch(/CREDIT_EXHAUSTED \(402\)/);

    const failed = await pms(["score", "http://nowhere.test/", "--quick"]);
    expect(failed.code).toBe(exitCodes.scoringFailed.code);
    expect(failed.stderr).toMatch(/failed/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await pms(["usage"], { PMS_API_URL: `http://127.0.0.1:${port}` });
    expect(unreachable.code).toBe(exitCodes.unavailable.code);
    expect(unreachable.stderr).toMatch(/ECONNREFUSED/);
  });

  it("--help prints the commands and every exit code", async () => {
    const run = await pms(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("pms score <url> [--quick | --product] [--context TEXT] [--json]");
    for (const { code, meaning } of Object.values(exitCodes)) expect(run.stdout).toContain(`  ${code}  ${meaning}`);
  });
});

describe("pms webhooks", { timeout: 120_000 }, () => {
  it("creates (showing the secret once), lists and deletes; the 11th is 402, exit 4", async () => {
    const created = await pms([
      "webhooks",
      "create",
      "https://127.0.0.1:9/cli-hook",
      "--events",
      "score.completed,subscription.changed",
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/secret: whsec_/);
    const id = /^Created webhook ([0-9a-f-]{36})$/m.exec(created.stdout)![1]!;
    const listed = await pms(["webhooks", "list"]);
    expect(listed.stdout).toContain(
      `${id}  enabled   https://127.0.0.1:9/cli-hook  score.completed,subscription.changed`,
    );
    expect(listed.stdout).not.toContain("whsec_");
    const deleted = await pms(["webhooks", "delete", id]);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted webhook ${id}\n` });
    expect(JSON.parse((await pms(["webhooks", "list", "--json"])).stdout)).toEqual({ webhooks: [] });

    const client = new PmsClient({ baseUrl: service.url, apiKey });
    for (let i = 0; i < 10; i += 1) await client.webhooks.create(`https://127.0.0.1:9/cli-hook/${i}`);
    const eleventh = await pms(["webhooks", "create", "https://127.0.0.1:9/cli-hook/11"]);
    expect(eleventh.code).toBe(exitCodes.outOfCredits.code);
    expect(eleventh.stderr).toMatch(/PLAN_LIMIT_REACHED \(402\)/);
    expect((await pms(["webhooks", "delete", "00000000-0000-4000-8000-000000000000"])).code).toBe(
      exitCodes.refused.code,
    );
  });
});
