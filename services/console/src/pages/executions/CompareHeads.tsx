import type { ReactNode } from "react";
import { Link } from "react-router";
import type { ExecutionView } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration, formatTime } from "../../ui/format";
import { executionDuration, hasEnded } from "./execution-status";
import { executionPath } from "./queries";
import { formatTokens, formatUsageCost } from "./usage-format";
import { useNow } from "./useNow";

const FACTS: [string, (v: ExecutionView, now: number) => ReactNode][] = [
  [
    "Execution",
    (v) => (
      <Link to={executionPath(v.id)} className="mono">
        {v.id}
      </Link>
    ),
  ],
  ["Version", (v) => (v.workflowVersion === null ? "—" : `v${v.workflowVersion}`)],
  ["Trigger", (v) => v.triggerSource.replace("_", " ")],
  ["Status", (v) => <StatusBadge status={v.status} />],
  ["Started", (v) => formatTime(v.startAt ?? v.createdAt)],
  ["Duration", (v, now) => formatDuration(executionDuration(v, now))],
  ["Tokens", (v) => formatTokens(v.usage)],
  ["Cost", (v) => formatUsageCost(v.usage)],
];

/** The two runs' heads, fact by fact: A's beside B's. */
export function CompareHeads({ a, b }: { a: ExecutionView; b: ExecutionView }) {
  const now = useNow(1_000, !hasEnded(a.status) || !hasEnded(b.status));
  return (
    <section className="card" aria-label="The two runs">
      <table className="compare-heads">
        <thead>
          <tr>
            <td />
            <th scope="col">Run A</th>
            <th scope="col">Run B</th>
          </tr>
        </thead>
        <tbody>
          {FACTS.map(([name, show]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{show(a, now)}</td>
              <td>{show(b, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
