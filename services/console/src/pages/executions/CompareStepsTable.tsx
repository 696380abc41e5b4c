import { useMemo, useState } from "react";
import { Empty } from "../../ui/states";
import { CompareStepRow } from "./CompareStepRow";
import { FOLD_AT, nestedCounts, visibleRows, type CompareRow } from "./compare-runs";

/** The steps of both runs, one row each, differing rows marked; a container of many steps folded until opened. */
export function CompareStepsTable({
  rows,
  onlyDifferences,
  onOnlyDifferences,
}: {
  rows: CompareRow[];
  onlyDifferences: boolean;
  onOnlyDifferences: (only: boolean) => void;
}) {
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const counts = useMemo(() => nestedCounts(rows), [rows]);
  const shown = useMemo(() => visibleRows(rows, { onlyDifferences, opened }), [rows, onlyDifferences, opened]);
  const differing = rows.filter((r) => r.differs).length;
  const toggle = (path: string) =>
    setOpened((all) => {
      const next = new Set(all);
      if (!next.delete(path)) next.add(path);
      return next;
    });

  return (
    <section className="card stack" aria-labelledby="compare-steps-title">
      <div className="row">
        <h2 id="compare-steps-title">Steps</h2>
        <span className="muted small" role="status">
          {differing === 0 ? "No step differs" : differing === 1 ? "1 step differs" : `${differing} steps differ`}
        </span>
        <div className="spacer" />
        <label className="inline">
          <input type="checkbox" checked={onlyDifferences} onChange={(e) => onOnlyDifferences(e.target.checked)} />
          Only differences
        </label>
      </div>
      {shown.length === 0 ? (
        <Empty title={onlyDifferences ? "The two runs did the same at every step" : "Neither run has steps"} />
      ) : (
        <div className="table-wrap">
          <table className="compare-steps" aria-label="Steps compared">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Status A</th>
                <th scope="col">Status B</th>
                <th scope="col" className="num">
                  Duration A
                </th>
                <th scope="col" className="num">
                  Duration B
                </th>
                <th scope="col" className="num">
                  Change
                </th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col" className="num">
                  Tokens
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => {
                const nested = counts.get(row.path);
                return (
                  <CompareStepRow
                    key={row.path}
                    row={row}
                    fold={
                      nested && nested.rows > FOLD_AT
                        ? { ...nested, open: opened.has(row.path), toggle: () => toggle(row.path) }
                        : undefined
                    }
                    holdsDifferences={(nested?.differ ?? 0) > 0}
                  />
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
