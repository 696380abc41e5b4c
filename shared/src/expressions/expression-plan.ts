import jsonata from "jsonata";
import { OwnerLru } from "../pools/owner-lru.mjs";
import { inlineCalcOf, type InlineCalc } from "./inline-arithmetic";
import { bareNames, onlyFields, type AstNode } from "./jsonata-ast";
import { inlineComparisonOf, type InlineTest } from "./inline-comparison";

export { readNamePath } from "./name-path";

/**
 * What an expression can read of its context: everything, or some top-level names, each either
 * whole or only some of its children (`steps.fetch.output` reads `steps.fetch`, not every step).
 */
export type ContextNeeds = "all" | ReadonlyMap<string, "whole" | ReadonlySet<string>>;

export interface ExpressionPlan {
  /** Set when the expression is a bare path of names (`steps.fetch.output`): see readNamePath. */
  namePath: readonly string[] | null;
  /** Set when it compares bare paths and scalar literals: see inline-comparison.ts. */
  comparison: InlineTest | null;
  /** Set when it is arithmetic or a join of bare paths and literals: see inline-arithmetic.ts. */
  calc: InlineCalc | null;
  needs: ContextNeeds;
}

/**
 * Plans kept: every tenant's expressions share them, so they are bounded in characters of expression text as well as
 * in count (a plan is a fraction of its text; its key is the text), and one owner's many distinct expressions push out
 * its own least recently used plans, not those of owners holding less (OwnerLru).
 */
const MAX_PLANS = 1_000;
const MAX_PLAN_CHARS = 4 * 1024 * 1024;
const plans = new OwnerLru<string, ExpressionPlan>(MAX_PLANS, MAX_PLAN_CHARS);

/**
 * Parses an expression (throwing JSONata's syntax error) and says how to evaluate it. Parsing is
 * a single pass over the text the workflow's author wrote; nothing here evaluates anything.
 * Plans are cached, for `owner` (whose expression it is): the same templates are evaluated for every execution.
 */
export function planFor(expression: string, owner: string): ExpressionPlan {
  const cached = plans.get(expression);
  if (cached) return cached;
  const ast = jsonata(expression).ast() as unknown as AstNode;
  const plan: ExpressionPlan = {
    namePath: bareNames(ast),
    comparison: inlineComparisonOf(ast),
    calc: inlineCalcOf(ast),
    needs: needsOf(ast),
  };
  plans.set(expression, owner, plan, expression.length);
  return plan;
}

/**
 * The keys of the context's `name` (`steps`: step names) an expression can read: "all", or some. An expression that
 * does not parse reads none: it evaluates to its syntax error whatever the context holds.
 */
export function keysRead(expression: string, owner: string, name: string): "all" | ReadonlySet<string> {
  let needs: ContextNeeds;
  try {
    needs = planFor(expression, owner).needs;
  } catch {
    return new Set();
  }
  const need = needs === "all" ? "whole" : needs.get(name);
  return need === "whole" ? "all" : (need ?? new Set());
}

/** How many plans are kept, and their expressions' characters. */
export function plansKept(): { count: number; chars: number } {
  return { count: plans.count, chars: plans.size };
}

/** The part of `context` that an expression with these needs can read. */
export function contextFor(needs: ContextNeeds, context: object): Record<string, unknown> {
  if (needs === "all") return context as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const whole = context as Record<string, unknown>;
  for (const [name, need] of needs) {
    if (!Object.hasOwn(whole, name)) continue;
    const value = whole[name];
    // A name step on an array maps over its items: only a plain object can be cut to some keys.
    if (need === "whole" || value === null || typeof value !== "object" || Array.isArray(value)) {
      out[name] = value;
      continue;
    }
    const part: Record<string, unknown> = {};
    for (const key of need) if (Object.hasOwn(value, key)) part[key] = (value as Record<string, unknown>)[key];
    out[name] = part;
  }
  return out;
}

// ---- AST analysis -------------------------------------------------------------------------------

/**
 * Built-ins whose signature has no context parameter (no `-`): called with an argument missing,
 * they never substitute the input they are called on, so calling them on the root input does
 * not read the whole context. $eval is excluded: it evaluates any text, `$$` included.
 */
