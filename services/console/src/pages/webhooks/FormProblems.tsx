import type { ReactNode } from "react";
import { ApiError } from "../../api/client";
import { FormError } from "../../ui/states";

/**
 * The summary above a form: an error that names no field in full, or, when every named field is
 * marked at its input, one line pointing there, and the field problems the form has no input for.
 */
export function FormProblems({ error, unplaced, localCount }: { error: unknown; unplaced: { field: string; message: string }[]; localCount: number }) {
  if (error instanceof ApiError && error.details.length > 0) {
    return (
      <div className="form-error" role="alert">
        The service refused the webhook: correct the fields marked below.
        {unplaced.length > 0 ? (
          <ul>
            {unplaced.map((d, i) => (
              <li key={i}>
                {d.field ? <code>{d.field}</code> : null} {d.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  if (error) return <FormError error={error} />;
  if (localCount > 0)
    return (
      <div className="form-error" role="alert">
        Correct the fields marked below.
      </div>
    );
  return null;
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
