import { coerceVariable, resolveVariables, type Workflow } from "@wf/shared/workflow";
import { UsageError } from "./usage";

/**
 * The execution's inputs from `--var name=value` flags, typed by the workflow's declarations.
 * Every problem is reported at once (unknown names with a suggestion, bad values, missing
 * required variables), as a usage error: nothing is started.
 */
export function collectInputs(workflow: Workflow, pairs: readonly string[]): Record<string, unknown> {
  const defs = workflow.variables ?? {};
  // A Map, turned into an object at the end, so a name like `__proto__` stays a plain key.
  const inputs = new Map<string, unknown>();
  const problems = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) {
      problems.set(pair, `--var ${pair}: expected name=value`);
      continue;
    }
    const name = pair.slice(0, eq);
    const def = Object.hasOwn(defs, name) ? defs[name] : undefined;
    // An unknown name is passed on as text: resolveVariables below names it, with a suggestion.
    const coerced =
      def === undefined ? { ok: true as const, value: pair.slice(eq + 1) } : coerceVariable(def, pair.slice(eq + 1));
    if (coerced.ok) inputs.set(name, coerced.value);
    else problems.set(name, `--var ${name}: ${coerced.message}`);
  }
  const resolved = resolveVariables(workflow, Object.fromEntries(inputs));
  if (!resolved.ok) {
    // A value that did not coerce is absent here; its own message already says why.
    for (const e of resolved.errors) if (!problems.has(e.name)) problems.set(e.name, `--var ${e.name}: ${e.message}`);
  }
  if (problems.size > 0) throw new UsageError([...problems.values()].join("\n"));
  return Object.fromEntries(inputs);
}
