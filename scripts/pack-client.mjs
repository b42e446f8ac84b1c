#!/usr/bin/env node
/**
 * `npm run client:pack`: the typed client and the `pms` command as a package of
 * their own, so a user installs them without the service (Apollo, TypeORM,
 * embedded PostgreSQL…). Compiles src/client, src/cli and src/scale with
 * declarations (tsconfig.client.json → dist/client), writes a package.json whose
 * dependencies are exactly the packages the compiled files import (versions from
 * the root package.json), stages it in dist/client-package and runs `npm pack`
 * there. Prints the tarball's absolute path as its last line.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const compiled = join(root, "dist", "client");
const staging = join(root, "dist", "client-package");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The folders the package holds: anything else compiled means the client imported server code. */
const folders = ["client", "cli", "scale"];
/** Packages the declarations name only for types (the generated operations' TypedDocumentNode). */
const typeOnly = new Set(["@graphql-typed-document-node/core"]);

function fail(message) {
  console.error(`client:pack: ${message}`);
  process.exit(1);
}

function run(command, args, cwd) {
  const outcome = spawnSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (outcome.status !== 0) fail(`${command} ${args.join(" ")} exited ${outcome.status}\n${outcome.stdout ?? ""}`);
  return outcome.stdout;
}

function filesUnder(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for relative and built-in ones. */
function packageOf(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier))
    return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

rmSync(compiled, { recursive: true, force: true });
run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.client.json"], root);

const emitted = readdirSync(compiled);
const strays = emitted.filter((name) => !folders.includes(name));
if (strays.length > 0) fail(`the client compiles more than ${folders.join(", ")}: ${strays.join(", ")} (server code?)`);

// Import and export statements (static, multi-line) and dynamic imports, in .js and .d.ts alike. No `=` inside:
// `export const Document = {…}` is a declaration, and a generated GraphQL document holds field names like `from`.
const statement = /(?:^|\n)\s*(?:import|export)\b[^;=]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
const imported = new Set();
for (const file of filesUnder(compiled)) {
  for (const match of readFileSync(file, "utf8").matchAll(statement)) {
    const name = packageOf(match[1] ?? match[2]);
    if (name) imported.add(name);
  }
}
const versions = { ...rootPackage.devDependencies, ...rootPackage.dependencies };
const dependencies = Object.fromEntries(
  [...imported].sort().map((name) => {
    if (!versions[name]) fail(`the client imports ${name}, which the root package.json does not list`);
    return [name, versions[name]];
  }),
);
const unexpected = Object.keys(dependencies).filter(
  (name) => !["graphql", "graphql-ws", "ws"].includes(name) && !typeOnly.has(name),
);
if (unexpected.length > 0) fail(`unexpected dependencies of the client: ${unexpected.join(", ")}`);

const manifest = {
  name: "@product-maturity/client",
  version: rootPackage.version,
  description: "Typed client and `pms` command line for the Product Maturity Scoring API.",
  type: "module",
  exports: {
    ".": { types: "./client/index.d.ts", import: "./client/index.js", default: "./client/index.js" },
    "./package.json": "./package.json",
  },
  types: "./client/index.d.ts",
  bin: { pms: "./cli/pms.js" },
  files: [...folders, "README.md"],
  engines: rootPackage.engines,
  dependencies,
};

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
for (const folder of folders) cpSync(join(compiled, folder), join(staging, folder), { recursive: true });
writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
cpSync(join(root, "docs", "client.md"), join(staging, "README.md"));

const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", join(root, "dist")], staging));
const tarball = join(root, "dist", packed.filename);
if (!existsSync(tarball)) fail(`npm pack wrote no ${tarball}`);
console.log(`${packed.name}@${packed.version}: ${packed.entryCount} files, ${packed.size} bytes`);
console.log(tarball);