const CONTEXT_FREE = new Set([
  "sum",
  "count",
  "max",
  "min",
  "average",
  "join",
  "random",
  "map",
  "zip",
  "filter",
  "single",
  "reduce",
  "append",
  "exists",
  "merge",
  "reverse",
  "error",
  "assert",
  "type",
  "sort",
  "shuffle",
  "distinct",
  "now",
  "millis",
]);
const BUILT_INS = new Set([
  ...CONTEXT_FREE,
  "string",
  "substring",
  "substringBefore",
  "substringAfter",
  "lowercase",
  "uppercase",
  "length",
  "trim",
  "pad",
  "match",
  "contains",
  "replace",
  "split",
  "formatNumber",
  "formatBase",
  "formatInteger",
  "parseInteger",
  "number",
  "floor",
  "ceil",
  "round",
  "abs",
  "sqrt",
  "power",
  "boolean",
  "not",
  "sift",
  "keys",
  "lookup",
  "spread",
  "each",
  "base64encode",
  "base64decode",
  "encodeUrlComponent",
  "encodeUrl",
  "decodeUrlComponent",
  "decodeUrl",
  "eval",
  "toMillis",
  "fromMillis",
  "clone",
]);

/** Thrown inside the walk when the expression may read anything: the analysis gives up. */
class ReadsAll extends Error {}

/**
 * Conservative by construction: every node type and field is handled explicitly, and anything
 * unknown, or any way to the root input other than by name (`$$`, `$` at the root, `%`, `@`/`#`
 * bindings, wildcards at the root, functions that may take the root as context, signatures, $eval),
 * means "all". "Root focus" is where the input is the whole context: the top, a path's first step,
 * arguments and operands there, and the bodies of lambdas defined there (evaluated on that input).
 */
function needsOf(ast: AstNode): ContextNeeds {
  const walker = new NeedsWalk();
  try {
    walker.walk(ast, true);
  } catch (err) {
    if (err instanceof ReadsAll) return "all";
    throw err;
  }
  return walker.needs;
}

/** Fields any node may have; each type's own are listed where it is walked. */
const COMMON_FIELDS = ["type", "position", "predicate", "group", "keepArray", "consarray"];

/** needsOf's walk: collects what the expression reads, and throws ReadsAll where it may read anything. */
class NeedsWalk {
  readonly needs = new Map<string, "whole" | Set<string>>();

  walk(node: unknown, root: boolean): void {
    if (!isNode(node)) throw new ReadsAll();
    if (["focus", "index", "tuple", "ancestor", "seekingParent"].some((f) => f in node)) throw new ReadsAll();
    // Predicates and group-by clauses of a non-path node run on that node's value.
    for (const stage of (node.predicate ?? []) as unknown[]) this.walkStage(stage);
    this.walkGroup(node.group);
    const expect = (...fields: string[]) => {
      if (!onlyFields(node, [...COMMON_FIELDS, ...fields])) throw new ReadsAll();
    };
    switch (node.type) {
      case "path":
        expect("steps", "keepSingletonArray");
        return this.walkPath(node.steps, root);
      case "string":
      case "number":
      case "value":
      case "regex":
        return expect("value");
      case "wildcard":
      case "descendant":
        expect("value");
        if (root) throw new ReadsAll();
        return;
      case "variable":
        expect("value");
        return readVariable(node.value, root);
      case "binary":
      case "apply":
        expect("value", "lhs", "rhs");
        this.walk(node.lhs, root);
        return this.walk(node.rhs, root);
      case "bind":
        expect("value", "lhs", "rhs");
        return this.walkBind(node, root);
      case "unary":
        expect("value", "expressions", "lhs", "expression");
        return this.walkUnary(node, root);
      case "condition":
        expect("condition", "then", "else");
        return this.walkCondition(node, root);
      case "block":
        expect("expressions");
        return eachOf(node.expressions).forEach((e) => this.walk(e, root));
      case "function":
        expect("value", "name", "arguments", "procedure");
        this.callee(node.procedure, root);
        return eachOf(node.arguments).forEach((a) => this.walk(a, root));
      case "lambda":
        expect("arguments", "signature", "body", "thunk");
        return this.walkLambda(node, root);
      case "transform":
        expect("pattern", "update", "delete");
        return this.walkTransform(node);
      default:
        // partial, parent, sort outside a path, anything newer than this analysis.
        throw new ReadsAll();
    }
  }

  private walkBind(node: AstNode, root: boolean): void {
    const lhs = node.lhs as AstNode;
    if (!isNode(lhs) || lhs.type !== "variable" || !bindable(lhs.value)) throw new ReadsAll();
    this.walk(node.rhs, root);
  }

  /** An array constructor `[…]`, an object constructor `{…}`, or a negation. */
  private walkUnary(node: AstNode, root: boolean): void {
    if (node.value === "[") return eachOf(node.expressions).forEach((e) => this.walk(e, root));
    if (node.value === "{") return pairsOf(node.lhs).forEach(([k, v]) => (this.walk(k, root), this.walk(v, root)));
    return this.walk(node.expression, root);
  }

  private walkCondition(node: AstNode, root: boolean): void {
    this.walk(node.condition, root);
    this.walk(node.then, root);
    if (node.else !== undefined) this.walk(node.else, root);
  }

