import { useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "@tanstack/react-query";
import { formatAgo, formatTime } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { DiffView } from "./DiffView";
import { editorPath, fetchDiff, fetchVersions, fetchWorkflow, workflowKeys } from "./queries";
import { VersionDialog } from "./VersionDialog";
import "./workflows.css";

/** `/workflows/:id/versions`: every saved version; pick two to see what changed, or open one. */
export default function VersionsPage() {
  const id = useParams().id!;
  const detail = useQuery({ queryKey: workflowKeys.detail(id), queryFn: ({ signal }) => fetchWorkflow(id, signal) });
  const versions = useQuery({
    queryKey: workflowKeys.versions(id),
    queryFn: ({ signal }) => fetchVersions(id, signal),
  });
  const [picked, setPicked] = useState<{ from: number | null; to: number | null }>({ from: null, to: null });
  const [viewing, setViewing] = useState<number | null>(null);

  const items = versions.data?.items ?? [];
  // Until the person picks, the newest change: the version before the current one, to the current one.
  const to = picked.to ?? items[0]?.version ?? null;
  const from = picked.from ?? items[1]?.version ?? null;
  const comparable = from !== null && to !== null && from !== to;
  const diff = useQuery({
    queryKey: workflowKeys.diff(id, from ?? 0, to ?? 0),
    queryFn: ({ signal }) => fetchDiff(id, from!, to!, signal),
    enabled: comparable,
  });

  if (versions.isPending || detail.isPending) return <Loading what="Loading the versions" />;
  if (detail.isError) return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  if (versions.isError) return <ErrorState error={versions.error} retry={() => void versions.refetch()} />;

  const added = diff.data?.lines.filter((l) => l.op === "add").length ?? 0;
  const removed = diff.data?.lines.filter((l) => l.op === "remove").length ?? 0;

  return (
    <div className="versions-page">
      <div className="page-head">
        <Link to="/workflows" className="muted">
          Workflows
        </Link>
        <span className="muted" aria-hidden="true">
          /
        </span>
        <Link to={editorPath(id)}>{detail.data.name}</Link>
        <span className="muted" aria-hidden="true">
          /
        </span>
        <h1>Versions</h1>
        <div className="spacer" />
        <Link to={editorPath(id)} className="button">
          Open in the editor
        </Link>
      </div>

      <div className="versions-layout">
        <section className="card versions-list" aria-label="Versions">
          <table>
            <thead>
              <tr>
                <th>Version</th>
                <th>Saved</th>
                <th title="Compare from this version">From</th>
                <th title="Compare to this version">To</th>
                <th aria-label="View" />
              </tr>
            </thead>
            <tbody>
              {items.map((v) => (
                <tr key={v.version} className={v.version === from || v.version === to ? "picked" : undefined}>
                  <td>
                    v{v.version} {v.current ? <span className="badge status-active">current</span> : null}
                  </td>
                  <td title={formatTime(v.updatedAt)}>{formatAgo(v.updatedAt)}</td>
                  <td>
                    <input
                      type="radio"
                      name="from"
                      aria-label={`Compare from version ${v.version}`}
                      checked={v.version === from}
                      onChange={() => setPicked({ from: v.version, to })}
                    />
                  </td>
                  <td>
                    <input
                      type="radio"
                      name="to"
                      aria-label={`Compare to version ${v.version}`}
                      checked={v.version === to}
                      onChange={() => setPicked({ from, to: v.version })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() => setViewing(v.version)}
                      aria-label={`View version ${v.version}`}
                    >
                      View
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        <section className="card diff-card" aria-label="Changes">
          {items.length < 2 ? (
            <Empty title="Only one version so far">
              Each save stores the next version; once there are two, what changed shows here.
            </Empty>
          ) : !comparable ? (
            <Empty title="Pick two different versions">Choose a version to compare from and one to compare to.</Empty>
          ) : (
            <>
              <div className="row between diff-head">
                <h2>
                  Changes from v{from} to v{to}
                </h2>
                {diff.data ? (
                  <span className="small">
                    <span className="diff-count-add">+{added}</span>{" "}
                    <span className="diff-count-remove">−{removed}</span>
                  </span>
                ) : null}
              </div>
              {diff.isPending ? (
                <Loading what="Comparing" />
              ) : diff.isError ? (
                <ErrorState error={diff.error} retry={() => void diff.refetch()} />
              ) : added + removed === 0 ? (
                <Empty title="No differences">The two versions have the same text.</Empty>
              ) : (
                <DiffView lines={diff.data.lines} />
              )}
            </>
          )}
        </section>
      </div>

      <VersionDialog workflow={detail.data} version={viewing} onClose={() => setViewing(null)} />
    </div>
  );
}
