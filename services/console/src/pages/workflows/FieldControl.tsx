import { useId, useState, type FocusEvent, type KeyboardEvent } from "react";
import { FieldError } from "../../ui/fields";
import type { FormField } from "./step-form";
import type { FieldChange } from "./field-change";
import { useInsertableField } from "./useInsertableField";
import { readYamlText, yamlText } from "./yaml-field";

type Draft = "text" | "textarea" | "number" | "integer";

/** A typed value as the field's kind; undefined when it is not one (then the field goes back to what the file says). */
function parsed(control: Draft, draft: string): string | number | undefined {
  if (control === "text" || control === "textarea") return draft;
  const n = Number(draft);
  return Number.isFinite(n) && (control === "number" || Number.isInteger(n)) ? n : undefined;
}

/**
 * A text or number kept as typed until it is done (Enter, or leaving the field): one change of
 * the YAML per edit, not per key. Emptied, an optional field is removed from the step. A value the
 * workflow would refuse (a condition that does not parse) stays for the person to fix, with the
 * reason under it: the file, and so the canvas, still says what it said.
 */
function DraftInput({
  id,
  field,
  value,
  disabled,
  change,
  insertable,
}: {
  id: string;
  field: FormField & { control: Draft };
  value: unknown;
  disabled: boolean;
  change: FieldChange;
  /** A text field takes picked output fields (useInsertableField). */
  insertable?: ReturnType<typeof useInsertableField>;
}) {
  const problemId = useId();
  const shown = value === undefined || value === null ? "" : String(value);
  const [draft, setDraft] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  // The file's value changed (this field's commit, an undo, an edit in the YAML): the draft starts again from it, in
  // the same element, so that the focus stays where it is.
  const [from, setFrom] = useState(shown);
  if (from !== shown) {
    setFrom(shown);
    setDraft(shown);
    setProblem(null);
  }
  const revert = () => {
    setDraft(shown);
    setProblem(null);
  };
  const commit = () => {
    if (draft === shown) return setProblem(null);
    if (draft.trim() === "" && field.control !== "textarea") {
      if (!field.required && value !== undefined) setProblem(change.remove() ?? null);
      else revert();
      return;
    }
    const next = parsed(field.control, draft);
    if (next === undefined) revert();
    else setProblem(change.set(next) ?? null);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && field.control !== "textarea") {
      event.preventDefault();
      commit();
    } else if (event.key === "Escape") revert();
  };
  const common = {
    id,
    disabled,
    value: draft,
    ref: insertable?.ref,
    onFocus: insertable?.onFocus,
    onBlur: (event: FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      commit();
      insertable?.onBlur(event);
    },
    onKeyDown,
    required: field.required,
    title: field.description,
    "aria-invalid": problem === null ? undefined : true,
    "aria-describedby": problem === null ? undefined : problemId,
  };
  const numeric = field.control !== "text";
  return (
    <>
      {field.control === "textarea" ? (
        <textarea
          {...common}
          rows={Math.min(8, Math.max(3, draft.split("\n").length))}
          onChange={(e) => setDraft(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type={numeric ? "number" : "text"}
          step={field.control === "integer" ? 1 : "any"}
          onChange={(e) => setDraft(e.target.value)}
        />
      )}
      <FieldError id={problemId} message={problem} />
    </>
  );
}

/**
 * A list or a mapping (or a value that may be one) as YAML text, kept as typed until it is done (Ctrl/Cmd+Enter, or
 * leaving the field): one change of the YAML per edit. Text that does not parse, holds a kind of value the field does
 * not take, or a value the workflow would refuse, stays for the person to fix, with the reason under it; nothing is
 * written.
 */
function YamlInput({
  id,
  field,
  value,
  written,
  disabled,
  change,
}: {
  id: string;
  field: FormField;
  value: unknown;
  written: string | undefined;
  disabled: boolean;
  change: FieldChange;
}) {
  const problemId = useId();
  // A block list or mapping as the file writes it, so that its comments can be read and edited here.
  const shown = written ?? yamlText(value);
  const [draft, setDraft] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  // As DraftInput: the file's value changed, so the draft starts again from it.
  const [from, setFrom] = useState(shown);
  if (from !== shown) {
    setFrom(shown);
    setDraft(shown);
    setProblem(null);
  }
  const revert = () => {
    setDraft(shown);
    setProblem(null);
  };
  const commit = () => {
    const next = draft === shown ? undefined : readYamlText(draft, field);
    setProblem(next?.kind === "problem" ? next.message : null);
    if (next === undefined || next.kind === "problem") return;
    if (next.kind === "remove") {
      if (value === undefined) revert();
      else setProblem(change.remove() ?? null);
    } else if (typeof next.value !== "object" || next.value === null) setProblem(change.set(next.value, draft) ?? null);
    else {
      const refused = change.set(next.value, draft);
      // The same value: what the file says, unless the text is written as typed (a comment changed), which the file's
      // new text then shows.
      if (refused !== undefined) setProblem(refused);
      else if (JSON.stringify(next.value) === JSON.stringify(value)) revert();
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      // Done with this field: not the page's Run, which the same keys are elsewhere.
      event.preventDefault();
      event.stopPropagation();
      commit();
    } else if (event.key === "Escape") revert();
  };
  return (
    <>
      <textarea
        id={id}
        className="step-field-yaml"
        disabled={disabled}
        value={draft}
        rows={Math.min(10, Math.max(3, draft.split("\n").length))}
        spellCheck={false}
        required={field.required}
        title={field.description}
        aria-invalid={problem === null ? undefined : true}
        aria-describedby={problem === null ? undefined : problemId}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={onKeyDown}
      />
      <FieldError id={problemId} message={problem} />
    </>
  );
}

/** One field of the side panel, built from its schema (step-form.ts); `value` is what the file says. */
export function FieldControl({
  field,
  value,
  written,
  disabled,
  change,
}: {
  field: FormField;
  value: unknown;
  /** A `yaml` field's list or mapping as the file writes it, comments included (writtenFields). */
  written?: string;
  disabled: boolean;
  change: FieldChange;
}) {
  const id = useId();
  const label = field.path.join(".");
  const insertable = useInsertableField(label, disabled, change);
  const title = (
    <span className="step-field-label" title={field.description}>
      {field.path[field.path.length - 1]}
      {field.required ? <span className="required">*</span> : null}
    </span>
  );
  switch (field.control) {
    case "checkbox":
      return (
        <label className="inline step-field" title={field.description}>
          <input
            type="checkbox"
            checked={value === true}
            disabled={disabled}
            onChange={(e) => change.set(e.target.checked)}
            aria-label={label}
          />
          {title}
        </label>
      );
    case "select":
      return (
        <label className="step-field" htmlFor={id}>
          {title}
          <select
            id={id}
            value={value === undefined ? "" : String(value)}
            disabled={disabled}
            onChange={(e) => (e.target.value === "" ? change.remove() : change.set(e.target.value))}
          >
            {field.required && value !== undefined ? null : <option value="">—</option>}
            {(field.options ?? []).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
      );
    case "yaml":
      // The label holds the title only: the problem under the field describes it rather than naming it.
      return (
        <div className="step-field step-field-stack">
          <label htmlFor={id}>{title}</label>
          <YamlInput id={id} field={field} value={value} written={written} disabled={disabled} change={change} />
        </div>
      );
    default:
      // As a yaml field: the label holds the title only, so that a problem under the field does not name it.
      return (
        <div className="step-field step-field-stack">
          <label htmlFor={id}>{title}</label>
          <DraftInput
            id={id}
            field={{ ...field, control: field.control }}
            value={value}
            disabled={disabled}
            change={change}
            insertable={field.control === "text" || field.control === "textarea" ? insertable : undefined}
          />
        </div>
      );
  }
}
