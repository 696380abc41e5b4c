import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { ExpressionContext } from "@wf/shared/expressions";

/**
 * Where a step runs: `prefix` makes its path unique (`each[2].` inside a foreach iteration),
 * `item` is the foreach item, and `prefixes` lists the enclosing iterations' prefixes, innermost
 * first, so `steps.<name>` resolves to the nearest run of that name.
 */
export interface Scope {
  prefix: string;
  prefixes: string[];
  item?: unknown;
  /** The approved rows per group, inside a step gated by `manual_approval`. */
  approval?: Record<string, unknown>;
  /** The owner's secrets, `secrets.<name>` (empty unless the workflow reads them). */
  secrets: Readonly<Record<string, string>>;
  signal: AbortSignal;
}

export function rootScope(signal: AbortSignal, secrets: Readonly<Record<string, string>>): Scope {
  return { prefix: "", prefixes: [""], secrets, signal };
}

export function iterationScope(
  parent: Scope,
  stepPath: string,
  index: number,
  item: unknown,
  signal: AbortSignal,
): Scope {
  const prefix = `${stepPath}[${index}].`;
  return { ...parent, prefix, prefixes: [prefix, ...parent.prefixes], item, signal };
}

/** The expression context of a step: only what the format promises, nothing else. */
export function expressionContext(
  snap: ExecutionSnapshot,
  stepNames: readonly string[],
  scope: Scope,
): ExpressionContext {
  const steps: Record<string, unknown> = {};
  for (const name of stepNames) {
    for (const prefix of scope.prefixes) {
      const st = snap.steps[prefix + name];
      if (st) {
        steps[name] = { output: st.output ?? null, status: st.status, duration: st.duration, error: st.error };
        break;
      }
    }
  }
  return {
    vars: snap.vars,
    steps,
    item: scope.item,
    ...(scope.approval === undefined ? {} : { approval: scope.approval }),
    execution: {
      id: snap.id,
      workflowId: snap.workflowId,
      workflowName: snap.workflowName,
      triggerSource: snap.triggerSource,
      startedAt: snap.startedAt,
    },
    secrets: scope.secrets,
  };
}
