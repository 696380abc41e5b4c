import { ApiError } from "../../api/client";
import { FormError } from "../../ui/states";
import "./controls.css";

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

/** The form's error, unless the fields given show all of it already. */
export function FormProblem({ error, fields }: { error: unknown; fields: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.details.length > 0 && error.details.every((d) => fields.includes(d.field))) return null;
  return <FormError error={error} />;
}
