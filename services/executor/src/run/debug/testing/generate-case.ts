import { Breakpoint, withBreakpointIds, type BreakpointInput } from "@wf/shared/execution";
import { pick, type Random } from "@wf/shared/testing";

/** A step of a generated workflow, as the model of its run (run-model.ts) reads it. */
export type CaseStep =
  | { name: string; kind: "transform"; output: number }
  /**
   * Fails its first `fails` attempts (fewer than `maxAttempts`, so it ends completed). Each attempt takes `ticks[item]`
   * turns of the microtask queue in the iteration of that item (`null` outside a foreach): concurrent branches finish
   * it in another order than they started it, so come to their points behind a pause out of the run's order.
   */
  | { name: string; kind: "code"; fails: number; maxAttempts: number; ticks: Record<string, number> }
  /** One LLM call. */
  | { name: string; kind: "llm" }
  /** An LLM call asking for the tool `crm/lookup`, the tool call, and an LLM call that answers. */
  | { name: string; kind: "agent" }
  /**
   * Inside another foreach, its items are `item * 100 + n` for each `n` of `items` (the outer
   * item's): every iteration of every foreach has an item of its own.
   */
  | { name: string; kind: "foreach"; items: number[]; nested: boolean; concurrency: number; steps: CaseStep[] }
  | { name: string; kind: "parallel"; branches: CaseStep[][] };

export interface DebugCase {
  steps: CaseStep[];
  breakpoints: Breakpoint[];
  /** The workflow definition of `steps`. */
  definition: Record<string, unknown>;
}

/** Each LLM call uses this many tokens. */
export const TOKENS_PER_CALL = 4;

/**
 * How many microtask turns a code step's attempt may take: none, or more than the awaits a step of another branch
 * takes from its start to its next point, so that the slower branch comes there after the faster. Microtasks keep the
 * order the same at every replay of a seed, as timers would not.
 */
const CODE_TICKS = [0, 100, 250, 500, 1000];

/** The share of cases with a foreach whose items all run at once (`wide` in generateCase), in place of a step. */
const WIDE_SHARE = 0.3;

/** The share of cases given a breakpoint that three or more iterations at once come to (`queueing`), if one can be. */
const QUEUEING_SHARE = 0.8;

function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * A workflow of foreach and parallel steps nested up to two deep, with concurrency, steps that
 * fail and retry, LLM and agent steps, and one to five breakpoints of the nine types over it.
 * Item values are unique in the run, so that an item says which iteration a step runs in.
 * LLM and agent steps sit at the top level when a usage breakpoint may watch them: the totals a
 * call sees are then those of the calls before it in the workflow's order. Code steps take each
 * item its own time, and many cases have a foreach whose items all run at once and a breakpoint
 * its items come to behind one another's pauses, so that they wait their turn out of their order.
 */
