import { ApiError } from "../api/client";

/** The service's message for one field of a 400 (docs/api.md, Errors), to show beside that field. */
export function fieldProblem(error: unknown, field: string): string | null {
  if (!(error instanceof ApiError)) return null;
  return error.details.find((d) => d.field === field)?.message ?? null;
}

/** A field's problem under it; the input names it with aria-describedby={id}. */
export function FieldError({ id, message }: { id: string; message: string | null }) {
  if (!message) return null;
  return (
    <span id={id} className="field-error" role="alert">
      {message}
    </span>
  );
}

/**
 * A form's buttons at its end: another way out (Cancel, Revert) when there is one, then the submit
 * button, which says what it is doing while the request is out and cannot be pressed twice.
 */
export function FormActions({
  submit,
  pending,
  busyLabel,
  other,
}: {
  submit: string;
  pending: boolean;
  /** What the submit button says while `pending`: "Creating…". */
  busyLabel: string;
  other?: { label: string; onClick(): void; disabled?: boolean };
}) {
  return (
    <div className="row end">
      {other ? (
        <button type="button" disabled={other.disabled} onClick={other.onClick}>
          {other.label}
        </button>
      ) : null}
      <button type="submit" className="primary" disabled={pending}>
        {pending ? busyLabel : submit}
      </button>
    </div>
  );
}
