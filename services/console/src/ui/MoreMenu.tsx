import { useEffect, useId, useRef, useState, type ReactNode } from "react";

/**
 * A button that shows a few less used actions below it (a disclosure: the actions are the page's own buttons and
 * links, reached with Tab once shown), so that a page head keeps few stops before its main action. It closes on
 * Escape (the focus back on the button), on a click elsewhere, when the focus leaves it, and once an action is taken.
 */
export function MoreMenu({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  return (
    <div
      className="more-menu"
      ref={box}
      onKeyDown={(e) => {
        if (e.key !== "Escape" || !open) return;
        e.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }}
      onBlur={(e) => {
        if (!box.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button ref={button} type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {label} <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div id={id} className="more-menu-items" onClick={() => setOpen(false)}>
          {children}
        </div>
      ) : null}
    </div>
  );
}
