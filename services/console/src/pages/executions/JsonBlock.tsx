import { CopyButton } from "../../ui/CopyButton";
import { prettyJson } from "../../ui/format";

/** A value as indented JSON with a copy button; `empty` in its place when there is none. */
export function JsonBlock({ value, empty, label }: { value: unknown; empty: string; label?: string }) {
  if (value === null || value === undefined) return <p className="muted">{empty}</p>;
  const text = prettyJson(value);
  return (
    <div className="json-block">
      {/* Focusable: a long value scrolls, and a keyboard scrolls only what has focus. */}
      <pre className="step-output" tabIndex={0} aria-label={label}>
        {text}
      </pre>
      <CopyButton text={text} />
    </div>
  );
}
