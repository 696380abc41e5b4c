import type { FanOutBudget } from "./fan-out-budget";
import type { Outcome } from "./step-kind";

/**
 * Runs `count` runs (a foreach's items, a parallel's branches), up to `width` at once, the next as one ends; none
 * starts after one failed (those under way run to their end). The first runs without asking, so that a nested
 * container always moves; each further worker takes a unit of `budget` for as long as it runs, asked for whenever a run
 * starts (units another container gave back are taken then). The outcomes by index: a run never started leaves a hole.
 * `stopped`: awaited by each worker as it finds no run left to start while another worker still runs, before it ends;
 * the last worker leaves what it would do to the caller, which goes on at once with the runs' end.
 */
export function runBounded(
  count: number,
  width: number,
  budget: FanOutBudget,
  run: (index: number) => Promise<Outcome>,
  stopped?: () => Promise<void>,
): Promise<Outcome[]> {
  const results: Outcome[] = new Array(count);
  let next = 0;
  let failed = false;
  let workers = 0;
  return new Promise((resolve, reject) => {
    const more = (): boolean => !failed && next < count;
    const worker = async (): Promise<void> => {
      while (more()) {
        const i = next++;
        const running = run(i);
        grow();
        const r = await running;
        results[i] = r;
        if (r.kind === "failed") failed = true;
      }
      if (workers > 1) await stopped?.();
    };
    const start = (extra: boolean): void => {
      workers += 1;
      const done = (): void => {
        workers -= 1;
        if (extra) budget.give();
      };
      worker().then(
        () => {
          done();
          if (workers === 0) resolve(results);
        },
        (e: unknown) => {
          // A run that throws (the execution cancelled, or no longer this process's) starts nothing more either.
          failed = true;
          done();
          reject(e);
        },
      );
    };
    // Asked as each run starts, every worker busy then: one more worker if a run is left for it.
    const grow = (): void => {
      while (more() && workers < width && budget.take()) start(true);
    };
    if (count === 0) resolve(results);
    else start(false);
  });
}
