import { useLayoutEffect, useRef } from "react";

/**
 * A keyboard shortcut while the component is mounted. `keys` is like "mod+s" (mod: Ctrl, or ⌘ on
 * a Mac) or "F8"; the browser's own action for it is prevented.
 */
export function useShortcut(keys: string, action: () => void, enabled = true): void {
  const latest = useRef(action);
  latest.current = action;
  // Attached before the browser paints what enables it: a key pressed as soon as a pause shows is not lost.
  useLayoutEffect(() => {
    if (!enabled) return;
    const parts = keys.toLowerCase().split("+");
    const key = parts.pop() ?? "";
    const wantMod = parts.includes("mod");
    const wantShift = parts.includes("shift");
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (e.key.toLowerCase() !== key || mod !== wantMod || e.shiftKey !== wantShift) return;
      e.preventDefault();
      latest.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [keys, enabled]);
}

/** How a shortcut reads on this machine: ⌘S on a Mac, Ctrl+S elsewhere. */
export function shortcutLabel(keys: string): string {
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  return keys
    .split("+")
    .map((k) =>
      k === "mod" ? (mac ? "⌘" : "Ctrl") : k === "shift" ? (mac ? "⇧" : "Shift") : k.length === 1 ? k.toUpperCase() : k,
    )
    .join(mac ? "" : "+");
}
