// `npm test`: the type check (which also builds dist/, which the process tests run) and
// the lint run side by side, then every vitest tier with the arguments given
// (`npm test -- --project unit`). Either check failing stops the run before the tests.
import { spawn } from "node:child_process";

const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", () => resolve(1));
  });

const checks = await Promise.all([run("npx", ["tsc", "-p", "tsconfig.json"]), run("npm", ["run", "-s", "lint"])]);
if (checks.some((code) => code !== 0)) process.exit(1);
process.exit(await run("npx", ["vitest", "run", ...process.argv.slice(2)]));