  private walkLambda(node: AstNode, root: boolean): void {
    if (node.signature !== undefined) throw new ReadsAll();
    for (const param of eachOf(node.arguments))
      if (!isNode(param) || param.type !== "variable" || !bindable(param.value)) throw new ReadsAll();
    this.walk(node.body, root);
  }

  /** A function of its argument: its pattern and updates never see the root. */
  private walkTransform(node: AstNode): void {
    this.walk(node.pattern, false);
    this.walk(node.update, false);
    if (node.delete !== undefined) this.walk(node.delete, false);
  }

  private walkPath(stepsField: unknown, root: boolean): void {
    const steps = eachOf(stepsField);
    steps.forEach((step, i) => {
      const first = i === 0 && root;
      if (!first || !isNode(step) || step.type !== "name") return this.walkStep(step, first);
      this.walkStep(step, false);
      const next = steps[1];
      // `steps.fetch…` reads `steps.fetch` only, unless `steps` itself is filtered or grouped.
      if (
        step.stages === undefined &&
        step.group === undefined &&
        isNode(next) &&
        next.type === "name" &&
        typeof next.value === "string"
      ) {
        this.child(String(step.value), next.value);
      } else {
        this.whole(String(step.value));
      }
    });
  }

  /** A path step: a name (with its filters), a sort, or any expression (walked on the step's input). */
  private walkStep(step: unknown, root: boolean): void {
    if (!isNode(step)) throw new ReadsAll();
    if (step.type === "name") {
      if (
        !onlyFields(step, ["type", "value", "position", "stages", "group", "keepArray"]) ||
        typeof step.value !== "string"
      )
        throw new ReadsAll();
      if (root) this.whole(step.value);
      for (const stage of eachOf(step.stages ?? [])) this.walkStage(stage);
      return this.walkGroup(step.group);
    }
    if (step.type === "sort") {
      if (!onlyFields(step, ["type", "position", "terms", "stages"])) throw new ReadsAll();
      for (const term of eachOf(step.terms)) this.walk((term as { expression?: unknown }).expression, false);
      for (const stage of eachOf(step.stages ?? [])) this.walkStage(stage);
      return;
    }
    if ("stages" in step) {
      for (const stage of eachOf(step.stages)) this.walkStage(stage);
      const { stages: _stages, ...rest } = step;
      return this.walk(rest, root);
    }
    return this.walk(step, root);
  }

  private walkStage(stage: unknown): void {
    if (!isNode(stage) || stage.type !== "filter") throw new ReadsAll();
    this.walk(stage.expr, false);
  }

  private walkGroup(group: unknown): void {
    if (group === undefined) return;
    for (const [k, v] of pairsOf((group as { lhs?: unknown }).lhs)) {
      this.walk(k, false);
      this.walk(v, false);
    }
  }

  private callee(procedure: unknown, root: boolean): void {
    if (!isNode(procedure)) throw new ReadsAll();
    if (procedure.type !== "variable") {
      if (root) throw new ReadsAll();
      return this.walk(procedure, root);
    }
    const name = procedure.value;
    if (typeof name !== "string" || name === "$" || name === "" || name === "eval") throw new ReadsAll();
    if (root && BUILT_INS.has(name) && !CONTEXT_FREE.has(name)) throw new ReadsAll();
  }

  private whole(name: string): void {
    this.needs.set(name, "whole");
  }

  private child(name: string, key: string): void {
    const need = this.needs.get(name);
    if (need === "whole") return;
    this.needs.set(name, (need ?? new Set<string>()).add(key));
  }
}

function readVariable(name: unknown, root: boolean): void {
  if (typeof name !== "string") throw new ReadsAll();
  // `$$` is the root wherever it appears; `$` is the root at the root.
  if (name === "$" || (name === "" && root)) throw new ReadsAll();
  // A built-in that may take its caller's input, passed around as a value, may be called on the root.
  if (BUILT_INS.has(name) && !CONTEXT_FREE.has(name)) throw new ReadsAll();
}

/** Rebinding a built-in, `$` or `$$` would break the reasoning above, which goes by name. */
function bindable(name: unknown): boolean {
  return typeof name === "string" && name !== "" && name !== "$" && !BUILT_INS.has(name);
}

function isNode(x: unknown): x is AstNode {
  return x !== null && typeof x === "object" && !Array.isArray(x) && typeof (x as { type?: unknown }).type === "string";
}

function eachOf(x: unknown): unknown[] {
  if (!Array.isArray(x)) throw new ReadsAll();
  return x;
}

function pairsOf(x: unknown): [unknown, unknown][] {
  return eachOf(x).map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new ReadsAll();
    return [pair[0], pair[1]];
  });
}
