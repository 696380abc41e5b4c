import type { UsageDay } from "../../api/types";
import { formatCost, formatNumber } from "../../ui/format";

export interface Series {
  label: string;
  /** A class of usage.css giving the bar its theme colour. */
  tone: string;
  value(day: UsageDay): number;
}

/**
 * One column a day, its series stacked, scaled to the busiest day. Drawn with divs: the numbers
 * are in each column's tooltip and in the table of active days, the picture is for the shape.
 */
export function DayBars({
  title,
  days,
  series,
  format,
}: {
  title: string;
  days: UsageDay[];
  series: Series[];
  format: "number" | "cost";
}) {
  const show = format === "cost" ? formatCost : formatNumber;
  const totals = days.map((d) => series.reduce((sum, s) => sum + s.value(d), 0));
  const max = Math.max(0, ...totals);
  const first = days[0]?.date ?? "";
  const last = days.at(-1)?.date ?? "";
  return (
    <figure className="card usage-chart">
      <figcaption className="row between">
        <h3>{title}</h3>
        <span className="row small muted">
          {series.map((s) => (
            <span key={s.label} className="usage-legend">
              <span className={`usage-swatch ${s.tone}`} aria-hidden="true" /> {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <div className="usage-plot" role="img" aria-label={`${title}, ${first} to ${last}: at most ${show(max)} a day`}>
        <span className="usage-max small muted">{show(max)}</span>
        <div className="usage-columns">
          {days.map((d, i) => (
            <div
              key={d.date}
              className="usage-column"
              title={`${d.date}: ${series.map((s) => `${s.label} ${show(s.value(d))}`).join(", ")}`}
            >
              {max > 0
                ? series.map((s) => {
                    const value = s.value(d);
                    return value > 0 ? (
                      <div
                        key={s.label}
                        className={`usage-bar ${s.tone}`}
                        style={{ height: `${(value / max) * 100}%` }}
                      />
                    ) : null;
                  })
                : null}
              {totals[i] === 0 ? <div className="usage-bar usage-none" /> : null}
            </div>
          ))}
        </div>
      </div>
      <div className="row between small muted">
        <span>{first}</span>
        <span>{last}</span>
      </div>
    </figure>
  );
}
