import { outputExpression, outputTemplate, type PathSegment } from "../../editor/output-paths";

/** Items of a list shown, and levels opened: past them a field is picked whole. */
const MAX_ITEMS = 20;
const MAX_DEPTH = 6;
const MAX_TEXT = 80;

interface Props {
  /** The step whose output it is: the expressions read `steps.<step>.output…`; null for a foreach's item, `item…`. */
  step: string | null;
  value: unknown;
  /** A field was picked: its template (`{{ steps.fetch.output.items[0].id }}`) and its path. */
  onPick(template: string, path: readonly PathSegment[]): void;
  /** What picking does, for the buttons' names: "Insert" where there is an input, "Copy" elsewhere. */
  action?: "Insert" | "Copy";
}

/**
 * A step's output as a tree whose every field is a button: pressing one hands over the expression
 * that reads it, for another step's input (click-to-map: docs/console.md, "Mapping outputs").
 */
export function OutputFields({ step, value, onPick, action = "Insert" }: Props) {
  return (
    <ul className="output-fields" aria-label={step === null ? "Fields of item" : `Fields of ${step}'s output`}>
      <Field
        step={step}
        name={step === null ? "item" : "output"}
        path={[]}
        value={value}
        onPick={onPick}
        action={action}
      />
    </ul>
  );
}

function Field({
  step,
  name,
  path,
  value,
  onPick,
  action,
}: Required<Omit<Props, "value">> & { name: string; path: PathSegment[]; value: unknown }) {
  const children: Array<[string, PathSegment, unknown]> = Array.isArray(value)
    ? value.slice(0, MAX_ITEMS).map((item, i) => [`[${i}]`, i, item])
    : typeof value === "object" && value !== null
      ? Object.entries(value).map(([key, item]) => [key, key, item])
      : [];
  const open = children.length > 0 && path.length < MAX_DEPTH;
  return (
    <li>
      <button
        type="button"
        className="field-pick"
        aria-label={`${action} ${outputExpression(step, path)}`}
        title={outputTemplate(step, path)}
        onClick={() => onPick(outputTemplate(step, path), path)}
      >
        {name}
      </button>
      {open ? null : <span className="field-value">{preview(value)}</span>}
      {open ? (
        <ul>
          {children.map(([label, segment, item]) => (
            <Field
              key={label}
              step={step}
              name={label}
              path={[...path, segment]}
              value={item}
              onPick={onPick}
              action={action}
            />
          ))}
          {Array.isArray(value) && value.length > MAX_ITEMS ? (
            <li className="muted small">… {value.length - MAX_ITEMS} more items</li>
          ) : null}
        </ul>
      ) : null}
    </li>
  );
}

function preview(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[… ${value.length}]`;
  if (typeof value === "object" && value !== null) return Object.keys(value).length === 0 ? "{}" : "{…}";
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
