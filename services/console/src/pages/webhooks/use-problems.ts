import { useState } from "react";
import { ApiError, type FieldProblem } from "../../api/client";
import type { WebhookView, WorkflowVariable } from "../../api/types";
import { localProblems, placeProblems, type Problems, type WebhookForm } from "./form-state";

/** The problems of a webhook form: found before sending, or named by the service's 400. */
export function useProblems() {
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<Problems>({});
  const [unplaced, setUnplaced] = useState<FieldProblem[]>([]);
  return {
    problems,
    /**
     * The summary above the form, as FormError's props: the service's refusal (its problems that no
     * input shows listed), or, before anything is sent, the form's own check pointing at the fields.
     */
    summary: {
      error: error ?? (Object.keys(problems).length > 0 ? "Correct the fields marked below." : null),
      placed: (d: FieldProblem) => !unplaced.some((u) => u.field === d.field && u.message === d.message),
      refused: "The service refused the webhook: correct the fields marked below.",
    },
    /** True when the form may be sent; otherwise its problems are shown. `variables`: the workflow's, once known. */
    check(
      form: WebhookForm,
      current: WebhookView | null,
      variables: Record<string, WorkflowVariable> | undefined,
    ): boolean {
      const found = localProblems(form, current, variables);
      setError(null);
      setUnplaced([]);
      setProblems(found);
      return Object.keys(found).length === 0;
    },
    clear(): void {
      setError(null);
      setProblems({});
      setUnplaced([]);
    },
    fail(err: unknown, form: WebhookForm): void {
      setError(err);
      const placed = placeProblems(err instanceof ApiError ? err.details : [], form);
      setProblems(placed.placed);
      setUnplaced(placed.unplaced);
    },
  };
}
