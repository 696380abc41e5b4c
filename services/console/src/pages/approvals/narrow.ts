import { useSyncExternalStore } from "react";

const PHONE = "(max-width: 760px)";

function subscribePhone(onChange: () => void): () => void {
  const query = window.matchMedia(PHONE);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** True below the style sheet's phone breakpoint, where wide tables become cards. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribePhone, () => window.matchMedia(PHONE).matches);
}
