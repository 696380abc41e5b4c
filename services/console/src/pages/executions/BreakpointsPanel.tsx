import { useId, useState, type FormEvent } from "react";
import { ApiError } from "../../api/client";
import type { Breakpoint, BreakpointInput, BreakpointType } from "../../api/types";
import { FormError } from "../../ui/states";
import {
  BREAKPOINT_SPECS,
  BREAKPOINT_TYPES,
  FIELD_LABELS,
  buildBreakpoint,
  describeBreakpoint,
  type BreakpointField,
} from "./breakpoints";
import { debugErrorWords } from "./debug-commands";
import type { BreakpointsUpdate } from "./useBreakpoints";

/** A debug run's breakpoints: each change replaces the whole list (`put`, shared with the canvas's marks). */
export function BreakpointsPanel({
  put,
  breakpoints,
  stepPaths,
  ended,
}: {
  put: BreakpointsUpdate;
  breakpoints: Breakpoint[];
  stepPaths: string[];
  ended: boolean;
}) {
  // A refusal is about a change to a run that goes on: once the run has ended, it is moot.
  const error = ended
    ? null
    : put.error instanceof ApiError && put.error.status === 400
      ? put.error
      : put.error
        ? new Error(debugErrorWords(put.error))
        : null;

  return (
    <section className="card stack breakpoints" aria-label="Breakpoints">
      <h2>Breakpoints</h2>
      {breakpoints.length === 0 ? (
        <p className="muted">No breakpoints: the run pauses only where a Step command asks it to.</p>
      ) : (
        <table className="breakpoint-list">
          <tbody>
            {breakpoints.map((bp, i) => (
              <tr key={bp.id ?? i} data-breakpoint-id={bp.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Enable breakpoint ${bp.id ?? i + 1}`}
                    checked={bp.enabled}
                    disabled={ended || put.isPending}
                    onChange={() =>
                      put.mutate((current) => current.map((b) => (b.id === bp.id ? { ...b, enabled: !bp.enabled } : b)))
                    }
                  />
                </td>
                <td className="mono muted">{bp.id}</td>
                <td title={BREAKPOINT_SPECS[bp.type].pauses}>{BREAKPOINT_SPECS[bp.type].label}</td>
                <td className="mono small">{describeBreakpoint(bp)}</td>
                <td>
                  <button
                    type="button"
                    className="ghost"
                    aria-label={`Remove breakpoint ${bp.id ?? i + 1}`}
                    disabled={ended || put.isPending}
                    onClick={() => put.mutate((current) => current.filter((b) => b.id !== bp.id))}
                  >
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {ended ? (
        <p className="muted small">The run has ended: its breakpoints no longer change.</p>
      ) : (
        <AddBreakpoint
          busy={put.isPending}
          stepPaths={stepPaths}
          onAdd={(bp) => put.mutate((current) => [...current, bp])}
        />
      )}
      <FormError error={error} refused="The breakpoints were not changed:" />
    </section>
  );
}

function AddBreakpoint({
  busy,
  stepPaths,
  onAdd,
}: {
  busy: boolean;
  stepPaths: string[];
  onAdd(bp: BreakpointInput): void;
}) {
  const id = useId();
  const [type, setType] = useState<BreakpointType>("before_step");
  const [values, setValues] = useState<Partial<Record<BreakpointField, string>>>({});
  const [hitCount, setHitCount] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const spec = BREAKPOINT_SPECS[type];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const built = buildBreakpoint(type, values, hitCount);
    if (!built.ok) return setProblem(built.message);
    setProblem(null);
    onAdd(built.breakpoint);
    setValues({});
    setHitCount("");
  };

  return (
    <form className="form add-breakpoint" onSubmit={submit} aria-label="Add a breakpoint">
      <label>
        Type
        <select value={type} onChange={(e) => (setType(e.target.value as BreakpointType), setProblem(null))}>
          {BREAKPOINT_TYPES.map((t) => (
            <option key={t} value={t}>
              {BREAKPOINT_SPECS[t].label}
            </option>
          ))}
        </select>
        <span className="field-hint">Pauses {spec.pauses}.</span>
      </label>
      <div className="breakpoint-fields">
        {spec.fields.map((f) => (
          <label key={f.name}>
            {FIELD_LABELS[f.name]}
            {f.required ? "" : " (optional)"}
            <input
              value={values[f.name] ?? ""}
              onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
              list={f.name === "step" ? `${id}-steps` : undefined}
              inputMode={
                f.name === "index" || f.name === "attempt" || f.name === "tokens"
                  ? "numeric"
                  : f.name === "costUsd"
                    ? "decimal"
                    : undefined
              }
              className={f.name === "expression" ? "mono" : undefined}
            />
          </label>
        ))}
        <label>
          Hit count (optional)
          <input
            value={hitCount}
            onChange={(e) => setHitCount(e.target.value)}
            inputMode="numeric"
            placeholder="every hit"
          />
        </label>
      </div>
      <datalist id={`${id}-steps`}>
        {stepPaths.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      {problem ? (
        <div className="form-error" role="alert">
          {problem}
        </div>
      ) : null}
      <div className="row end">
        <button type="submit" disabled={busy}>
          Add breakpoint
        </button>
      </div>
    </form>
  );
}
