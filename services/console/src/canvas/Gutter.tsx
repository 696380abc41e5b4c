import { useContext } from "react";
import { CanvasActionsContext } from "./actions";
import type { BreakpointKind } from "./overlay";

const MARKS: { kind: BreakpointKind; glyph: string; title: string }[] = [
  { kind: "before", glyph: "▸", title: "Break before" },
  { kind: "on_error", glyph: "!", title: "Break on an error in" },
  { kind: "after", glyph: "◂", title: "Break after" },
];

/** A node's breakpoint gutter, as in a debugger: a mark per kind, filled when it is set. */
export function Gutter({ id, name, set }: { id: string; name: string; set: readonly BreakpointKind[] }) {
  const { gutterClick } = useContext(CanvasActionsContext);
  return (
    <div className="wf-gutter nodrag">
      {MARKS.map((mark) => (
        <button
          key={mark.kind}
          type="button"
          className="wf-mark"
          aria-pressed={set.includes(mark.kind)}
          data-breakpoint={set.includes(mark.kind) ? mark.kind : undefined}
          title={`${mark.title} ${name}`}
          aria-label={`${mark.title} ${name}`}
          onClick={(event) => {
            event.stopPropagation();
            gutterClick?.(id, mark.kind);
          }}
        >
          {mark.glyph}
        </button>
      ))}
    </div>
  );
}
