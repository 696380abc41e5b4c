export interface LeadingThrottle<T> {
  /** A new value: run at once after a pause, otherwise once the rest is over (with the latest value by then). */
  push(value: T): void;
  /** Runs with `value` at once, whatever the rest. */
  flush(value: T): void;
  /** Drops the value still to run. */
  cancel(): void;
}

/**
 * Runs `run` with the latest value pushed: in the next task (the current one, a keystroke, is
 * drawn first) once `rest` times what the last run took has passed since it ended, otherwise when
 * that rest is over. Runs then take at most 1 / (1 + rest) of the time while values keep coming,
 * however long each one takes, and the last value of a burst always gets its run.
 */
export function leadingThrottle<T>(run: (value: T) => void, rest: number): LeadingThrottle<T> {
  let due: { value: T } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let restedAt = Number.NEGATIVE_INFINITY;
  const fire = () => {
    clearTimeout(timer);
    timer = undefined;
    const next = due;
    due = undefined;
    if (!next) return;
    const started = performance.now();
    run(next.value);
    const ended = performance.now();
    restedAt = ended + rest * (ended - started);
  };
  return {
    push(value) {
      due = { value };
      timer ??= setTimeout(fire, Math.max(0, restedAt - performance.now()));
    },
    flush(value) {
      due = { value };
      fire();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      due = undefined;
    },
  };
}
