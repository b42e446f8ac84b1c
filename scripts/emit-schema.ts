import { writeFileSync } from "node:fs";
import { buildAppSchema, printAppSchema, unservedContainer } from "../src/graphql/schema.js";

// Writes the committed contract. Runs from dist/ (tsc keeps decorator metadata, which tsx/esbuild would drop).
const target = new URL("../../schema.graphql", import.meta.url);
writeFileSync(target, printAppSchema(buildAppSchema(unservedContainer)));
console.log(`wrote ${target.pathname}`);
