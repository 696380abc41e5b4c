import { useMemo, useState } from "react";
import { Link } from "react-router";
import type { ExecutionView } from "../../api/types";
import { formatTime } from "../../ui/format";
import { hasEnded } from "./execution-status";
import { comparePath, useRunsOf } from "./queries";
import "./compare.css";

/**
 * "Compare with…": another finished run of the same workflow (of the newest page of them), the one
 * before this run at first; the older of the two is A.
 */
export function CompareWith({ view }: { view: ExecutionView }) {
  const runs = useRunsOf(view.workflowId);
  const others = useMemo(
    () => (runs.data?.items ?? []).filter((e) => e.id !== view.id && hasEnded(e.status)),
    [runs.data, view.id],
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const other = others.find((e) => e.id === chosen) ?? others.find((e) => e.createdAt < view.createdAt) ?? others[0];
  if (!other) return null;
  const [a, b] = other.createdAt <= view.createdAt ? [other.id, view.id] : [view.id, other.id];

  return (
    <div className="compare-with">
      <label className="inline">
        <span>Compare with…</span>
        <select value={other.id} onChange={(e) => setChosen(e.target.value)}>
          {others.map((e) => (
            <option key={e.id} value={e.id}>
              {formatTime(e.createdAt)} · {e.status.toLowerCase()} · {e.id}
            </option>
          ))}
        </select>
      </label>
      <Link className="button" to={comparePath(a, b)}>
        Compare
      </Link>
    </div>
  );
}
