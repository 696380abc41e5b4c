import { Link } from "react-router";
import type { UsageWorkflow } from "../../api/types";
import { formatCost, formatNumber } from "../../ui/format";

/** Where the money went: most expensive first, tokens breaking ties (free runs still use tokens on unpriced models). */
export function WorkflowTable({ workflows }: { workflows: UsageWorkflow[] }) {
  const sorted = [...workflows].sort(
    (a, b) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || a.workflowName.localeCompare(b.workflowName),
  );
  const totalCost = sorted.reduce((sum, w) => sum + w.costUsd, 0);
  return (
    <section className="usage-section" aria-labelledby="usage-workflows-title">
      <h2 id="usage-workflows-title">By workflow</h2>
      <div className="table-wrap">
        <table aria-labelledby="usage-workflows-title">
          <thead>
            <tr>
              <th>Workflow</th>
              <th className="num">Executions</th>
              <th className="num">Tokens in</th>
              <th className="num">Tokens out</th>
              <th className="num">Cost</th>
              <th>Share of cost</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((w) => {
              const share = totalCost > 0 ? w.costUsd / totalCost : 0;
              return (
                <tr key={w.workflowId}>
                  <td>
                    <Link to={`/workflows/${w.workflowId}`}>{w.workflowName}</Link>
                  </td>
                  <td className="num">{formatNumber(w.executions)}</td>
                  <td className="num">{formatNumber(w.promptTokens)}</td>
                  <td className="num">{formatNumber(w.completionTokens)}</td>
                  <td className="num">{formatCost(w.costUsd)}</td>
                  <td>
                    <div className="usage-share" title={`${Math.round(share * 100)}% of the cost`}>
                      <div className="usage-bar usage-cost" style={{ width: `${share * 100}%` }} />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
