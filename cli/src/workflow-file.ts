import { readFile } from "node:fs/promises";
import type { Plan } from "@wf/shared/auth";
import { formatIssues, workflowTextValidation, type Workflow } from "@wf/shared/workflow";
import { UsageError } from "./usage";

export type LoadedWorkflow =
  | {
      ok: true;
      workflow: Workflow;
      text: string;
      /**
       * The file's mistakes for an owner on `plan` (its code steps' timeouts), from the same parse, as a report; null
       * if none.
       */
      mistakesFor(plan: Plan): string | null;
    }
  | { ok: false; report: string };

/**
 * Reads and checks a workflow file. An unreadable file is a usage error (exit 2); a file with
 * mistakes is a result, reported as compiler-style `file:line:col` lines.
 */
export async function loadWorkflowFile(file: string): Promise<LoadedWorkflow> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (err as Error).message;
    throw new UsageError(`cannot read workflow file ${file}: ${why}`);
  }
  const validated = workflowTextValidation(text);
  const parsed = validated();
  if (!parsed.ok) return { ok: false, report: formatIssues(parsed.errors, file) };
  const mistakesFor = (plan: Plan) => {
    const withinPlan = validated({ plan });
    return withinPlan.ok ? null : formatIssues(withinPlan.errors, file);
  };
  return { ok: true, workflow: parsed.workflow, text, mistakesFor };
}
