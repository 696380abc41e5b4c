import { useId } from "react";
import { FieldError } from "../../ui/fields";

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * JSON text as a value; `object` asks for a JSON object (variables are one). Empty text is no value when `optional`.
 */
export function parseJson(text: string, opts: { object?: boolean; optional?: boolean } = {}): Parsed {
  if (text.trim() === "")
    return opts.optional ? { ok: true, value: undefined } : { ok: false, message: "Enter a JSON value." };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (opts.object && (typeof value !== "object" || value === null || Array.isArray(value)))
    return { ok: false, message: 'Must be a JSON object: { "name": value, … }.' };
  return { ok: true, value };
}

/** A textarea for JSON that says what is wrong with the text as it is typed. */
export function JsonField(props: {
  label: string;
  hint?: string;
  value: string;
  onChange(text: string): void;
  parsed: Parsed;
  rows?: number;
  disabled?: boolean;
}) {
  const id = useId();
  const problem = props.parsed.ok ? null : props.parsed.message;
  return (
    <div className="json-field">
      <label htmlFor={id}>{props.label}</label>
      {props.hint ? (
        <span id={`${id}-hint`} className="field-hint">
          {props.hint}
        </span>
      ) : null}
      <textarea
        id={id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        rows={props.rows ?? Math.min(16, Math.max(3, props.value.split("\n").length + 1))}
        spellCheck={false}
        disabled={props.disabled}
        aria-invalid={problem !== null}
        aria-describedby={
          [props.hint ? `${id}-hint` : "", problem ? `${id}-problem` : ""].filter(Boolean).join(" ") || undefined
        }
      />
      <FieldError id={`${id}-problem`} message={problem} />
    </div>
  );
}
