import type { ReactNode } from "react";
import { ApiError, type FieldProblem } from "../api/client";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {what}…
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <strong>{title}</strong>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

/** What to do next, by what went wrong: a person should never be left with only a status code. */
function advice(error: unknown): string {
  if (!(error instanceof ApiError)) return "Reload the page; if it keeps happening, check the service's log.";
  if (error.status === 0) return "Check that the service is running, then retry.";
  if (error.status === 404) return "It may have been deleted, or it is not shared with you.";
  if (error.status === 403)
    return "Your account may not have the rights for this, or your session changed: log in again.";
  if (error.status === 429) return "Too many requests: wait a moment, then retry.";
  if (error.status >= 500)
    return "The service had a problem: retry in a moment; if it keeps happening, check the service's log.";
  return "";
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state error" role="alert">
      <strong>{message}</strong>
      <div className="muted">{advice(error)}</div>
      {retry ? (
        <button type="button" onClick={retry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

/**
 * An error inline in a form: its message, and the field problems the service named, each naming its
 * field. A form that marks some problems at their own inputs says which with `placed` (field names,
 * or a test of a problem): those are not listed again. When the service named fields, `refused` is
 * said in place of its message, pointing at the marked fields; without it, nothing is shown once
 * the inputs show every problem.
 */
export function FormError({
  error,
  placed,
  refused,
}: {
  error: unknown;
  placed?: readonly string[] | ((problem: FieldProblem) => boolean);
  refused?: string;
}) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : [];
  const isPlaced =
    placed === undefined
      ? () => false
      : typeof placed === "function"
        ? placed
        : (d: FieldProblem) => placed.includes(d.field);
  const listed = details.filter((d) => !isPlaced(d));
  if (details.length > 0 && listed.length === 0 && refused === undefined) return null;
  const message =
    details.length > 0 && refused !== undefined ? refused : error instanceof Error ? error.message : String(error);
  return (
    <div className="form-error" role="alert">
      {message}
      {listed.length > 0 ? (
        <ul>
          {listed.map((d, i) => (
            <li key={i}>
              {d.field ? <code>{d.field}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
