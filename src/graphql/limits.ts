import {
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  specifiedRules,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from "graphql";
import { MAX_WEBHOOKS_PER_ACCOUNT, PAGE_SIZE } from "../limits.js";
import { MAX_EVIDENCE_CHANGES } from "../modules/score/compare.js";

/**
 * What one GraphQL operation may ask for, checked during validation, before anything
 * runs (a refused operation runs nothing and answers VALIDATION_FAILED). Without them,
 * one 64 KiB request could hold a thousand aliases of a result lookup (thousands of
 * SQL statements), N health pings, N usage reads billed as one call, or N scoring
 * mutations each waiting 120 s.
 */
export const operationLimits = Object.freeze({
  /** Nesting of fields (introspection's is bounded by graphql-js's own rule instead: its usual query is deeper). */
  maxDepth: 10,
  /** Fields answered under another name: `a: scoreResult(id: 1) b: scoreResult(id: 2) …`. */
  maxAliases: 20,
  /** Fields at the top of the operation. */
  maxRootFields: 10,
  /** Fields in all, fragments expanded (bounds the walk itself, too). */
  maxFields: 2_000,
  /** The estimated number of objects resolved, list sizes included, plus each root field's own cost (see `estimate`). */
  maxCost: 50_000,
});

/** Root fields that start a scoring job: at most one per operation (each charges and may wait 120 s). */
const scoringMutations = new Set(["score", "quickScore", "productScore", "startScore"]);
/** Root fields that touch Postgres/Redis or the ledger in full: at most once per operation. */
const oncePerOperation = new Set(["health", "usage", "sendChatMessage"]);
/** What a root field costs beyond its selection: a database read or more. */
const rootCost: Readonly<Record<string, number>> = {
  scoreResult: 10,
  scores: 10,
  scoreJob: 5,
  product: 10,
  products: 10,
  usage: 20,
  health: 20,
  apiKeys: 5,
  members: 5,
};
/** List fields without a `limit` argument, by how many items they hold at most (or typically). */
const listSize: Readonly<Record<string, number>> = {
  dimensions: 27,
  evidenceItems: 10,
  keys: 100,
  members: 50,
  invitations: 50,
  strengths: 3,
  gaps: 3,
  webhooks: MAX_WEBHOOKS_PER_ACCOUNT,
  stages: 5,
  tasks: 6,
  nextTasks: 6,
  answers: 30,
  citations: 27,
  // A comparison's evidence added or removed (ScoreComparison.evidenceAdded.items).
  items: MAX_EVIDENCE_CHANGES,
};
/** Page objects at the root whose `limit` (1–100; a variable counts as the maximum) sizes the list inside them. */
const rootPages = new Set(["scores", "products", "conversation"]);
/** Page objects wherever they are. */
const pages = new Set(["resultPage", "assessments", "deliveries"]);
/** Lists of a page (or paginated themselves, with their own `limit`). */
const pageLists = new Set(["results", "products", "assessments", "deliveries", "messages"]);
const MAX_PAGE = PAGE_SIZE.max;
const DEFAULT_PAGE = PAGE_SIZE.default;

interface Tally {
  fields: number;
  aliases: number;
  depth: number;
  overflow: boolean;
}

/** The validation rules of every door: graphql-js's own, these limits, and (when off) no introspection. */
export function validationRules(options: { introspection: boolean }): ValidationRule[] {
  return [...specifiedRules, OperationLimitsRule, ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
}

/** The limits as a graphql-js validation rule (Apollo's `validationRules`, graphql-ws's `validate`). */
export const OperationLimitsRule: ValidationRule = (context: ValidationContext) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const refuse = (message: string, node?: FieldNode | OperationDefinitionNode) =>
    context.reportError(
      new GraphQLError(message, { ...(node ? { nodes: [node] } : {}), extensions: { code: "VALIDATION_FAILED" } }),
    );

  return {
    OperationDefinition(operation) {
      const tally: Tally = { fields: 0, aliases: 0, depth: 0, overflow: false };
      const roots = rootFields(operation.selectionSet, fragments);
      if (roots.length > operationLimits.maxRootFields) {
        refuse(
          `An operation may ask for at most ${operationLimits.maxRootFields} top-level fields; this one asks for ${roots.length}. Split it.`,
          operation,
        );
        return;
      }
      const scoring = roots.filter((field) => scoringMutations.has(field.name.value));
      if (operation.operation === "mutation" && scoring.length > 1) {
        refuse(
          `An operation may start at most one scoring job; this one has ${scoring.length} (${scoring.map((field) => field.name.value).join(", ")}).`,
          scoring[1],
        );
        return;
      }
      for (const name of oncePerOperation) {
        const repeated = roots.filter((field) => field.name.value === name);
        if (repeated.length > 1) {
          refuse(
            `'${name}' may appear once per operation; this one asks for it ${repeated.length} times.`,
            repeated[1],
          );
          return;
        }
      }
      let cost = 0;
      for (const root of roots)
        cost += (rootCost[root.name.value] ?? 1) + estimate(root, fragments, tally, 1, new Set());
      if (tally.overflow || tally.fields > operationLimits.maxFields) {
        refuse(`An operation may select at most ${operationLimits.maxFields} fields, fragments expanded.`, operation);
      } else if (tally.depth > operationLimits.maxDepth) {
        refuse(
          `An operation may nest fields at most ${operationLimits.maxDepth} deep; this one goes ${tally.depth} deep.`,
          operation,
        );
      } else if (tally.aliases > operationLimits.maxAliases) {
        refuse(
          `An operation may use at most ${operationLimits.maxAliases} aliases; this one uses ${tally.aliases}.`,
          operation,
        );
      } else if (cost > operationLimits.maxCost) {
        refuse(
          `This operation would resolve about ${cost} objects; the limit is ${operationLimits.maxCost}. Ask for fewer fields or smaller pages.`,
          operation,
        );
      }
    },
  };
};

/** The fields at the top of a selection set, through fragments and inline fragments. */
function rootFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      fields.push(...rootFields(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment)
        fields.push(...rootFields(fragment.selectionSet, fragments, new Set([...seen, selection.name.value])));
    }
  }
  return fields;
}

