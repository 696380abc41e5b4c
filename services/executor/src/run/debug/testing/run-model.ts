import { stepMatches, type Breakpoint, type DebugCommandName, type PausePhase } from "@wf/shared/execution";
import { TOKENS_PER_CALL, type CaseStep, type DebugCase } from "./generate-case";

/** A point of the run as docs/debugger.md names it: a phase of a step, and which time it comes there. */
export interface ModelPoint {
  phase: PausePhase;
  path: string;
  occurrence: number;
}

/** One string per point, for maps and messages. */
export function pointKey(p: { phase: string; occurrence: number } & ({ path: string } | { stepPath: string })): string {
  return `${p.phase} ${"path" in p ? p.path : p.stepPath} ${p.occurrence}`;
}

export interface ModelRun {
  /** The breakpoint that pauses at each point where one hits (the first in the list), by point key. */
  expected: Map<string, { point: ModelPoint; breakpointId: string }>;
  /** Every step's path, and whether the debugger skipped it. */
  steps: Map<string, "COMPLETED" | "SKIPPED">;
  /**
   * The LLM calls the run makes: one per llm step, two per agent step (its tool call, then its answer), none made again
   * (an attempt resumed from a pause inside it goes on from there).
   */
  llmCalls: number;
}

/**
 * What a point holds that breakpoints read: the innermost item, and before an LLM call the usage so far and the call's
 * estimate.
 */
interface Seen {
  item?: number;
  totals?: number;
  estimate?: number;
}

/**
 * The run of a generated workflow as docs/debugger.md describes it, written apart from the
 * engine: the points it passes in order, given the command that answered each pause, and the
 * breakpoint each point pauses at. Concurrent branches may pass their points in another order;
 * nothing here depends on it (LLM calls, whose totals do, are generated in the top-level sequence).
 */
export function modelRun(c: DebugCase, commands: ReadonlyMap<string, DebugCommandName>): ModelRun {
  const expected: ModelRun["expected"] = new Map();
  const steps: ModelRun["steps"] = new Map();
  let calls = 0;

  /** The point is passed: the first enabled breakpoint that hits there pauses; answers the command given there. */
  const reach = (point: ModelPoint, seen: Seen): DebugCommandName | undefined => {
    const bp = c.breakpoints.find((b) => b.enabled && hits(b, point, seen));
    if (bp) expected.set(pointKey(point), { point, breakpointId: bp.id! });
    return commands.get(pointKey(point));
  };
  const llmCall = (path: string, occurrence: number, estimate: number) => {
    reach({ phase: "llm_call", path, occurrence }, { totals: calls * TOKENS_PER_CALL, estimate });
    calls++;
  };

  const walk = (list: CaseStep[], prefix: string, item: number | undefined, depth: number): void => {
    for (const step of list) {
      const path = prefix + step.name;
      if (reach({ phase: "before", path, occurrence: 0 }, { item }) === "skip") {
        steps.set(path, "SKIPPED");
        continue;
      }
      if (!attempts(step, path, item, depth)) {
        steps.set(path, "SKIPPED");
        continue;
      }
      steps.set(path, "COMPLETED");
      reach({ phase: "after", path, occurrence: 0 }, { item });
    }
  };

  /** The step's attempts up to its success; false if the debugger skipped it on the way. */
  const attempts = (step: CaseStep, path: string, item: number | undefined, depth: number): boolean => {
    switch (step.kind) {
      case "code":
        for (let attempt = 1; attempt <= step.fails;) {
          const atError = reach({ phase: "error", path, occurrence: attempt }, { item });
          if (atError === "skip") return false;
          attempt++;
          if (atError === "retry") continue;
          if (reach({ phase: "retry", path, occurrence: attempt }, { item }) === "skip") return false;
        }
        return true;
      case "llm":
        llmCall(path, 1, 0);
        return true;
      case "agent":
        llmCall(path, 1, 0);
        reach({ phase: "tool_call", path, occurrence: 1 }, { item });
        llmCall(path, 2, TOKENS_PER_CALL);
        return true;
      case "foreach":
        step.items.forEach((own, i) => {
          const value = step.nested ? item! * 100 + own : own;
          reach({ phase: "item", path, occurrence: i }, { item: value });
          walk(step.steps, `${path}[${i}].`, value, depth + 1);
        });
        return true;
      case "parallel":
        for (const branch of step.branches) walk(branch, prefix(path, step.name), item, depth + 1);
        return true;
      default:
        return true;
    }
  };

  walk(c.steps, "", undefined, 0);
  return { expected, steps, llmCalls: calls };
}

/**
 * The point paused at next after a pause at which the points `listed` waited their turn (debug.waiting, keys in the
 * order their branches came to them), whatever command answered it: the first of them where a breakpoint pauses
 * (docs/debugger.md#waiting-their-turn), not the first the run comes back to. Undefined: the rule says nothing.
 */
export function nextInTurn(listed: readonly string[], expected: ModelRun["expected"]): string | undefined {
  return listed.find((key) => expected.has(key));
}

/** How deep each step sits (by name): 0 at the top level, one more inside each foreach or parallel. */
export function stepDepths(list: CaseStep[], depth = 0, into = new Map<string, number>()): Map<string, number> {
  for (const step of list) {
    into.set(step.name, depth);
    if (step.kind === "foreach") stepDepths(step.steps, depth + 1, into);
    if (step.kind === "parallel") for (const branch of step.branches) stepDepths(branch, depth + 1, into);
  }
  return into;
}

/** A parallel's branch steps sit beside it, under its own prefix. */
function prefix(path: string, name: string): string {
  return path.slice(0, path.length - name.length);
}

/** `item = 3` → 3: the only expressions the generator writes over items. */
function itemOf(expression: string): number {
  return Number(/^item = (\d+)$/.exec(expression)![1]);
}

/** `steps.s4.output` → s4: the only expressions the generator watches. */
function watchedStep(expression: string): string {
  return /^steps\.(\w+)\.output$/.exec(expression)![1]!;
}

function hits(bp: Breakpoint, p: ModelPoint, seen: Seen): boolean {
  const at = (step: string | undefined) => step === undefined || stepMatches(step, p.path);
  switch (bp.type) {
    case "before_step":
      return p.phase === "before" && at(bp.step);
    case "after_step":
      return p.phase === "after" && at(bp.step);
    case "on_error":
      return p.phase === "error" && at(bp.step);
    case "conditional":
      return p.phase === "before" && seen.item === itemOf(bp.expression);
    case "watch":
      // A watched step's output changes from nothing to its output where it completes.
      return p.phase === "after" && p.path === watchedStep(bp.expression);
    case "foreach_item":
      return (
        p.phase === "item" &&
        at(bp.step) &&
        (bp.index === undefined || bp.index === p.occurrence) &&
        (bp.expression === undefined || seen.item === itemOf(bp.expression))
      );
    case "on_retry":
      return p.phase === "retry" && at(bp.step) && (bp.attempt === undefined || bp.attempt === p.occurrence);
    case "tool_call":
      return (
        p.phase === "tool_call" && at(bp.step) && (bp.server ?? "crm") === "crm" && (bp.tool ?? "lookup") === "lookup"
      );
    case "usage":
      return p.phase === "llm_call" && bp.tokens !== undefined && seen.totals! + seen.estimate! >= bp.tokens;
  }
}
