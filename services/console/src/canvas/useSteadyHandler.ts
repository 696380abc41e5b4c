import { useCallback, useLayoutEffect, useRef } from "react";

/**
 * `handler` as one function for the component's life, calling whatever `handler` the last render
 * gave. xyflow hands its event props down to every node, so a new function each render would draw
 * all of them again on every keystroke.
 */
export function useSteadyHandler<F extends (...args: never[]) => unknown>(handler: F): F {
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  return useCallback(((...args: Parameters<F>) => latest.current(...args)) as F, []);
}
