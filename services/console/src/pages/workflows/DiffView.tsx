import { useState } from "react";
import type { WorkflowDiffLine } from "../../api/types";
import "./DiffView.css";

/** Unchanged lines kept on each side of a change; longer unchanged runs fold away. */
const CONTEXT = 3;

interface Numbered extends WorkflowDiffLine {
  before: number | null;
  after: number | null;
}

type Piece = { line: Numbered } | { folded: Numbered[]; start: number };

function number(lines: readonly WorkflowDiffLine[]): Numbered[] {
  let before = 0;
  let after = 0;
  return lines.map((l) => ({
    ...l,
    before: l.op === "add" ? null : ++before,
    after: l.op === "remove" ? null : ++after,
  }));
}

/** The lines to show, with each long unchanged run away from any change folded into one piece. */
function fold(lines: Numbered[]): Piece[] {
  const near = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === "same") return;
    for (let j = Math.max(0, i - CONTEXT); j <= Math.min(lines.length - 1, i + CONTEXT); j++) near[j] = true;
  });
  const pieces: Piece[] = [];
  for (let i = 0; i < lines.length;) {
    if (near[i] || lines[i]!.op !== "same") {
      pieces.push({ line: lines[i]! });
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && !near[end]) end++;
    const run = lines.slice(i, end);
    if (run.length <= 2) pieces.push(...run.map((line) => ({ line })));
    else pieces.push({ folded: run, start: i });
    i = end;
  }
  return pieces;
}

const SIGN = { same: " ", add: "+", remove: "−" } as const;
const SAY = { same: "unchanged", add: "added", remove: "removed" } as const;

function Line({ line }: { line: Numbered }) {
  return (
    <div className={`diff-line diff-${line.op}`} title={SAY[line.op]}>
      <span className="diff-num">{line.before ?? ""}</span>
      <span className="diff-num">{line.after ?? ""}</span>
      <span className="diff-sign" aria-hidden="true">
        {SIGN[line.op]}
      </span>
      {line.op === "same" ? null : <span className="sr-only">{SAY[line.op]}: </span>}
      <span className="diff-text">{line.line}</span>
    </div>
  );
}

/** A line diff with added lines green and removed lines red, both line numbers, unchanged stretches folded. */
export function DiffView({ lines, label = "Differences" }: { lines: readonly WorkflowDiffLine[]; label?: string }) {
  const [opened, setOpened] = useState<Set<number>>(new Set());
  const pieces = fold(number(lines));
  return (
    <div className="diff" role="region" aria-label={label} tabIndex={0}>
      {pieces.map((piece) =>
        "line" in piece ? (
          <Line key={`${piece.line.before}:${piece.line.after}`} line={piece.line} />
        ) : opened.has(piece.start) ? (
          piece.folded.map((line) => <Line key={`${line.before}:${line.after}`} line={line} />)
        ) : (
          <button
            key={`fold:${piece.start}`}
            type="button"
            className="diff-fold"
            onClick={() => setOpened((all) => new Set(all).add(piece.start))}
          >
            ⋯ {piece.folded.length} unchanged lines
          </button>
        ),
      )}
    </div>
  );
}
