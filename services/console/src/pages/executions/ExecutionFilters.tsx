import { NO_FILTERS, RANGES, STATUSES, TRIGGER_SOURCES, hasFilters, type UrlFilters } from "./list-filters";

/** The list's filters; each change is written to the URL at once, so the list is bookmarkable as filtered. */
export function ExecutionFilters({
  value,
  onChange,
  workflows,
}: {
  value: UrlFilters;
  onChange(next: UrlFilters): void;
  workflows: Map<string, string> | undefined;
}) {
  const set = (name: keyof UrlFilters) => (e: { target: { value: string } }) =>
    onChange({ ...value, [name]: e.target.value });
  const options = [...(workflows ?? new Map<string, string>())].sort((a, b) => a[1].localeCompare(b[1]));
  // A bookmarked workflow that is not in the names read (deleted, or past the first page) stays selectable.
  if (value.workflowId !== "" && !workflows?.has(value.workflowId))
    options.unshift([value.workflowId, value.workflowId]);
  return (
    <form className="filters card" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        Workflow
        <select value={value.workflowId} onChange={set("workflowId")}>
          <option value="">All workflows</option>
          {options.map(([wid, name]) => (
            <option key={wid} value={wid}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select value={value.status} onChange={set("status")}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase().replace("_", " ")}
            </option>
          ))}
        </select>
      </label>
      <label>
        Trigger
        <select value={value.triggerSource} onChange={set("triggerSource")}>
          <option value="">Any trigger but step tests</option>
          {TRIGGER_SOURCES.map((t) => (
            <option key={t} value={t}>
              {t.replace("_", " ")}
            </option>
          ))}
        </select>
      </label>
      <label>
        Time
        <select value={value.range} onChange={set("range")}>
          <option value="">Any time</option>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
          <option value="custom">Between…</option>
        </select>
      </label>
      {value.range === "custom" ? (
        <>
          <label>
            From
            <input type="datetime-local" value={value.since} onChange={set("since")} />
          </label>
          <label>
            To
            <input type="datetime-local" value={value.until} onChange={set("until")} />
          </label>
        </>
      ) : null}
      {hasFilters(value) ? (
        <button type="button" className="ghost clear" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
