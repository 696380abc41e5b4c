import { useQuery } from "@tanstack/react-query";
import { DiffView } from "../workflows/DiffView";
import { fetchDiff, workflowKeys } from "../workflows/queries";

/** What the latest version changes from the one the execution ran, as the versions page shows it. */
export function VersionChanges({ workflowId, from, to }: { workflowId: string; from: number | null; to: number }) {
  const diff = useQuery({
    queryKey: workflowKeys.diff(workflowId, from ?? 0, to),
    queryFn: ({ signal }) => fetchDiff(workflowId, from!, to, signal),
    enabled: from !== null,
    retry: false,
  });
  const title = from === null ? `What v${to} changes` : `What v${to} changes from v${from}`;
  if (from === null)
    return <p className="muted small">This execution recorded no version, so what v{to} changes cannot be shown.</p>;
  if (diff.isError)
    return (
      <p className="muted small">
        v{from} is no longer kept, so what v{to} changes cannot be shown.
      </p>
    );
  const lines = diff.data?.lines ?? [];
  const added = lines.filter((l) => l.op === "add").length;
  const removed = lines.filter((l) => l.op === "remove").length;
  return (
    <section className="stack rerun-changes" aria-label={title}>
      <h3>
        {title}{" "}
        {diff.data ? (
          <span className="muted small">
            (+{added} −{removed} lines)
          </span>
        ) : null}
      </h3>
      {diff.data ? <DiffView lines={lines} /> : <p className="muted small">Loading the changes…</p>}
    </section>
  );
}