/**
 * The objects `field` resolves, its selection included: each object field costs 1,
 * a list's selection counts once per item (its `limit`, or the list's size), leaves
 * cost nothing beyond counting toward `maxFields`. Counts
 * fields, aliases and depth into `tally`, stopping once past `maxFields`.
 */
function estimate(
  field: FieldNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  tally: Tally,
  depth: number,
  path: ReadonlySet<string>,
  pageSize?: number,
  introspection = false,
): number {
  const name = field.name.value;
  // Aliases count everywhere: inside introspection they are what multiplies its answer
  // (32 aliased copies of `types`, each with aliased `fields`, made a 241 MB answer from 8 KB).
  if (field.alias && field.alias.value !== name) tally.aliases += 1;
  if (name === "__typename") return 0; // a leaf read off the object: its aliases are counted above
  tally.fields += 1;
  if (tally.fields > operationLimits.maxFields) {
    tally.overflow = true;
    return 0;
  }
  if (introspection || name.startsWith("__")) {
    // The schema answers introspection from memory: it costs nothing but its size, bounded by the
    // fields and aliases counted here; its nesting is bounded by graphql-js's MaxIntrospectionDepthRule.
    for (const child of field.selectionSet ? fieldsOf(field.selectionSet, fragments, path) : []) {
      estimate(child.field, fragments, tally, depth + 1, child.path, undefined, true);
      if (tally.overflow) return 0;
    }
    return 0;
  }
  tally.depth = Math.max(tally.depth, depth);
  // A leaf is read off an object already loaded: it counts toward the fields, not the cost.
  if (!field.selectionSet) return 0;
  const { items, inner: childPageSize } = sizeOf(field, pageSize, depth === 1);
  let inner = 0;
  for (const child of fieldsOf(field.selectionSet, fragments, path)) {
    inner += estimate(child.field, fragments, tally, depth + 1, child.path, childPageSize);
    if (tally.overflow) return 0;
  }
  return items * (1 + inner);
}

function fieldsOf(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  path: ReadonlySet<string>,
): Array<{ field: FieldNode; path: ReadonlySet<string> }> {
  const out: Array<{ field: FieldNode; path: ReadonlySet<string> }> = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) out.push({ field: selection, path });
    else if (selection.kind === Kind.INLINE_FRAGMENT) out.push(...fieldsOf(selection.selectionSet, fragments, path));
    else if (!path.has(selection.name.value)) {
      // A fragment cycle is reported by graphql-js's own rule; here it is simply not followed.
      const fragment = fragments.get(selection.name.value);
      if (fragment) out.push(...fieldsOf(fragment.selectionSet, fragments, new Set([...path, selection.name.value])));
    }
  }
  return out;
}

/**
 * How many items a field's selection is resolved for: a paginated list's `limit`
 * (a variable counts as the maximum), the page size its page object was asked for,
 * or a list's known size; and the page size a page object hands to its list.
 */
function sizeOf(field: FieldNode, pageSize: number | undefined, atRoot: boolean): { items: number; inner?: number } {
  const name = field.name.value;
  const limit = limitOf(field);
  // The list inside a page object holds the page's `limit` items (`assessments { assessments }` shares a name).
  if (pageSize !== undefined && pageLists.has(name)) return { items: limit ?? pageSize };
  if ((atRoot && rootPages.has(name)) || pages.has(name)) return { items: 1, inner: limit ?? DEFAULT_PAGE };
  if (pageLists.has(name)) return { items: limit ?? DEFAULT_PAGE };
  return { items: listSize[name] ?? 1 };
}

function limitOf(field: FieldNode): number | undefined {
  const limit = field.arguments?.find((argument) => argument.name.value === "limit")?.value;
  if (!limit) return undefined;
  if (limit.kind === Kind.INT) return Math.min(Math.max(Number(limit.value), 1), MAX_PAGE);
  return MAX_PAGE;
}
