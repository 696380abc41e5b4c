import { useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";

const MIN = 0.25;
const MAX = 0.75;
const clamp = (share: number) => Math.min(MAX, Math.max(MIN, share));

/**
 * Two panes side by side with a divider to drag (or move with the arrow keys) between them; the
 * right one can be hidden, leaving the left the whole width.
 */
export function SplitView({
  left,
  right,
  showRight,
  label,
}: {
  left: ReactNode;
  right: ReactNode;
  showRight: boolean;
  label: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const [share, setShare] = useState(0.4);
  const [dragging, setDragging] = useState(false);

  const onPointerMove = (event: PointerEvent) => {
    const box = frame.current?.getBoundingClientRect();
    if (dragging && box && box.width > 0) setShare(clamp((event.clientX - box.left) / box.width));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === "ArrowLeft" ? -0.05 : event.key === "ArrowRight" ? 0.05 : 0;
    if (step === 0) return;
    event.preventDefault();
    setShare((s) => clamp(s + step));
  };

  return (
    <div ref={frame} className={`split${dragging ? " is-resizing" : ""}`}>
      <div
        className={`split-pane split-left${showRight ? " is-sized" : ""}`}
        style={showRight ? { flexBasis: `${share * 100}%` } : undefined}
      >
        {left}
      </div>
      {showRight ? (
        <>
          <div
            className="split-divider"
            role="separator"
            aria-orientation="vertical"
            aria-label={label}
            aria-valuemin={MIN * 100}
            aria-valuemax={MAX * 100}
            aria-valuenow={Math.round(share * 100)}
            tabIndex={0}
            onKeyDown={onKeyDown}
            onPointerDown={(event) => {
              event.currentTarget.setPointerCapture(event.pointerId);
              setDragging(true);
            }}
            onPointerMove={onPointerMove}
            onPointerUp={() => setDragging(false)}
            onPointerCancel={() => setDragging(false)}
          />
          <div className="split-pane split-right">{right}</div>
        </>
      ) : null}
    </div>
  );
}
