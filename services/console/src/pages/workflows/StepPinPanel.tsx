import { useId, useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { WorkflowPin } from "../../api/types";
import { formatAgo, prettyJson } from "../../ui/format";
import { JsonBlock } from "../executions/JsonBlock";
import { pinOutput, unpinStep, workflowKeys } from "./queries";

interface Props {
  /** Null for a workflow not saved yet. */
  workflowId: string | null;
  /** Undefined for a step without a valid name. */
  step: string | undefined;
  topLevel: boolean;
  pin: WorkflowPin | undefined;
  readOnly: boolean;
}

/** The selected step's pinned output: shown, typed as JSON, edited or removed (docs/console.md, Pinned data). */
export function StepPinPanel({ workflowId, step, topLevel, pin, readOnly }: Props) {
  if (workflowId === null || step === undefined || !topLevel) {
    const why =
      workflowId === null
        ? "Save the workflow once to pin a step's output."
        : step === undefined
          ? "Give the step a valid name to pin its output."
          : "Only a top-level step takes a pinned output.";
    return (
      <section className="step-pin" aria-label="Pinned data">
        <h3>Pinned data</h3>
        <p className="muted small">{why}</p>
      </section>
    );
  }
  return <PinEditor workflowId={workflowId} step={step} pin={pin} readOnly={readOnly} />;
}

function PinEditor({
  workflowId,
  step,
  pin,
  readOnly,
}: {
  workflowId: string;
  step: string;
  pin: WorkflowPin | undefined;
  readOnly: boolean;
}) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: workflowKeys.detail(workflowId) });
  const [draft, setDraft] = useState<string | null>(null);
  const [mistake, setMistake] = useState<string | null>(null);
  const fieldId = useId();
  const errorId = useId();
  const save = useMutation({
    mutationFn: (output: unknown) => pinOutput(workflowId, step, output, null),
    onSuccess: async () => {
      await refresh();
      setDraft(null);
    },
    onError: (error) => setMistake(`Not pinned: ${error.message}`),
  });
  const unpin = useMutation({ mutationFn: () => unpinStep(workflowId, step), onSuccess: refresh });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    let output: unknown;
    try {
      output = JSON.parse(draft ?? "");
    } catch (err) {
      setMistake(`Not JSON: ${(err as Error).message}`);
      return;
    }
    setMistake(null);
    save.mutate(output);
  };
  const edit = () => {
    setMistake(null);
    setDraft(pin ? prettyJson(pin.output) : "");
  };

  return (
    <section className="step-pin" aria-label="Pinned data">
      <h3>Pinned data</h3>
      {draft !== null ? (
        <form className="step-pin-form" onSubmit={submit}>
          <label htmlFor={fieldId}>Output of {step} for step tests (JSON)</label>
          <textarea
            id={fieldId}
            className="mono"
            rows={6}
            value={draft}
            spellCheck={false}
            aria-invalid={mistake !== null}
            aria-describedby={mistake !== null ? errorId : undefined}
            onChange={(e) => setDraft(e.target.value)}
          />
          {mistake !== null ? (
            <p id={errorId} className="field-error" role="alert">
              {mistake}
            </p>
          ) : null}
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending}>
              {save.isPending ? "Pinning…" : "Save pin"}
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : pin ? (
        <>
          <p className="muted small">
            Tests of the steps after it take this instead of running {step}
            {pin.from ? ` (from run ${pin.from}` : " (typed"}, {formatAgo(pin.pinnedAt)}).
          </p>
          <JsonBlock value={pin.output} empty="null" label={`Pinned output of ${step}`} />
          <div className="row">
            <button type="button" disabled={readOnly} onClick={edit}>
              Edit pin
            </button>
            <button type="button" disabled={readOnly || unpin.isPending} onClick={() => unpin.mutate()}>
              Unpin
            </button>
          </div>
          {unpin.isError ? (
            <p className="notice error" role="alert">
              Not unpinned: {unpin.error.message}
            </p>
          ) : null}
        </>
      ) : (
        <>
          <p className="muted small">No pin: tests of later steps use an earlier run&apos;s output of {step}.</p>
          <div className="row">
            <button type="button" disabled={readOnly} onClick={edit}>
              Pin data
            </button>
          </div>
        </>
      )}
    </section>
  );
}
