import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearchParams } from "react-router";
import { api } from "../../api/client";
import type { ExecutionView, RerunBody, RerunPlan, RerunResponse } from "../../api/types";
import { Modal } from "../../ui/confirm";
import { formatCost, formatNumber } from "../../ui/format";
import { FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { fetchWorkflow, workflowKeys } from "../workflows/queries";
import { JsonField, parseJson } from "./JsonField";
import { executionPath, keys } from "./queries";
import { stepsViewSearch } from "./RunSteps";
import { VersionChanges } from "./VersionChanges";
import { VersionChoice, type Choice } from "./VersionChoice";

export type RerunSource = Pick<ExecutionView, "id" | "workflowId" | "workflowVersion">;

/**
 * Rerun from a step: which version to run (the latest saved, when one was saved since), what it
 * changes, the plan (what is reused, what it saves), then, confirmed, the new execution.
 */
export function RerunDialog({
  execution,
  fromStep,
  onClose,
}: {
  execution: RerunSource;
  fromStep: string | null;
  onClose(): void;
}) {
  return (
    <Modal open={fromStep !== null} title={`Rerun from ${fromStep ?? ""}`} onClose={onClose}>
      {fromStep !== null ? <RerunForm execution={execution} fromStep={fromStep} onClose={onClose} /> : null}
    </Modal>
  );
}

/** `version`: a stored version to run instead of the one the execution ran. */
function bodyOf(fromStep: string, variables: string, version: number | null): RerunBody {
  const parsed = parseJson(variables, { object: true, optional: true });
  return {
    fromStep,
    ...(parsed.ok && parsed.value !== undefined ? { inputs: parsed.value as Record<string, unknown> } : {}),
    ...(version === null ? {} : { version }),
  };
}

/** The dry run of a rerun: what it would reuse and run, and what it saves; nothing is started. */
function usePlan(executionId: string, body: RerunBody, enabled: boolean) {
  return useQuery({
    queryKey: ["rerun-plan", executionId, body],
    queryFn: ({ signal }) =>
      api<RerunPlan>(
        "POST",
        `/api/console/executions/${encodeURIComponent(executionId)}/rerun?dryRun=true`,
        body,
        signal,
      ),
    enabled,
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });
}

function RerunForm({ execution, fromStep, onClose }: { execution: RerunSource; fromStep: string; onClose(): void }) {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const toast = useToast();
  const queries = useQueryClient();
  const [text, setText] = useState("");
  // The variables the plan shown was made with: the rerun starts with exactly those.
  const [checked, setChecked] = useState("");
  const [picked, setPicked] = useState<Choice | null>(null);
  const parsed = parseJson(text, { object: true, optional: true });

  const workflow = useQuery({
    queryKey: workflowKeys.detail(execution.workflowId),
    queryFn: ({ signal }) => fetchWorkflow(execution.workflowId, signal),
  });
  // A version saved since the execution ran is offered, and chosen unless it changes a step the rerun reuses.
  const latest = workflow.data && workflow.data.version !== execution.workflowVersion ? workflow.data.version : null;
  const latestPlan = usePlan(execution.id, bodyOf(fromStep, checked, latest), latest !== null);
  const decided: Choice | null = workflow.isPending
    ? null
    : latest === null || latestPlan.isError
      ? "ran"
      : latestPlan.isSuccess
        ? "latest"
        : null;
  const chosen = picked ?? decided;
  const ranPlan = usePlan(execution.id, bodyOf(fromStep, checked, null), chosen === "ran");
  const plan = chosen === "latest" ? latestPlan : chosen === "ran" ? ranPlan : null;
  const body = bodyOf(fromStep, checked, chosen === "latest" ? latest : null);

  const start = useMutation({
    mutationFn: () =>
      api<RerunResponse>("POST", `/api/console/executions/${encodeURIComponent(execution.id)}/rerun`, body),
    onSuccess: (answer) => {
      toast(`Rerun started from ${fromStep}`);
      void queries.invalidateQueries({ queryKey: keys.lists });
      // A rerun never saves a version, but the choice above was made against this one: read it afresh next time.
      void queries.invalidateQueries({ queryKey: workflowKeys.detail(execution.workflowId) });
      onClose();
      // The new page shows the planned saving from this answer until an executor has built the rerun, and its steps
      // in the view the rerun was started from (the list's row, or a step selected on the canvas or timeline).
      void navigate(
        { pathname: executionPath(answer.executionId), search: stepsViewSearch(params) },
        { state: { rerun: answer } },
      );
    },
  });
  const dirty = text.trim() !== checked.trim();

  return (
    <div className="stack rerun-form">
      <p className="muted">
        The steps before <code>{fromStep}</code> keep what this execution recorded (outputs, artifacts, usage) and do
        not run again; <code>{fromStep}</code> and the steps after it run.
      </p>
      {latest !== null ? (
        <>
          <VersionChoice
            latest={latest}
            ran={execution.workflowVersion}
            fromStep={fromStep}
            chosen={chosen}
            latestPlan={latestPlan}
            onPick={setPicked}
          />
          <VersionChanges workflowId={execution.workflowId} from={execution.workflowVersion} to={latest} />
        </>
      ) : workflow.data ? (
        <p className="muted small">
          Runs v{workflow.data.version}, the version this execution ran and the latest saved.
        </p>
      ) : null}
      {plan === null || plan.isPending ? <Loading what="Planning the rerun" /> : null}
      {plan?.isError ? <FormError error={plan.error} /> : null}
      {plan?.data ? <PlanView plan={plan.data} /> : null}
      <JsonField
        label="Variables (optional)"
        hint="A JSON object replacing the execution's variables; leave empty to keep them. Reused outputs stay as recorded."
        value={text}
        onChange={setText}
        parsed={parsed}
        rows={3}
      />
      <FormError error={start.error} />
      <div className="row end">
        {dirty ? (
          <button type="button" disabled={!parsed.ok} onClick={() => setChecked(text)}>
            Check the plan with these variables
          </button>
        ) : null}
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          disabled={!plan?.isSuccess || dirty || start.isPending}
          title={dirty ? "Check the plan with the changed variables first" : undefined}
          onClick={() => start.mutate()}
        >
          {start.isPending ? "Starting…" : `Rerun from ${fromStep}`}
        </button>
      </div>
    </div>
  );
}

function PlanView({ plan }: { plan: RerunPlan }) {
  const saved = plan.savedUsage;
  return (
    <div className="rerun-plan stack" aria-label="Rerun plan">
      <div className="grid-2">
        <div>
          <h3>Reused, not run again ({plan.reusedSteps.length})</h3>
          {plan.reusedSteps.length === 0 ? (
            <p className="muted">None: every step runs.</p>
          ) : (
            <ul className="plan-steps">
              {plan.reusedSteps.map((s) => (
                <li key={s}>
                  <span aria-hidden="true">↺ </span>
                  <code>{s}</code>
                  {plan.editedSteps.includes(s) ? (
                    <>
                      {" "}
                      <span className="badge edited">edited</span>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          {plan.editedSteps.length > 0 ? <EditedNote steps={plan.editedSteps} /> : null}
        </div>
        <div>
          <h3>Run ({plan.rerunSteps.length})</h3>
          <ul className="plan-steps">
            {plan.rerunSteps.map((s) => (
              <li key={s}>
                <span aria-hidden="true">▶ </span>
                <code>{s}</code>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <div className="saving" role="note" aria-label="Saving">
        {saved.totalTokens > 0 || saved.costUsd > 0 ? (
          <>
            Saves <strong>{formatNumber(saved.totalTokens)} tokens</strong> ({formatNumber(saved.promptTokens)} prompt,{" "}
            {formatNumber(saved.completionTokens)} completion) and <strong>{formatCost(saved.costUsd)}</strong>: the
            reused steps' LLM calls are not made again.
          </>
        ) : (
          <>
            Saves no tokens or cost: the reused steps made no LLM calls (their time and side effects are still saved).
          </>
        )}
      </div>
    </div>
  );
}

/** The reused steps that stand on a debugger's edit: the rerun goes on from the edited value, not the step's own. */
function EditedNote({ steps }: { steps: string[] }) {
  return (
    <p className="edited-note" role="note" aria-label="Edited in the debugger">
      {steps.map((s, i) => (
        <span key={s}>
          {i > 0 ? ", " : null}
          <code>{s}</code>
        </span>
      ))}
      : reused as edited in the debugger. The steps after {steps.length === 1 ? "it" : "them"} see the value set at the
      pause, not what the step gave.
    </p>
  );
}
