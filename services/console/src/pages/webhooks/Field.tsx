import { useId, type ReactNode } from "react";

export interface FieldControl {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string;
}

/**
 * A labelled control with its hint or its problem under it. The note is outside the label and
 * tied to the control by aria-describedby: it is read with the control without being its name.
 */
export function Field({
  label,
  problem,
  hint,
  children,
}: {
  label: string;
  problem?: string;
  hint?: ReactNode;
  children(control: FieldControl): ReactNode;
}) {
  const id = useId();
  return (
    <div className="wh-field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": problem ? true : undefined, "aria-describedby": `${id}-note` })}
      <FieldNote id={`${id}-note`} problem={problem} hint={hint} />
    </div>
  );
}

/** A field's problem in place of its hint, so that the message sits where the mistake is. */
export function FieldNote({ problem, hint, id }: { problem?: string; hint?: ReactNode; id?: string }) {
  if (problem)
    return (
      <span className="wh-problem" id={id}>
        {problem}
      </span>
    );
  return hint ? (
    <span className="field-hint" id={id}>
      {hint}
    </span>
  ) : null;
}
