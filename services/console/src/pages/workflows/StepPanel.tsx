import { useMemo, type ReactNode } from "react";
import {
  splitKeyComment,
  writtenFields,
  type CanvasNode,
  type CanvasOperation,
  type Modifier,
} from "@wf/shared/canvas";
import schema from "@wf/shared/schema/workflow.schema.json";
import type { Schema } from "../../editor/schema-nav";
import { FieldControl } from "./FieldControl";
import type { FieldValue } from "./field-change";
import { stepForm, type FormField } from "./step-form";

// JSON imports are typed by their literal contents, which TypeScript cannot relate to a recursive schema type.
const root = schema as unknown as Schema;

const MODIFIER_LABELS: Record<Modifier, string> = {
  condition: "Condition",
  retry: "Retry",
  timeout: "Timeout",
  manual_approval: "Manual approval",
};

function valueAt(values: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = values;
  for (const key of path) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

interface Props {
  node: CanvasNode;
  /** The step as the file writes it; undefined while the text does not validate. */
  values: Record<string, unknown> | undefined;
  /** The file's text, which `values` were read from. */
  text: string;
  agents: readonly string[];
  container: boolean;
  /** Every selected step, this one first: wrapping takes them all (they must be next to each other in one list). */
  group: readonly string[];
  readOnly: boolean;
  /** Answers why the text was left as it was, when the change was refused. */
  onOperation(op: CanvasOperation): string | undefined;
  onClose(): void;
  /** Running the step alone (StepTestPanel), where it can be. */
  test?: ReactNode;
  /** The other steps' outputs to map fields from (KnownOutputsPanel). */
  outputs?: ReactNode;
}

/** The selected step's fields as a form built from the JSON Schema; each change is one canvas operation on the text. */
export function StepPanel({
  node,
  values,
  text,
  agents,
  container,
  group,
  readOnly,
  onOperation,
  onClose,
  test,
  outputs,
}: Props) {
  const ids = group.length > 1 ? group : [node.id];
  const several = ids.length > 1 ? ` ${ids.length} steps` : "";
  return (
    <aside className="step-panel" aria-label="Selected step" tabIndex={-1}>
      <div className="step-panel-head">
        <h2>{node.name ?? node.id}</h2>
        <span className="badge">{node.type ?? "no type"}</span>
        <div className="spacer" />
        <button
          type="button"
          className="ghost"
          aria-label="Close the step's panel"
          title="Close (Esc on the canvas)"
          onClick={onClose}
        >
          ×
        </button>
      </div>
      {group.length > 1 ? (
        <p className="muted small" role="status">
          {group.length} steps selected: {group.join(", ")} (shift- or ctrl-click, or Shift+Enter, to add or take one
          out)
        </p>
      ) : null}
      {values === undefined ? (
        <p className="muted small">Fix the problems in the YAML to edit this step here.</p>
      ) : (
        <StepFields
          node={node}
          values={values}
          text={text}
          agents={agents}
          readOnly={readOnly}
          onOperation={onOperation}
        />
      )}
      {outputs}
      {test}
      <div className="step-panel-actions">
        <button type="button" disabled={readOnly} onClick={() => onOperation({ kind: "wrapInForeach", ids })}>
          Wrap{several} in foreach
        </button>
        <button
          type="button"
          disabled={readOnly}
          title={several ? "One parallel step, a branch for each" : undefined}
          onClick={() => onOperation({ kind: "wrapInParallel", ids })}
        >
          Wrap{several} in parallel
        </button>
        {node.type === "parallel" ? (
          <button
            type="button"
            disabled={readOnly}
            title="A new branch after the last, with a step to start from"
            onClick={() => onOperation({ kind: "addBranch", id: node.id })}
          >
            Add a branch
          </button>
        ) : null}
        {container ? (
          <button type="button" disabled={readOnly} onClick={() => onOperation({ kind: "unwrap", id: node.id })}>
            Unwrap
          </button>
        ) : null}
        <button
          type="button"
          className="danger-outline"
          disabled={readOnly}
          title="Delete (Delete on the canvas)"
          onClick={() => onOperation({ kind: "deleteStep", id: node.id })}
        >
          Delete step
        </button>
      </div>
    </aside>
  );
}

const NAME_FIELD: FormField = {
  path: ["name"],
  control: "text",
  required: true,
  description: "Unique in the whole file; renaming also renames the references to it.",
};

/** The comment on the first line of a box's text, to keep on the key's line (the box showed it there). */
function leadingComment(typed: string | undefined): { comment?: string } {
  const comment = typed === undefined ? undefined : splitKeyComment(typed.trim()).comment;
  return comment === undefined ? {} : { comment };
}

/** The operation that writes a field's new value; `typed` is as in FieldChange. */
function setOperation(id: string, type: string, key: string[], value: FieldValue, typed?: string): CanvasOperation {
  // A code step's language takes the starter script along while it is one (see setLanguage).
  if (type === "code" && key.join(".") === "language") return { kind: "setLanguage", id, language: String(value) };
  if (typeof value === "object" && value !== null)
    return { kind: "setCollection", id, key, value, ...(typed === undefined ? {} : { text: typed }) };
  return { kind: "setField", id, key, value, ...leadingComment(typed) };
}

function StepFields({
  node,
  values,
  text,
  agents,
  readOnly,
  onOperation,
}: Omit<Props, "values" | "container" | "group" | "onClose" | "test" | "outputs"> & {
  values: Record<string, unknown>;
}) {
  const type = node.type ?? "";
  const form = useMemo(() => stepForm(root, type, values, agents), [type, values, agents]);
  const written = useMemo(() => {
    const yaml = [...form.fields, ...form.modifiers.flatMap((m) => m.fields)].filter((f) => f.control === "yaml");
    const texts = writtenFields(
      text,
      node.id,
      yaml.map((f) => f.path),
    );
    return new Map(yaml.map((f, i) => [f.path.join("."), texts[i]]));
  }, [text, node.id, form]);
  const control = (field: FormField) => (
    <FieldControl
      key={field.path.join(".")}
      field={field}
      value={valueAt(values, field.path)}
      written={written.get(field.path.join("."))}
      disabled={readOnly}
      change={{
        set: (value, typed) => onOperation(setOperation(node.id, type, field.path, value, typed)),
        remove: () => onOperation({ kind: "removeField", id: node.id, key: field.path }),
      }}
    />
  );
  return (
    <>
      <div className="step-panel-fields">
        {node.name === undefined ? null : (
          <FieldControl
            field={NAME_FIELD}
            value={node.name}
            disabled={readOnly}
            // A name is required: emptied, the field goes back to it rather than removing it.
            change={{
              set: (value) => onOperation({ kind: "renameStep", id: node.id, name: String(value) }),
              remove: () => undefined,
            }}
          />
        )}
        {form.fields.map(control)}
      </div>
      <fieldset className="field-group step-panel-modifiers">
        <legend>Modifiers</legend>
        {form.modifiers.map((m) => (
          <div key={m.modifier} className="step-modifier">
            <label className="inline">
              <input
                type="checkbox"
                checked={m.on}
                disabled={readOnly}
                onChange={() => onOperation({ kind: "toggleModifier", id: node.id, modifier: m.modifier })}
              />
              {MODIFIER_LABELS[m.modifier]}
            </label>
            {m.fields.map(control)}
          </div>
        ))}
      </fieldset>
    </>
  );
}
