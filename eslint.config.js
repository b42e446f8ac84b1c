import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Lint: typescript-eslint's recommended rules (not the type-checked set: `tsc` already
 * runs first in `npm test`, and type-aware linting would double the time), plus the
 * import boundaries between layers, which `tsc` cannot see.
 *
 * Layers, each importing only those before it:
 *   leaves (src/config.ts, src/errors.ts, src/limits.ts, src/api-versions.ts, src/net, src/text, src/platform,
 *   src/scale)
 *   → features (src/modules, src/events, src/db)
 *   → GraphQL (src/graphql) → REST compatibility (rest-compat) → HTTP (src/http)
 *   → the composition roots (src/app.ts, src/worker.ts, src/main.ts), which wire them all.
 * A feature's resolvers and GraphQL types are the one exception: type-graphql keeps
 * them beside their feature, and they read the request context from src/graphql.
 */

/** An import of a top-level folder, from any depth (`../../http/x.js`, `../src/http/x.js`). */
const folder = (name) => `^(\\.\\.?/)+(src/)?${name}/`;
const noOrm = {
  name: "typeorm",
  message:
    "Only repositories (*.repository.ts), entities and src/db touch TypeORM: add a repository method and pass a Transaction.",
};
/** Layer patterns, and TypeORM refused unless `orm` is true (rule options replace each other, so both go in one). */
const restrictedWith = (orm, patterns) => [
  "error",
  { paths: orm ? [] : [noOrm], patterns: patterns.map(([name, message]) => ({ regex: folder(name), message })) },
];
const restricted = (...patterns) => restrictedWith(false, patterns);

const noRest = [
  "rest-compat",
  "The REST compatibility layer sits above this one: wire it in a composition root (src/app.ts, src/worker.ts).",
];
const noHttp = ["http", "src/http is the outermost layer; move what you need into a leaf (src/net, src/text) instead."];
const noGraphql = [
  "graphql",
  "src/graphql sits above the features: only resolvers and GraphQL types may import it (its context).",
];
const noFeatures = [
  ["modules", "A leaf imports no feature."],
  ["db", "A leaf imports no feature."],
  ["events", "A leaf imports no feature."],
];

/** The files that may touch TypeORM (with src/db, the bootstrap and migrations). */
const dataAccess = ["src/**/*.repository.ts", "src/**/*.entity.ts", "rest-compat/**/*.repository.ts"];

/** GraphQL-facing files of a feature, which may import src/graphql (see above). */
const graphqlFacing = [
  "src/modules/**/*.resolver.ts",
  "src/modules/**/*.types.ts",
  "src/modules/**/*.args.ts",
  "src/modules/**/*.decorator.ts",
  "src/modules/**/*.decorators.ts",
];

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "coverage/**",
      "src/client/generated/**",
      "rest-compat/generated/**",
      "test/generated/**",
      "calibration/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The codebase's convention for a deliberately unused parameter or binding is a leading underscore.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Off: matching control characters is the point of several patterns (NUL for PostgreSQL, the
      // §4 control-character refusal, terminal escapes in the CLI).
      "no-control-regex": "off",
      // Off: `\[` and `\/` inside character classes are kept for readability; some of these patterns are data tests compare.
      "no-useless-escape": "off",
      // Off: it flags initial values TypeScript needs for definite assignment (`let final = false` read in a catch).
      "no-useless-assignment": "off",
      // Off: TypeScript resolves names itself (typescript-eslint's advice); the few .js/.mjs files are tool configs.
      "no-undef": "off",
    },
  },
  {
    files: ["test/**", "bench/**", "scripts/**"],
    rules: {
      // Tests read untyped JSON answers and touch getters for their effect.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-expressions": "off",
    },
  },
  // Features: never a front door; SQL only in their repositories.
  {
    files: ["src/modules/**", "src/events/**"],
    ignores: [...graphqlFacing, ...dataAccess],
    rules: { "no-restricted-imports": restricted(noRest, noHttp, noGraphql) },
  },
  {
    files: [...dataAccess.filter((glob) => !glob.startsWith("rest-compat")), "src/db/**"],
    rules: { "no-restricted-imports": restrictedWith(true, [noRest, noHttp, noGraphql]) },
  },
  { files: graphqlFacing, rules: { "no-restricted-imports": restricted(noRest, noHttp) } },
  // Leaves: config, errors and the neutral helpers import no feature and no door.
  {
    files: [
      "src/config.ts",
      "src/errors.ts",
      "src/limits.ts",
      "src/api-versions.ts",
      "src/net/**",
      "src/text/**",
      "src/platform/**",
      "src/scale/**",
    ],
    rules: { "no-restricted-imports": restricted(...noFeatures, noGraphql, noRest, noHttp) },
  },
  // The doors, one way: GraphQL → REST → HTTP.
  { files: ["src/graphql/**"], rules: { "no-restricted-imports": restricted(noRest, noHttp) } },
  { files: ["rest-compat/**"], ignores: dataAccess, rules: { "no-restricted-imports": restricted(noHttp) } },
  { files: ["rest-compat/**/*.repository.ts"], rules: { "no-restricted-imports": restrictedWith(true, [noHttp]) } },
  // The installable client package (`npm run client:pack`) holds src/client, src/cli and src/scale alone,
  // with graphql, graphql-ws and ws as its dependencies: anything else imported would be missing from it.
  {
    files: ["src/cli/**", "src/client/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!client/|cli/|scale/)|^\\.\\./\\.\\./",
              message:
                "The client package holds src/client, src/cli and src/scale only: move what you need into a leaf.",
            },
            {
              regex: "^(?!node:|graphql$|graphql-ws$|ws$|\\.)",
              message: "The client package depends on graphql, graphql-ws and ws only (scripts/pack-client.mjs).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/http/**", "src/*.ts"],
    ignores: ["src/config.ts", "src/errors.ts", "src/limits.ts", "src/api-versions.ts"],
    rules: { "no-restricted-imports": restricted() },
  },
);
