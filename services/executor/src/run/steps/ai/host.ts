import type { StepState } from "@wf/shared/execution";
import type { StepContext } from "../step-kind";

/** What an `llm` or `agent` step needs of the run that executes it. */
export type AiStepHost = Pick<StepContext, "committer" | "effects" | "workflow" | "render" | "debug">;

/** A monitored step's input, cut to its limit and accounted in the record. */
export function keepInput(host: AiStepHost, path: string, st: StepState, input: unknown): void {
  st.input = host.committer.budget.input(input);
  host.committer.budget.account(path, st);
}
