import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { useMutation } from "@tanstack/react-query";
import type { VariableDef } from "@wf/shared/workflow";
import { ApiError } from "../../api/client";
import type { StartBody } from "../../api/types";
import type { WorkflowOutline } from "../../editor";
import { Modal } from "../../ui/confirm";
import { FormError } from "../../ui/states";
import { startExecution } from "./queries";
import { FillFromRun } from "./FillFromRun";
import { initialText, readInputs, textsFromRun } from "./run-inputs";

function Field({
  name,
  def,
  text,
  error,
  onChange,
}: {
  name: string;
  def: VariableDef;
  text: string;
  error?: string;
  onChange(text: string): void;
}) {
  const id = `run-input-${name}`;
  const describedBy = error ? `${id}-error` : undefined;
  const common = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    required: def.required && def.default === undefined,
  };
  return (
    <div className="run-field">
      <label htmlFor={id} className="run-label">
        <span>
          <code>{name}</code>
          {common.required ? (
            <abbr className="required" title="required">
              *
            </abbr>
          ) : null}
        </span>
        <span className="field-hint">{def.type}</span>
      </label>
      {def.type === "boolean" ? (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          {common.required ? null : <option value="">— not set —</option>}
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : def.type === "object" || def.type === "array" ? (
        <textarea
          {...common}
          rows={4}
          spellCheck={false}
          placeholder={def.type === "array" ? "[ ]" : "{ }"}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type={def.type === "number" ? "number" : "text"}
          step="any"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {def.description ? <span className="field-hint">{def.description}</span> : null}
      {error ? (
        <span id={describedBy} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** What the service names a bad input by: `inputs.<name>`. */
function inputErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const found: Record<string, string> = {};
  for (const problem of error.details)
    if (problem.field.startsWith("inputs.")) found[problem.field.slice("inputs.".length)] = problem.message;
  return found;
}

/**
 * Runs the saved workflow with inputs from a form built from its `variables`: one field per
 * variable, typed by its type, defaults filled in. A debug run pauses before the first step and
 * opens in the debugger.
 */
export function RunDialog({
  workflowId,
  version,
  outline,
  open,
  onClose,
}: {
  workflowId: string;
  /** The version on screen: the service refuses the run (409) when another was saved since. */
  version: number | null;
  outline: WorkflowOutline | null;
  open: boolean;
  onClose(): void;
}) {
  return (
    <Modal open={open} title={`Run ${outline?.name ?? "workflow"}`} onClose={onClose}>
      {outline ? (
        <RunForm key={workflowId} workflowId={workflowId} version={version} outline={outline} onClose={onClose} />
      ) : null}
    </Modal>
  );
}

function RunForm({
  workflowId,
  version,
  outline,
  onClose,
}: {
  workflowId: string;
  version: number | null;
  outline: WorkflowOutline;
  onClose(): void;
}) {
  const navigate = useNavigate();
  const variables = Object.entries(outline.variables);
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(variables.map(([name, def]) => [name, initialText(def)])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [debug, setDebug] = useState(false);

  const start = useMutation({
    mutationFn: (body: StartBody) => startExecution(workflowId, body),
    onSuccess: (started, body) => {
      onClose();
      void navigate(`/executions/${encodeURIComponent(started.executionId)}${body.debug ? "/debug" : ""}`);
    },
    onError: (err) => setErrors(inputErrors(err)),
  });

  // A field's mistake is said until the field is changed, then checked again on submit.
  const change = (name: string, text: string) => {
    setTexts((all) => ({ ...all, [name]: text }));
    setErrors(({ [name]: _fixed, ...rest }) => rest);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const read = readInputs(outline.variables, texts);
    setErrors(read.errors);
    if (Object.keys(read.errors).length > 0) return;
    const breakpoints = outline.firstStep === null ? [] : [{ type: "before_step" as const, step: outline.firstStep }];
    start.mutate({
      inputs: read.inputs,
      ...(version === null ? {} : { version }),
      ...(debug ? { debug: { breakpoints } } : {}),
    });
  };

  return (
    <form className="form run-form" onSubmit={submit} noValidate>
      {variables.length === 0 ? (
        <p className="muted">This workflow takes no inputs.</p>
      ) : (
        <FillFromRun
          workflowId={workflowId}
          onFill={(ran) => {
            const filled = textsFromRun(outline.variables, texts, ran);
            setTexts(filled.texts);
            setErrors({});
            return filled.undeclared;
          }}
        />
      )}
      {variables.length === 0 ? null : (
        <div className="run-fields">
          {variables.map(([name, def]) => (
            <Field
              key={name}
              name={name}
              def={def}
              text={texts[name] ?? ""}
              error={errors[name]}
              onChange={(text) => change(name, text)}
            />
          ))}
        </div>
      )}
      <label className="inline">
        <input type="checkbox" checked={debug} onChange={(e) => setDebug(e.target.checked)} />
        Debug run
        <span className="field-hint">pauses before the first step, in the debugger</span>
      </label>
      {start.isError && Object.keys(inputErrors(start.error)).length === 0 ? <FormError error={start.error} /> : null}
      <div className="row end">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={start.isPending}>
          {start.isPending ? "Starting…" : debug ? "Start debugging" : "Run"}
        </button>
      </div>
    </form>
  );
}