export function generateCase(random: Random): DebugCase {
  let names = 0;
  let items = 0;
  /** Every item value the run's iterations have. */
  const values: number[] = [];
  const sequentialCalls = random() < 0.5;
  const list = (depth: number, outer: number[] | null, min: number, max: number): CaseStep[] =>
    Array.from({ length: between(random, min, max) }, () => step(depth, outer));
  /** A code step failing its first `fails` attempts, each of them taking its own time in each iteration of `outer`. */
  const code = (name: string, outer: number[] | null, fails: number): CaseStep => {
    const ticks = Object.fromEntries((outer ?? [null]).map((item) => [String(item), pick(random, CODE_TICKS)]));
    return { name, kind: "code", fails, maxAttempts: fails + between(random, 1, 2), ticks };
  };
  /**
   * A foreach of three or four items, all at once, through a code step first: its items come to their next points
   * behind one another's pauses, out of their order (docs/debugger.md#waiting-their-turn).
   */
  const wide = (): CaseStep => {
    const own = Array.from({ length: between(random, 3, 4) }, () => ++items);
    values.push(...own);
    const first = code(`s${++names}`, own, 0);
    return {
      name: `s${++names}`,
      kind: "foreach",
      items: own,
      nested: false,
      concurrency: own.length,
      steps: [first, ...list(1, own, 0, 1)],
    };
  };
  /** `outer`: the item values of the foreach iterations this step runs in (null: none). */
  const step = (depth: number, outer: number[] | null): CaseStep => {
    const name = `s${++names}`;
    const kinds = [
      "transform",
      "code",
      "code",
      ...(depth < 2 ? ["foreach", "parallel"] : []),
      ...(depth === 0 || !sequentialCalls ? ["llm", "agent"] : []),
    ];
    switch (pick(random, kinds)) {
      case "code":
        return code(name, outer, pick(random, [0, 0, 1, 2]));
      case "llm":
        return { name, kind: "llm" };
      case "agent":
        return { name, kind: "agent" };
      case "foreach": {
        const own = Array.from({ length: between(random, 1, 4) }, () => ++items);
        const inner = outer === null ? own : outer.flatMap((o) => own.map((n) => o * 100 + n));
        values.push(...inner);
        return {
          name,
          kind: "foreach",
          items: own,
          nested: outer !== null,
          concurrency: between(random, 1, 3),
          steps: list(depth + 1, inner, 1, 2),
        };
      }
      case "parallel":
        return { name, kind: "parallel", branches: [list(depth + 1, outer, 1, 2), list(depth + 1, outer, 1, 2)] };
      default:
        return { name, kind: "transform", output: between(random, 1, 9) };
    }
  };
  const steps = list(0, null, 2, 4);
  if (random() < WIDE_SHARE) steps.splice(between(random, 0, steps.length - 1), 1, wide());
  const inputs = Array.from({ length: between(random, 1, 5) }, () =>
    breakpoint(random, steps, sequentialCalls, values),
  );
  if (random() < QUEUEING_SHARE) inputs.splice(between(random, 0, inputs.length), 0, queueing(random, steps));
  const breakpoints = withBreakpointIds(inputs.flatMap((bp) => (bp ? [Breakpoint.parse(bp)] : [])));
  return { steps, breakpoints, definition: { name: "generated", steps: steps.map(definitionOf), agents: AGENTS } };
}

export const AGENTS = [{ name: "helper", model: "m", mcp: [{ name: "crm", url: "http://crm.invalid/mcp" }] }];

function definitionOf(step: CaseStep): Record<string, unknown> {
  switch (step.kind) {
    case "transform":
      return { name: step.name, type: "transform", output: step.output };
    case "code":
      return {
        name: step.name,
        type: "code",
        language: "python",
        code: step.name,
        ...(step.maxAttempts > 1
          ? { retry: { max_attempts: step.maxAttempts, backoff: "fixed", initial_delay: 0.001 } }
          : {}),
      };
    case "llm":
      return { name: step.name, type: "llm", model: "m", prompt: step.name };
    case "agent":
      return { name: step.name, type: "agent", agent: "helper", prompt: step.name };
    case "foreach":
      return {
        name: step.name,
        type: "foreach",
        items: step.nested ? `{{ [${step.items.map((n) => `item * 100 + ${n}`).join(", ")}] }}` : step.items,
        concurrency: step.concurrency,
        steps: step.steps.map(definitionOf),
      };
    case "parallel":
      return {
        name: step.name,
        type: "parallel",
        branches: Object.fromEntries(step.branches.map((b, i) => [`b${i}`, b.map(definitionOf)])),
      };
  }
}

/** Where a step runs: at the top level, or not; in how many iterations at once at most (foreach items run at once). */
interface Place {
  topLevel: boolean;
  atOnce: number;
}

/** Every step with the path patterns a breakpoint may name it by: `[*]` for its foreach items, or one item's index. */
function stepsWithPatterns(
  random: Random,
  steps: CaseStep[],
  prefixes: string[] = [""],
  place: Place = { topLevel: true, atOnce: 1 },
): ({ step: CaseStep; pattern: string } & Place)[] {
  return steps.flatMap((step) => {
    const here = { step, pattern: `${pick(random, prefixes)}${step.name}`, ...place };
    if (step.kind === "foreach") {
      const inner = prefixes.flatMap((p) => [
        `${p}${step.name}[*].`,
        `${p}${step.name}[${between(random, 0, step.items.length - 1)}].`,
      ]);
      const atOnce = place.atOnce * Math.min(step.concurrency, step.items.length);
      return [here, ...stepsWithPatterns(random, step.steps, inner, { topLevel: false, atOnce })];
    }
    if (step.kind === "parallel")
      return [
        here,
        ...step.branches.flatMap((b) => stepsWithPatterns(random, b, prefixes, { ...place, topLevel: false })),
      ];
    return [here];
  });
}

