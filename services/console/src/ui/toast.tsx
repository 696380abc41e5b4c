import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { placeClearOfFocus } from "./toast-place";

interface Toast {
  id: number;
  text: string;
  kind: "ok" | "error";
}

const ToastContext = createContext<(text: string, kind?: Toast["kind"]) => void>(() => {});

/**
 * Short notices after an action ("Saved as version 3"), read out by screen readers. While one shows, it keeps clear of
 * the focused control: a keyboard user tabbing to a control drawn under it sees the control and its focus ring.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const box = useRef<HTMLDivElement>(null);
  const push = useCallback((text: string, kind: Toast["kind"] = "ok") => {
    const id = Date.now() + Math.random();
    setToasts((all) => [...all, { id, text, kind }]);
    window.setTimeout(() => setToasts((all) => all.filter((t) => t.id !== id)), kind === "error" ? 8000 : 4000);
  }, []);
  useEffect(() => {
    const el = box.current;
    if (toasts.length === 0 || !el) return;
    const place = () => placeClearOfFocus(el, document.activeElement);
    place();
    // The focus moves, or the page or one of its boxes scrolls (the browser bringing a focused control into view).
    window.addEventListener("focusin", place);
    window.addEventListener("scroll", place, { capture: true, passive: true });
    window.addEventListener("resize", place);
    return () => {
      window.removeEventListener("focusin", place);
      window.removeEventListener("scroll", place, { capture: true });
      window.removeEventListener("resize", place);
    };
  }, [toasts]);
  return (
    <ToastContext.Provider value={push}>
      {children}
      {/* In the document from the start, empty: a live region added with its text is not read out by every reader. */}
      <div className="toasts" role="status" aria-live="polite" ref={box}>
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.kind}`}>
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);
