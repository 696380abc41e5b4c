import { useState } from "react";
import { useInsertTargets } from "../../ui/insert-target";
import { OutputFields } from "./OutputFields";

/**
 * A step's output (or, for a `step` of null, a foreach's item) whose fields go, when pressed, into the input focused
 * last (on the editor page), or to the clipboard (where there is none); a line says which.
 */
export function PickableOutput({ step, value }: { step: string | null; value: unknown }) {
  const targets = useInsertTargets();
  const [said, setSaid] = useState("");
  const pick = (template: string) => {
    const where = targets?.insert(template) ?? null;
    if (where !== null) return setSaid(`Inserted ${template} into ${where}.`);
    const reason = targets ? "No input to insert into (focus a field or the YAML first): " : "";
    // Through a promise: a page without a clipboard (not a secure context) has no navigator.clipboard.
    void Promise.resolve()
      .then(() => navigator.clipboard.writeText(template))
      .then(
        () => setSaid(`${reason}Copied ${template}.`),
        () => setSaid(`${reason}Could not copy ${template}.`),
      );
  };
  return (
    <div className="pickable-output">
      <p className="muted small">
        {targets
          ? "Press a field to insert its expression at the cursor of the field or YAML you were in."
          : "Press a field to copy its expression."}
      </p>
      <OutputFields step={step} value={value} onPick={pick} action={targets ? "Insert" : "Copy"} />
      <p className="small" role="status">
        {said}
      </p>
    </div>
  );
}