/**
 * A breakpoint after (or at the tool call of) a step that three or more iterations run at once, in all of them: the
 * first there pauses, and two or more come there behind its pause one after another, to wait their turn. A code or an
 * agent step, under way in the others as the first pauses (they would stop before any other, at its boundary): their
 * code comes to the point in the order of its ticks, not of the iterations; null if no step runs so.
 */
function queueing(random: Random, steps: CaseStep[]): BreakpointInput | null {
  const beside = stepsWithPatterns(random, steps).filter((s) => s.atOnce >= 3);
  // Not one that fails: its retry's backoff is a timer, whose turn lets each iteration in turn run to its point.
  const slow = beside.filter((s) => (s.step.kind === "code" && s.step.fails === 0) || s.step.kind === "agent");
  if (slow.length === 0) return null;
  const { step, pattern } = pick(random, slow);
  const every = pattern.replace(/\[\d+\]/g, "[*]");
  return step.kind === "agent" && random() < 0.5
    ? { type: "tool_call", step: every }
    : { type: "after_step", step: every };
}

function breakpoint(
  random: Random,
  steps: CaseStep[],
  sequentialCalls: boolean,
  values: number[],
): BreakpointInput | null {
  const all = stepsWithPatterns(random, steps);
  const of = (kinds: CaseStep["kind"][]) => all.filter((s) => kinds.includes(s.step.kind));
  const maybe = <T>(value: T) => (random() < 0.5 ? value : undefined);
  const common = { ...(random() < 0.1 ? { enabled: false } : {}) };
  switch (
    pick(random, [
      "before_step",
      "after_step",
      "on_error",
      "conditional",
      "watch",
      "foreach_item",
      "on_retry",
      "tool_call",
      "usage",
    ] as const)
  ) {
    case "before_step":
      return { ...common, type: "before_step", step: pick(random, all).pattern };
    case "after_step":
      return { ...common, type: "after_step", step: pick(random, all).pattern };
    case "on_error": {
      const failing = of(["code"]);
      return {
        ...common,
        type: "on_error",
        ...(failing.length > 0 ? { step: maybe(pick(random, failing).pattern) } : {}),
      };
    }
    case "conditional":
      return values.length === 0
        ? null
        : { ...common, type: "conditional", expression: `item = ${pick(random, values)}` };
    case "watch": {
      // A watched step at the top level completes while nothing else runs: its value changes there.
      const watched = all.filter((s) => s.topLevel && s.step.kind === "transform");
      return watched.length === 0
        ? null
        : { ...common, type: "watch", expression: `steps.${pick(random, watched).step.name}.output` };
    }
    case "foreach_item": {
      const loops = of(["foreach"]);
      if (loops.length === 0) return null;
      const loop = pick(random, loops);
      const items = (loop.step as Extract<CaseStep, { kind: "foreach" }>).items;
      const by = pick(random, ["index", "expression", "every"]);
      return {
        ...common,
        type: "foreach_item",
        step: loop.pattern,
        ...(by === "index"
          ? { index: between(random, 0, items.length - 1) }
          : by === "expression"
            ? { expression: `item = ${pick(random, values)}` }
            : {}),
      };
    }
    case "on_retry": {
      const failing = of(["code"]);
      return {
        ...common,
        type: "on_retry",
        ...(failing.length > 0 ? { step: maybe(pick(random, failing).pattern) } : {}),
        ...(random() < 0.3 ? { attempt: between(random, 2, 3) } : {}),
      };
    }
    case "tool_call": {
      const agents = of(["agent"]);
      return {
        ...common,
        type: "tool_call",
        ...(agents.length > 0 ? { step: maybe(pick(random, agents).pattern) } : {}),
        ...(random() < 0.3 ? { server: "crm" } : {}),
        ...(random() < 0.3 ? { tool: "lookup" } : {}),
      };
    }
    case "usage":
      return sequentialCalls ? { ...common, type: "usage", tokens: TOKENS_PER_CALL * between(random, 1, 4) } : null;
  }
}
