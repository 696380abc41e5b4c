import { useId } from "react";
import type { WorkflowVariable } from "../../api/types";
import type { Problems, WebhookForm } from "./form-state";
import { FieldNote } from "./Field";
import { MappingRows } from "./MappingRows";

/**
 * How the payload sets the workflow's variables (docs/webhooks.md, Variables): the box says
 * whether it sets any, and, checked, whether by name or only as listed.
 */
export function VariableFields(props: {
  form: WebhookForm;
  onChange(patch: Partial<WebhookForm>): void;
  problems: Problems;
  variables: Record<string, WorkflowVariable> | undefined;
}) {
  const { form, problems, onChange } = props;
  const ways = useId();
  const noteId = useId();
  return (
    <fieldset className="field-group" aria-describedby={problems.variableMapping ? noteId : undefined}>
      <legend>Variables</legend>
      <label className="inline">
        <input type="checkbox" checked={form.mapFields} onChange={(e) => onChange({ mapFields: e.target.checked })} />
        Map payload fields to variables
      </label>
      {form.mapFields ? (
        <div className="stack wh-tight wh-indent" role="radiogroup" aria-label="Which fields">
          <label className="inline choice">
            <input type="radio" name={ways} checked={!form.listed} onChange={() => onChange({ listed: false })} />
            <span>
              <strong>By name</strong>{" "}
              <span className="muted small">
                Each top-level string, number or boolean field named like a variable sets it.
              </span>
            </span>
          </label>
          <label className="inline choice">
            <input type="radio" name={ways} checked={form.listed} onChange={() => onChange({ listed: true })} />
            <span>
              <strong>Only the fields listed</strong>{" "}
              <span className="muted small">
                Each listed field sets its variable, whatever its type; the other fields are ignored.
              </span>
            </span>
          </label>
          {form.listed ? (
            <MappingRows rows={form.mapping} problems={problems} onChange={(mapping) => onChange({ mapping })} />
          ) : null}
        </div>
      ) : (
        <span className="field-hint">The payload sets no variable: each keeps its default.</span>
      )}
      {props.variables ? <DeclaredVariables variables={props.variables} /> : null}
      <FieldNote id={noteId} problem={problems.variableMapping} />
    </fieldset>
  );
}

/** What the workflow declares, so that a mapping can be written without opening it. */
function DeclaredVariables({ variables }: { variables: Record<string, WorkflowVariable> }) {
  const entries = Object.entries(variables);
  if (entries.length === 0) return <span className="field-hint">The workflow declares no variables.</span>;
  return (
    <span className="field-hint">
      The workflow&apos;s variables:{" "}
      {entries.map(([name, v], i) => (
        <span key={name}>
          {i > 0 ? ", " : null}
          <code>{name}</code> ({v.type}
          {v.default !== undefined ? `, default ${JSON.stringify(v.default)}` : v.required ? ", required" : ""})
        </span>
      ))}
      .
    </span>
  );
}
