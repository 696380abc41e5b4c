import type { UsageDay } from "../../api/types";
import { formatCost, formatNumber } from "../../ui/format";

/** The numbers behind the bars, for the days something ran, newest first. */
export function ActiveDays({ days }: { days: UsageDay[] }) {
  const active = days.filter((d) => d.executions > 0).reverse();
  return (
    <section className="usage-section" aria-labelledby="usage-days-title">
      <h2 id="usage-days-title">Days with activity</h2>
      <div className="table-wrap">
        <table aria-labelledby="usage-days-title">
          <thead>
            <tr>
              <th>Date (UTC)</th>
              <th className="num">Executions</th>
              <th className="num">Tokens in</th>
              <th className="num">Tokens out</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {active.map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td>
                <td className="num">{formatNumber(d.executions)}</td>
                <td className="num">{formatNumber(d.promptTokens)}</td>
                <td className="num">{formatNumber(d.completionTokens)}</td>
                <td className="num">{formatCost(d.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
